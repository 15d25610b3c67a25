package dev.ddpkit.chat;

import dev.ddpkit.chat.protocol.RocketChatNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private final Map<String, Boolean> inFlight = new LinkedHashMap<>();

  /** Creates an empty outbox holding at most {@code capacity} messages. */
  public Outbox(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
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
    return inFlight.size();
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
    entries.put(entry.key(), entry);
  }

  /** Marks every queued message in flight and returns them, oldest first. */
  public List<Entry> takeQueued() {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (inFlight.putIfAbsent(e.key(), Boolean.TRUE) == null) {
        out.add(e);
      }
    }
    return out;
  }

  /** Returns the oldest queued (not in flight) message and marks it in flight, if any. */
  public Optional<Entry> takeOldest() {
    for (Entry e : entries.values()) {
      if (inFlight.putIfAbsent(e.key(), Boolean.TRUE) == null) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /**
   * Returns the oldest queued entry of this kind that may go now, and marks it in flight: one with
   * no older entry for the same message still in the outbox (an edit never overtakes its message's
   * send, nor a deletion an edit), if any.
   */
  public Optional<Entry> takeOldestReady(Kind kind) {
    java.util.Set<String> pending = new java.util.HashSet<>();
    for (Entry e : entries.values()) {
      if (e.kind() == kind && !inFlight.containsKey(e.key()) && !pending.contains(e.id())) {
        inFlight.put(e.key(), Boolean.TRUE);
        return Optional.of(e);
      }
      pending.add(e.id());
    }
    return Optional.empty();
  }

  /** Returns how many entries of this kind are queued (not in flight). */
  public int queuedCount(Kind kind) {
    int n = 0;
    for (Entry e : entries.values()) {
      if (e.kind() == kind && !inFlight.containsKey(e.key())) {
        n++;
      }
    }
    return n;
  }

  /** Removes an acknowledged message; returns it, or empty if it was not there. */
  public Optional<Entry> acknowledge(String id) {
    inFlight.remove(id);
    return Optional.ofNullable(entries.remove(id));
  }

  /** Removes a message the server rejected for good; returns it, or empty if it was not there. */
  public Optional<Entry> reject(String id) {
    return acknowledge(id);
  }

  /** Puts an in-flight message back in the queue (its send failed and will be retried). */
  public void requeue(String id) {
    inFlight.remove(id);
  }

  /** Returns whether the message is in the outbox and has a call outstanding. */
  public boolean isInFlight(String id) {
    return inFlight.containsKey(id);
  }

  /** Returns the queued (not in flight) message count. */
  public int queuedCount() {
    return entries.size() - inFlight.size();
  }
}
