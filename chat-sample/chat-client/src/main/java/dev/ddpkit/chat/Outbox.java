package dev.ddpkit.chat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The messages written but not yet acknowledged, bounded. Not thread-safe; the {@link ChatClient}
 * touches it on its loop only.
 *
 * <p>Each entry is either queued (waiting for a logged-in connection) or in flight (a {@code
 * sendMessage} call is outstanding). A failed send goes back to queued and is sent again with the
 * same id, which the server treats as the same message; only an acknowledgement removes it.
 */
public final class Outbox {

  /** One message waiting for its acknowledgement. */
  public record Entry(String id, String rid, String text) {
    /** Validates the components. */
    public Entry {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(rid, "rid");
      Objects.requireNonNull(text, "text");
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
    if (entries.containsKey(entry.id())) {
      throw new IllegalArgumentException("duplicate message id: " + entry.id());
    }
    if (isFull()) {
      throw new OutboxFullException(capacity);
    }
    entries.put(entry.id(), entry);
  }

  /** Marks every queued message in flight and returns them, oldest first. */
  public List<Entry> takeQueued() {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (inFlight.putIfAbsent(e.id(), Boolean.TRUE) == null) {
        out.add(e);
      }
    }
    return out;
  }

  /** Returns the oldest queued (not in flight) message and marks it in flight, if any. */
  public Optional<Entry> takeOldest() {
    for (Entry e : entries.values()) {
      if (inFlight.putIfAbsent(e.id(), Boolean.TRUE) == null) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
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
