package dev.ddpkit.chat.demo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's accounting: which messages were written (and to which room), which were
 * acknowledged, and how many times each member saw each one. Thread-safe: clients record from
 * their own threads.
 */
public final class DeliveryLedger {
  private final Map<String, List<Integer>> membersByRoom;
  private final Map<String, String> roomOfMessage = new ConcurrentHashMap<>();
  private final Map<String, Boolean> acknowledged = new ConcurrentHashMap<>();
  // key: client index + "/" + message id
  private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
  private final LongAdder observed = new LongAdder();
  private final LongAdder refused = new LongAdder();

  /** Creates a ledger for rooms whose members are the given client indexes. */
  public DeliveryLedger(Map<String, List<Integer>> membersByRoom) {
    Map<String, List<Integer>> copy = new HashMap<>();
    membersByRoom.forEach((rid, members) -> copy.put(rid, List.copyOf(members)));
    this.membersByRoom = Map.copyOf(copy);
  }

  /** Records a message written by a client. */
  public void written(String id, String rid) {
    if (!membersByRoom.containsKey(rid)) {
      throw new IllegalArgumentException("unknown room: " + rid);
    }
    if (roomOfMessage.putIfAbsent(Objects.requireNonNull(id, "id"), rid) != null) {
      throw new IllegalArgumentException("message written twice: " + id);
    }
  }

  /** Records a message the client could not even queue (outbox full). */
  public void refused() {
    refused.increment();
  }

  /** Records the server's acknowledgement of a message. */
  public void acknowledged(String id) {
    acknowledged.put(id, Boolean.TRUE);
  }

  /** Records that client {@code client} was shown message {@code id}. */
  public void delivered(int client, String id) {
    deliveries.computeIfAbsent(client + "/" + id, k -> new AtomicInteger()).incrementAndGet();
    observed.increment();
  }

  /** Returns the number of messages written. */
  public int writtenCount() {
    return roomOfMessage.size();
  }

  /** Returns the number of written messages acknowledged. */
  public int acknowledgedCount() {
    return (int) acknowledged.keySet().stream().filter(roomOfMessage::containsKey).count();
  }

  /** Returns the deliveries expected so far: each written message once to each member of its room. */
  public long expectedDeliveries() {
    long sum = 0;
    for (String rid : roomOfMessage.values()) {
      sum += membersByRoom.get(rid).size();
    }
    return sum;
  }

  /** Returns the number of deliveries observed, duplicates included. */
  public long observedDeliveries() {
    return observed.sum();
  }

  /** Computes the final accounting. */
  public Report report() {
    long expected = 0;
    long missing = 0;
    long exactlyOnce = 0;
    for (Map.Entry<String, String> e : roomOfMessage.entrySet()) {
      for (int client : membersByRoom.get(e.getValue())) {
        expected++;
        AtomicInteger n = deliveries.get(client + "/" + e.getKey());
        if (n == null) {
          missing++;
        } else if (n.get() == 1) {
          exactlyOnce++;
        }
      }
    }
    long duplicates = 0;
    long unexpected = 0;
    for (Map.Entry<String, AtomicInteger> e : deliveries.entrySet()) {
      String key = e.getKey();
      int slash = key.indexOf('/');
      int client = Integer.parseInt(key.substring(0, slash));
      String rid = roomOfMessage.get(key.substring(slash + 1));
      if (rid == null || !membersByRoom.get(rid).contains(client)) {
        unexpected += e.getValue().get();
      } else {
        duplicates += e.getValue().get() - 1;
      }
    }
    return new Report(
        roomOfMessage.size(),
        acknowledgedCount(),
        refused.intValue(),
        expected,
        observed.sum(),
        exactlyOnce,
        duplicates,
        missing,
        unexpected);
  }

  /**
   * The final accounting.
   *
   * @param written messages written (queued in an outbox)
   * @param acknowledged of those, acknowledged by the server
   * @param refused messages not written because an outbox was full
   * @param expected deliveries expected: each message to each member of its room, once
   * @param observed deliveries seen by the clients, duplicates included
   * @param exactlyOnce (member, message) pairs seen exactly once
   * @param duplicates deliveries beyond the first of a (member, message) pair
   * @param missing (member, message) pairs never seen
   * @param unexpected deliveries of unknown messages or to non-members
   */
  public record Report(
      int written,
      int acknowledged,
      int refused,
      long expected,
      long observed,
      long exactlyOnce,
      long duplicates,
      long missing,
      long unexpected) {

    /** Returns whether nothing was lost, duplicated or left unacknowledged. */
    public boolean perfect() {
      return acknowledged == written
          && duplicates == 0
          && missing == 0
          && unexpected == 0
          && exactlyOnce == expected;
    }
  }
}
