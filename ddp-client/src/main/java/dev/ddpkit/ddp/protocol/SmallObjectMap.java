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
 * <p>The entries are objects of their own, as a {@code LinkedHashMap}'s: one taken from an
 * iterator keeps its value after it is removed, and its {@code setValue} writes through while it
 * is in the map (after the move, through to the {@code LinkedHashMap} while its key is there).
 *
 * <p>A full {@link Map}: null keys and values, views that write through, iterators that remove and
 * fail fast on a concurrent change. Not thread-safe, like the {@code LinkedHashMap} it stands for.
 */
final class SmallObjectMap<V> extends AbstractMap<String, V> {
  /** Entries kept in the array; one more moves them all into a {@code LinkedHashMap}. */
  static final int MAX_INLINE = 8;

  /** The entries in order, {@code size} of them; {@code null} until the first put. */
  private Node<V>[] nodes;
  private int size;
  /** Structural changes (an entry added or removed), for the iterators' fail-fast check. */
  private int modCount;
  /** Every entry, once there were more than {@link #MAX_INLINE}; {@code null} before. */
  private LinkedHashMap<String, V> big;
  private Set<Map.Entry<String, V>> entrySet;

  /** One entry; {@code owner} is the map while the entry is in it, {@code null} once removed. */
  private static final class Node<V> implements Map.Entry<String, V> {
    final String key;
    V value;
    SmallObjectMap<V> owner;

    Node(String key, V value, SmallObjectMap<V> owner) {
      this.key = key;
      this.value = value;
      this.owner = owner;
    }

    @Override
    public String getKey() {
      return key;
    }

    @Override
    public V getValue() {
      return value;
    }

    @Override
    public V setValue(V v) {
      V old = value;
      value = v;
      SmallObjectMap<V> map = owner;
      if (map != null && map.big != null && map.big.containsKey(key)) {
        map.big.put(key, v); // moved: the map's value is the LinkedHashMap's now
      }
      return old;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Map.Entry<?, ?> e && Objects.equals(key, e.getKey())
          && Objects.equals(value, e.getValue());
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(key) ^ Objects.hashCode(value);
    }

    @Override
    public String toString() {
      return key + "=" + value;
    }
  }

  @Override
  public int size() {
    return big != null ? big.size() : size;
  }

  @Override
  public boolean isEmpty() {
    return size() == 0;
  }

  /** The index of {@code key}'s entry, or -1; {@code String.equals} tests identity first. */
  private int indexOf(Object key) {
    Node<V>[] n = nodes;
    for (int i = 0; i < size; i++) {
      if (Objects.equals(n[i].key, key)) {
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
  public V get(Object key) {
    if (big != null) {
      return big.get(key);
    }
    int i = indexOf(key);
    return i < 0 ? null : nodes[i].value;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V put(String key, V value) {
    if (big != null) {
      return big.put(key, value);
    }
    int i = indexOf(key);
    if (i >= 0) {
      V old = nodes[i].value;
      nodes[i].value = value;
      return old;
    }
    if (size == MAX_INLINE) {
      big = new LinkedHashMap<>(4 * MAX_INLINE);
      for (int j = 0; j < size; j++) {
        big.put(nodes[j].key, nodes[j].value); // the nodes keep this map as owner: see setValue
      }
      nodes = null;
      size = 0;
      modCount++;
      return big.put(key, value);
    }
    if (nodes == null) {
      nodes = (Node<V>[]) new Node<?>[4]; // most objects of a frame fit
    } else if (size == nodes.length) {
      nodes = java.util.Arrays.copyOf(nodes, MAX_INLINE);
    }
    nodes[size++] = new Node<>(key, value, this);
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

  /** Removes the entry at {@code i}, keeping the others' order; returns its value. */
  private V removeAt(int i) {
    Node<V> gone = nodes[i];
    System.arraycopy(nodes, i + 1, nodes, i, size - i - 1);
    nodes[--size] = null;
    gone.owner = null;
    modCount++;
    return gone.value;
  }

  @Override
  public void clear() {
    if (big != null) {
      big.clear();
      return;
    }
    for (int i = 0; i < size; i++) {
      nodes[i].owner = null;
      nodes[i] = null;
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

  /** An iterator over the array's entries, failing fast as a {@code LinkedHashMap}'s does. */
  private final class ArrayEntries implements Iterator<Map.Entry<String, V>> {
    private int next; // index of the next entry
    private int last = -1; // index of the entry next() returned last, -1 after remove()
    private int expectedModCount = modCount;

    @Override
    public boolean hasNext() {
      // Changed behind this iterator: say there is more, so that next() reports the change.
      return next < size || modCount != expectedModCount;
    }

    @Override
    public Map.Entry<String, V> next() {
      check();
      if (next >= size) {
        throw new NoSuchElementException();
      }
      last = next++;
      return nodes[last];
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
      if (modCount != expectedModCount) {
        throw new ConcurrentModificationException();
      }
    }
  }
}
