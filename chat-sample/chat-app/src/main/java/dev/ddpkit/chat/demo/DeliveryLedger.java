package dev.ddpkit.chat.demo;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's accounting: which messages were written (and to which room), which were
 * acknowledged, and how many times each member saw each one. Thread-safe: clients record from
 * their own threads.
 *
 * <p>Compact, so a long run measures the clients and not its own bookkeeping: a written message
 * costs one entry holding a counter per member of its room (an hour at 1,000 clients sees some
 * 900,000 deliveries; one map entry per delivery grew the heap by hundreds of MiB). A delivery
 * that comes before its message is recorded as written (the writer's thread has not got there
 * yet) waits in a small side map and is settled by {@link #report()}.
 */
public final class DeliveryLedger {
  /** A room's members: the client indexes, and each client's place among them (-1: not one). */
  private record Members(int[] clients, int[] placeOf) {
    static Members of(List<Integer> clients, int maxClient) {
      int[] place = new int[maxClient + 1];
      Arrays.fill(place, -1);
      int[] list = new int[clients.size()];
      for (int i = 0; i < list.length; i++) {
        list[i] = clients.get(i);
        if (list[i] < 0) {
          throw new IllegalArgumentException("negative client index: " + list[i]);
        }
        if (place[list[i]] >= 0) {
          throw new IllegalArgumentException("client " + list[i] + " listed twice in a room");
        }
        place[list[i]] = i;
      }
      return new Members(list, place);
    }

    int place(int client) {
      return client >= 0 && client < placeOf.length ? placeOf[client] : -1;
    }
  }

  /** A written message: its room's members and how many times each saw it. */
  private record Entry(Members members, AtomicIntegerArray seen) {}

  private final Map<String, Members> membersByRoom;
  private final Map<String, Entry> messages = new ConcurrentHashMap<>();
  private final Map<String, Boolean> acknowledged = new ConcurrentHashMap<>();
  /** Deliveries of ids not (yet) written, keyed by client index + "/" + id. */
  private final Map<String, AtomicInteger> early = new ConcurrentHashMap<>();
  private final LongAdder strangers = new LongAdder();
  private final LongAdder observed = new LongAdder();
  private final LongAdder expected = new LongAdder();
  private final LongAdder refused = new LongAdder();
  /** Messages deleted by their writers: a member who never saw one misses nothing. */
  private final Map<String, Boolean> deleted = new ConcurrentHashMap<>();

  /** Creates a ledger for rooms whose members are the given client indexes. */
  public DeliveryLedger(Map<String, List<Integer>> membersByRoom) {
    int maxClient =
        membersByRoom.values().stream().flatMap(List::stream).mapToInt(Integer::intValue)
            .max().orElse(0);
    Map<String, Members> copy = new HashMap<>();
    membersByRoom.forEach((rid, members) -> copy.put(rid, Members.of(members, maxClient)));
    this.membersByRoom = Map.copyOf(copy);
  }

  /** Records a message written by a client. */
  public void written(String id, String rid) {
    Members members = membersByRoom.get(rid);
    if (members == null) {
      throw new IllegalArgumentException("unknown room: " + rid);
    }
    Entry entry = new Entry(members, new AtomicIntegerArray(members.clients().length));
    if (messages.putIfAbsent(Objects.requireNonNull(id, "id"), entry) != null) {
      throw new IllegalArgumentException("message written twice: " + id);
    }
    expected.add(members.clients().length);
  }

  /** Records a message the client could not even queue (outbox full). */
  public void refused() {
    refused.increment();
  }

  /** Records that a message's writer deleted it (the deletion was acknowledged). */
  public void deleted(String id) {
    deleted.put(id, Boolean.TRUE);
  }

  /** The first (client, message) pair never seen (not deleted), as "client id", or empty. */
  public java.util.Optional<String> firstMissing() {
    for (Map.Entry<String, Entry> e : messages.entrySet()) {
      if (deleted.containsKey(e.getKey())) {
        continue;
      }
      AtomicIntegerArray seen = e.getValue().seen();
      for (int place = 0; place < seen.length(); place++) {
        int client = e.getValue().members().clients()[place];
        if (seen.get(place) == 0 && !early.containsKey(client + "/" + e.getKey())) {
          return java.util.Optional.of(client + " " + e.getKey());
        }
      }
    }
    return java.util.Optional.empty();
  }

  /** Returns the number of messages deleted by their writers. */
  public int deletedCount() {
    return deleted.size();
  }

  /** Records the server's acknowledgement of a message. */
  public void acknowledged(String id) {
    acknowledged.put(id, Boolean.TRUE);
  }

  /** Records that client {@code client} was shown message {@code id}. */
  public void delivered(int client, String id) {
    observed.increment();
    Entry entry = messages.get(id);
    if (entry == null) {
      early.computeIfAbsent(client + "/" + id, k -> new AtomicInteger()).incrementAndGet();
      return;
    }
    int place = entry.members().place(client);
    if (place < 0) {
      strangers.increment();
    } else {
      entry.seen().incrementAndGet(place);
    }
  }

  /** Returns the number of messages written. */
  public int writtenCount() {
    return messages.size();
  }

  /** Returns the number of written messages acknowledged. */
  public int acknowledgedCount() {
    return (int) acknowledged.keySet().stream().filter(messages::containsKey).count();
  }

  /**
   * Returns the deliveries expected so far: each written message once to each member of its room,
   * but for a deleted message only the deliveries that happened before it was deleted.
   */
  public long expectedDeliveries() {
    if (deleted.isEmpty()) {
      return expected.sum();
    }
    long n = expected.sum();
    for (String id : deleted.keySet()) {
      Entry e = messages.get(id);
      if (e != null) {
        for (int place = 0; place < e.seen().length(); place++) {
          if (e.seen().get(place) == 0) {
            n--;
          }
        }
      }
    }
    return n;
  }

  /** Returns the number of deliveries observed, duplicates included. */
  public long observedDeliveries() {
    return observed.sum();
  }

  /**
   * Computes the final accounting: exact once nothing more is recorded; during a run a delivery
   * recorded meanwhile may be counted as missing.
   */
  public Report report() {
    long unexpected = strangers.sum();
    Map<String, int[]> late = new HashMap<>(); // early deliveries of messages written since
    for (Map.Entry<String, AtomicInteger> e : early.entrySet()) {
      String key = e.getKey();
      int slash = key.indexOf('/');
      int client = Integer.parseInt(key.substring(0, slash));
      String id = key.substring(slash + 1);
      Entry entry = messages.get(id);
      int place = entry == null ? -1 : entry.members().place(client);
      if (place < 0) {
        unexpected += e.getValue().get();
      } else {
        late.computeIfAbsent(id, k -> new int[entry.seen().length()])[place] +=
            e.getValue().get();
      }
    }
    long expectedNow = 0;
    long missing = 0;
    long exactlyOnce = 0;
    long duplicates = 0;
    for (Map.Entry<String, Entry> e : messages.entrySet()) {
      AtomicIntegerArray seen = e.getValue().seen();
      int[] before = late.get(e.getKey());
      for (int place = 0; place < seen.length(); place++) {
        expectedNow++;
        int n = seen.get(place) + (before == null ? 0 : before[place]);
        if (n == 0 && deleted.containsKey(e.getKey())) {
          expectedNow--; // deleted before this member saw it: nothing to see
        } else if (n == 0) {
          missing++;
        } else {
          exactlyOnce += n == 1 ? 1 : 0;
          duplicates += n - 1;
        }
      }
    }
    return new Report(
        messages.size(),
        acknowledgedCount(),
        refused.intValue(),
        expectedNow,
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
