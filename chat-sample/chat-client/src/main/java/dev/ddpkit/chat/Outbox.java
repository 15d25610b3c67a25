package dev.ddpkit.chat;

import dev.ddpkit.chat.protocol.RocketChatNames;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The messages written (and the edits and deletions asked for) but not yet acknowledged, bounded. Not thread-safe; the {@link ChatClient}
 * touches it on its loop only.
 *
 * <p>Each entry is either queued (waiting for a logged-in connection) or in flight (a {@code
 * sendMessage} call is outstanding). A failed send goes back to queued and is sent again with the
 * same id, which the server treats as the same message; only an acknowledgement removes it.
 */
public final class Outbox {

  /** What an entry asks the server for. */
  public enum Kind {
    /** {@code sendMessage}: a new message. */
    SEND(RocketChatNames.SEND_MESSAGE),
    /** {@code updateMessage}: a new text for one of the user's messages. */
    EDIT(RocketChatNames.UPDATE_MESSAGE),
    /** {@code deleteMessage}: one of the user's messages deleted. */
    DELETE(RocketChatNames.DELETE_MESSAGE);

    private final String method;

    Kind(String method) {
      this.method = method;
    }

    /** The DDP method that carries it. */
    public String method() {
      return method;
    }
  }

  /**
   * One message, edit or deletion waiting for its acknowledgement.
   *
   * @param kind what it asks for
   * @param key its key in the outbox: the message id for a send, unique for an edit or deletion
   * @param id the message id
   * @param rid the room id
   * @param text the text (empty for a deletion)
   */
  public record Entry(Kind kind, String key, String id, String rid, String text) {
    /** Validates the components. */
    public Entry {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(rid, "rid");
      Objects.requireNonNull(text, "text");
    }

    /** A new message, keyed by its id. */
    public Entry(String id, String rid, String text) {
      this(Kind.SEND, id, id, rid, text);
    }
  }

  private final int capacity;
  // Insertion order is the order of writing, which re-sends keep.
  private final Map<String, Slot> entries = new LinkedHashMap<>();
  /** The queued (not in flight) entries of each kind by order of writing: a re-send keeps its place. */
  private final Map<Kind, TreeMap<Long, Slot>> queued = new EnumMap<>(Kind.class);
  /** Entries in the outbox per message id; above 1, an edit or deletion waits behind an older one. */
  private final Map<String, Integer> perMessage = new HashMap<>();
  private int inFlight;
  private long written;

  /** An entry, its place in the order of writing, and whether its call is outstanding. */
  private static final class Slot {
    final Entry entry;
    final long seq;
    boolean inFlight;

    Slot(Entry entry, long seq) {
      this.entry = entry;
      this.seq = seq;
    }
  }

  /** Creates an empty outbox holding at most {@code capacity} messages. */
  public Outbox(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    for (Kind k : Kind.values()) {
      queued.put(k, new TreeMap<>());
    }
  }

  /** Returns the capacity. */
  public int capacity() {
    return capacity;
  }

  /** Returns the number of unacknowledged messages. */
  public int size() {
    return entries.size();
  }

  /** Returns whether every message was acknowledged. */
  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** Returns whether no more messages fit. */
  public boolean isFull() {
    return entries.size() >= capacity;
  }

  /** Returns the number of messages with a call outstanding. */
  public int inFlightCount() {
    return inFlight;
  }

  /**
   * Adds a message as queued.
   *
   * @throws OutboxFullException if the outbox is full
   * @throws IllegalArgumentException if the id is already present
   */
  public void add(Entry entry) {
    Objects.requireNonNull(entry, "entry");
    if (entries.containsKey(entry.key())) {
      throw new IllegalArgumentException("duplicate message id: " + entry.key());
    }
    if (isFull()) {
      throw new OutboxFullException(capacity);
    }
    Slot slot = new Slot(entry, written++);
    entries.put(entry.key(), slot);
    queued.get(entry.kind()).put(slot.seq, slot);
    perMessage.merge(entry.id(), 1, Integer::sum);
  }

  /** Marks every queued message in flight and returns them, oldest first. */
  public List<Entry> takeQueued() {
    List<Entry> out = new ArrayList<>();
    for (Slot slot : entries.values()) {
      if (!slot.inFlight) {
        markInFlight(slot);
        out.add(slot.entry);
      }
    }
    return out;
  }

  /** Returns the oldest queued (not in flight) message and marks it in flight, if any. */
  public Optional<Entry> takeOldest() {
    Slot oldest = null;
    for (TreeMap<Long, Slot> q : queued.values()) {
      Map.Entry<Long, Slot> first = q.firstEntry();
      if (first != null && (oldest == null || first.getKey() < oldest.seq)) {
        oldest = first.getValue();
      }
    }
    if (oldest == null) {
      return Optional.empty();
    }
    markInFlight(oldest);
    return Optional.of(oldest.entry);
  }

  /**
   * Returns the oldest queued entry of this kind that may go now, and marks it in flight: one with
   * no older entry for the same message still in the outbox (an edit never overtakes its message's
   * send, nor a deletion an edit), if any.
   */
  public Optional<Entry> takeOldestReady(Kind kind) {
    for (Slot slot : queued.get(kind).values()) {
      if (perMessage.get(slot.entry.id()) == 1 || isOldestOfItsMessage(slot)) {
        markInFlight(slot);
        return Optional.of(slot.entry);
      }
    }
    return Optional.empty();
  }

  /** Whether no entry for the same message was written before this one (rare: edits queued). */
  private boolean isOldestOfItsMessage(Slot slot) {
    for (Slot s : entries.values()) {
      if (s == slot) {
        return true;
      }
      if (s.entry.id().equals(slot.entry.id())) {
        return false;
      }
    }
    return true;
  }

  private void markInFlight(Slot slot) {
    queued.get(slot.entry.kind()).remove(slot.seq);
    slot.inFlight = true;
    inFlight++;
  }

  /** Returns how many entries of this kind are queued (not in flight). */
  public int queuedCount(Kind kind) {
    return queued.get(kind).size();
  }

  /** Removes an acknowledged message; returns it, or empty if it was not there. */
  public Optional<Entry> acknowledge(String id) {
    Slot slot = entries.remove(id);
    if (slot == null) {
      return Optional.empty();
    }
    if (slot.inFlight) {
      inFlight--;
    } else {
      queued.get(slot.entry.kind()).remove(slot.seq);
    }
    perMessage.computeIfPresent(slot.entry.id(), (k, n) -> n == 1 ? null : n - 1);
    return Optional.of(slot.entry);
  }

  /** Removes a message the server rejected for good; returns it, or empty if it was not there. */
  public Optional<Entry> reject(String id) {
    return acknowledge(id);
  }

  /** Puts an in-flight message back in the queue (its send failed and will be retried). */
  public void requeue(String id) {
    Slot slot = entries.get(id);
    if (slot != null && slot.inFlight) {
      slot.inFlight = false;
      inFlight--;
      queued.get(slot.entry.kind()).put(slot.seq, slot);
    }
  }

  /** Returns whether the message is in the outbox and has a call outstanding. */
  public boolean isInFlight(String id) {
    Slot slot = entries.get(id);
    return slot != null && slot.inFlight;
  }

  /** Returns the queued (not in flight) message count. */
  public int queuedCount() {
    return entries.size() - inFlight;
  }
}
