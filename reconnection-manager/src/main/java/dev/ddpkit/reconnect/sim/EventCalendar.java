package dev.ddpkit.reconnect.sim;

import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * The herd's event queue on virtual time in whole milliseconds: a calendar of one bucket per
 * millisecond over a ring of about 17 minutes, each bucket a FIFO of events linked through
 * primitive arrays. Events run in the order of their time and, at the same millisecond, in the
 * order they were scheduled: the order of {@link dev.ddpkit.reconnect.VirtualScheduler}, whose
 * ties go by sequence number. Scheduling and taking an event cost O(1) and allocate nothing.
 *
 * <p>An event is a kind, a client and a tag (the timer generation it belongs to). An event further
 * ahead than the ring waits in a small heap, ordered by time and then by when it was scheduled,
 * and moves into its bucket when the ring reaches it, before anything else can be scheduled into
 * that bucket, so the order holds for it too (no preset curve waits that long: the longest wait is
 * a capped hint, 10 minutes).
 */
final class EventCalendar {
  private static final int RING_BITS = 20; // 1,048,576 ms: 17.5 minutes
  private static final int RING = 1 << RING_BITS;
  private static final int MASK = RING - 1;
  private static final int NONE = -1;

  private final int[] bucketHead = new int[RING];
  private final int[] bucketTail = new int[RING];
  /**
   * The event nodes, a pool: node k is {@code nodes[4k .. 4k+3]}, its next node (in its bucket or
   * the free list), kind, client and tag side by side, so that taking an event touches one cache
   * line.
   */
  private int[] nodes;
  private int free = NONE;
  private int used;
  /** Events in the ring's buckets. */
  private int inRing;
  /** Events beyond the ring: {time, sequence, kind, client, tag}, soonest first. */
  private final PriorityQueue<long[]> far =
      new PriorityQueue<>(
          (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
  private long farSequence;
  private long now;

  // The event last taken by next(long).
  private int firedKind;
  private int firedClient;
  private int firedTag;

  /** A calendar at time 0 with room for {@code expected} pending events before it grows. */
  EventCalendar(int expected) {
    Arrays.fill(bucketHead, NONE);
    nodes = new int[4 * Math.max(16, expected)];
  }

  /** The time in milliseconds: that of the event last taken, or the target last reached. */
  long now() {
    return now;
  }

  /** Events pending. */
  int pending() {
    return inRing + far.size();
  }

  /** Schedules an event at {@code at} ms (not before now). */
  void schedule(long at, int kind, int client, int tag) {
    if (at < now) {
      throw new IllegalArgumentException("event at " + at + " ms is before now, " + now + " ms");
    }
    if (at - now >= RING) {
      far.add(new long[] {at, farSequence++, kind, client, tag});
      return;
    }
    append((int) (at & MASK), kind, client, tag);
  }

  /**
   * Takes the next event due by {@code target} ms, moving the clock to it, and returns true (read
   * it with {@link #kind()}, {@link #client()} and {@link #tag()}); or, if none is due by then,
   * moves the clock to {@code target} and returns false.
   */
  boolean next(long target) {
    while (true) {
      int b = (int) (now & MASK);
      int node = bucketHead[b];
      if (node != NONE) {
        int at = 4 * node;
        bucketHead[b] = nodes[at];
        inRing--;
        firedKind = nodes[at + 1];
        firedClient = nodes[at + 2];
        firedTag = nodes[at + 3];
        nodes[at] = free;
        free = node;
        return true;
      }
      if (now >= target) {
        return false;
      }
      if (inRing > 0) {
        now++;
      } else {
        // Nothing in the ring: jump to the first far event, or to the target.
        now = far.isEmpty() ? target : Math.min(target, Math.max(now + 1, far.peek()[0] - MASK));
      }
      admitFar();
    }
  }

  /** The kind of the event last taken. */
  int kind() {
    return firedKind;
  }

  /** The client of the event last taken. */
  int client() {
    return firedClient;
  }

  /** The tag of the event last taken. */
  int tag() {
    return firedTag;
  }

  /** Moves the far events the ring now reaches into their buckets, in their order. */
  private void admitFar() {
    while (!far.isEmpty() && far.peek()[0] - now < RING) {
      long[] e = far.poll();
      append((int) (e[0] & MASK), (int) e[2], (int) e[3], (int) e[4]);
    }
  }

  private void append(int bucket, int kind, int client, int tag) {
    int node = free;
    if (node != NONE) {
      free = nodes[4 * node];
    } else {
      if (4 * used == nodes.length) {
        nodes = Arrays.copyOf(nodes, nodes.length * 2);
      }
      node = used++;
    }
    int at = 4 * node;
    nodes[at] = NONE;
    nodes[at + 1] = kind;
    nodes[at + 2] = client;
    nodes[at + 3] = tag;
    if (bucketHead[bucket] == NONE) {
      bucketHead[bucket] = node;
    } else {
      nodes[4 * bucketTail[bucket]] = node;
    }
    bucketTail[bucket] = node;
    inRing++;
  }
}
