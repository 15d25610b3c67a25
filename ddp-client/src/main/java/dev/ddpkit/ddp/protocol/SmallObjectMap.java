package dev.ddpkit.ddp.protocol;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * The children of a JSON object read from a frame ({@link CompactNodeFactory}): a map in insertion
 * order, as the {@link LinkedHashMap} Jackson gives every {@code ObjectNode}, but its first {@link
 * #MAX_INLINE} entries kept in one array of keys and values, looked up by a scan. The objects of a
 * DDP frame are small (a message, its author, a date: two to ten names), and a {@code
 * LinkedHashMap} costs each one a table of 16 buckets and a 40-byte entry per name: a third of
 * the bytes a room event allocated. Past {@link #MAX_INLINE} entries the map moves them, in order,
 * into a {@code LinkedHashMap} and delegates to it from then on.
 *
 * <p>A full {@link Map}: null keys and values, views that write through, iterators that remove and
 * fail fast on a concurrent change. Not thread-safe, like the {@code LinkedHashMap} it stands for.
 */
final class SmallObjectMap<V> extends AbstractMap<String, V> {
  /** Entries kept in the array; one more moves them all into a {@code LinkedHashMap}. */
  static final int MAX_INLINE = 8;

  /** Keys at even indexes, their values after them; {@code null} until the first put. */
  private Object[] slots;
  private int size;
  /** Structural changes (an entry added or removed), for the iterators' fail-fast check. */
  private int modCount;
  /** Every entry, once there were more than {@link #MAX_INLINE}; {@code null} before. */
  private LinkedHashMap<String, V> big;
  private Set<Map.Entry<String, V>> entrySet;

  @Override
  public int size() {
    return big != null ? big.size() : size;
  }

  @Override
  public boolean isEmpty() {
    return size() == 0;
  }

  /** The index of {@code key}'s slot, or -1; names read from JSON are interned, so {@code ==}. */
  private int indexOf(Object key) {
    Object[] s = slots;
    int end = 2 * size;
    for (int i = 0; i < end; i += 2) {
      if (s[i] == key) {
        return i;
      }
    }
    for (int i = 0; i < end; i += 2) {
      if (Objects.equals(s[i], key)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public boolean containsKey(Object key) {
    return big != null ? big.containsKey(key) : indexOf(key) >= 0;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    if (big != null) {
      return big.get(key);
    }
    int i = indexOf(key);
    return i < 0 ? null : (V) slots[i + 1];
  }

  @Override
  @SuppressWarnings("unchecked")
  public V put(String key, V value) {
    if (big != null) {
      return big.put(key, value);
    }
    int i = indexOf(key);
    if (i >= 0) {
      V old = (V) slots[i + 1];
      slots[i + 1] = value;
      return old;
    }
    if (size == MAX_INLINE) {
      big = new LinkedHashMap<>(4 * MAX_INLINE);
      for (int j = 0; j < 2 * size; j += 2) {
        big.put((String) slots[j], (V) slots[j + 1]);
      }
      slots = null;
      size = 0;
      modCount++;
      return big.put(key, value);
    }
    if (slots == null) {
      slots = new Object[8]; // four entries; most objects of a frame fit
    } else if (2 * size == slots.length) {
      slots = java.util.Arrays.copyOf(slots, 2 * MAX_INLINE);
    }
    slots[2 * size] = key;
    slots[2 * size + 1] = value;
    size++;
    modCount++;
    return null;
  }

  @Override
  public V remove(Object key) {
    if (big != null) {
      return big.remove(key);
    }
    int i = indexOf(key);
    return i < 0 ? null : removeAt(i);
  }

  /** Removes the entry at slot {@code i}, keeping the others' order; returns its value. */
  @SuppressWarnings("unchecked")
  private V removeAt(int i) {
    V old = (V) slots[i + 1];
    int end = 2 * size;
    System.arraycopy(slots, i + 2, slots, i, end - i - 2);
    slots[end - 2] = null;
    slots[end - 1] = null;
    size--;
    modCount++;
    return old;
  }

  @Override
  public void clear() {
    if (big != null) {
      big.clear();
      return;
    }
    if (slots != null) {
      java.util.Arrays.fill(slots, 0, 2 * size, null);
    }
    size = 0;
    modCount++;
  }

  @Override
  public Set<Map.Entry<String, V>> entrySet() {
    Set<Map.Entry<String, V>> es = entrySet;
    if (es == null) {
      es = new Entries();
      entrySet = es;
    }
    return es;
  }

  /** The entries, in order: the array's, or the {@code LinkedHashMap}'s once there is one. */
  private final class Entries extends AbstractSet<Map.Entry<String, V>> {
    @Override
    public int size() {
      return SmallObjectMap.this.size();
    }

    @Override
    public void clear() {
      SmallObjectMap.this.clear();
    }

    @Override
    public Iterator<Map.Entry<String, V>> iterator() {
      return big != null ? big.entrySet().iterator() : new ArrayEntries();
    }
  }

  /** An iterator over the array's entries. */
  private final class ArrayEntries implements Iterator<Map.Entry<String, V>> {
    private int next; // slot index of the next entry
    private int last = -1; // slot index of the entry next() returned last, -1 after remove()
    private int expectedModCount = modCount;

    @Override
    public boolean hasNext() {
      return next < 2 * size;
    }

    @Override
    public Map.Entry<String, V> next() {
      check();
      if (next >= 2 * size) {
        throw new NoSuchElementException();
      }
      last = next;
      next += 2;
      return new Slot(last);
    }

    @Override
    public void remove() {
      if (last < 0) {
        throw new IllegalStateException("next() first, and remove() once per entry");
      }
      check();
      removeAt(last);
      next = last;
      last = -1;
      expectedModCount = modCount;
    }

    private void check() {
      if (modCount != expectedModCount || big != null) {
        throw new ConcurrentModificationException();
      }
    }
  }

  /** One entry of the array, writing through to it while the map has not changed shape. */
  private final class Slot implements Map.Entry<String, V> {
    private final int index;
    private final int expectedModCount = modCount;
    private final String key;

    Slot(int index) {
      this.index = index;
      this.key = (String) slots[index];
    }

    @Override
    public String getKey() {
      return key;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V getValue() {
      return modCount == expectedModCount && big == null ? (V) slots[index + 1] : get(key);
    }

    @Override
    public V setValue(V value) {
      if (modCount != expectedModCount || big != null) {
        throw new ConcurrentModificationException();
      }
      @SuppressWarnings("unchecked")
      V old = (V) slots[index + 1];
      slots[index + 1] = value;
      return old;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Map.Entry<?, ?> e && Objects.equals(key, e.getKey())
          && Objects.equals(getValue(), e.getValue());
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(key) ^ Objects.hashCode(getValue());
    }

    @Override
    public String toString() {
      return key + "=" + getValue();
    }
  }
}
