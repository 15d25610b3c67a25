package dev.ddpkit.reconnect.sim;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * The herd's event queue on virtual time in whole milliseconds: a calendar of one bucket per
 * millisecond over a ring of about 17 minutes, each bucket an array of events in the order they
 * were scheduled. Events run in the order of their time and, at the same millisecond, in the
 * order they were scheduled: the order of {@link dev.ddpkit.reconnect.VirtualScheduler}, whose
 * ties go by sequence number. Scheduling and taking an event cost O(1) and allocate nothing (the
 * arrays of drained buckets are reused), and a bucket is read front to back, so taking the next
 * event is a read the processor has prefetched.
 *
 * <p>An event is a kind (0 to 3), a client (under 2^29) and a tag (the timer generation it belongs
 * to), packed in a long. An event further ahead than the ring waits in a small heap, ordered by
 * time and then by when it was scheduled, and moves into its bucket when the ring reaches it,
 * before anything else can be scheduled into that bucket, so the order holds for it too (no preset
 * curve waits that long: the longest wait is a capped hint, 10 minutes).
 */
final class EventCalendar {
  /** Clients are numbered below this. */
  static final int MAX_CLIENTS = 1 << 29;
  private static final int RING_BITS = 20; // 1,048,576 ms: 17.5 minutes
  private static final int RING = 1 << RING_BITS;
  private static final int MASK = RING - 1;
  private static final int KIND_SHIFT = 29;
  private static final int CLIENT_MASK = MAX_CLIENTS - 1;
  /** Drained bucket arrays kept for reuse: at most this many... */
  private static final int SPARE_ARRAYS = 1_024;
  /**
   * ... of at most this length (8 KB each, 8 MB in all): the buckets of a big wave (10,000 events
   * a millisecond just after a drop of 10 million) grow large once, and kept they would hold the
   * heap at its high-water mark for the rest of the run.
   */
  private static final int SPARE_LENGTH = 1_024;

  private final long[][] buckets = new long[RING][];
  private final int[] sizes = new int[RING];
  /** How far the bucket of {@code now} has been read. */
  private int read;
  private final ArrayDeque<long[]> spare = new ArrayDeque<>();
  /** Events in the ring's buckets, not yet taken. */
  private long inRing;
  /** Events beyond the ring: {time, sequence, event}, soonest first. */
  private final PriorityQueue<long[]> far =
      new PriorityQueue<>(
          (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
  private long farSequence;
  private long now;

  /** The event last taken by next(long). */
  private long fired;

  /** A calendar at time 0. */
  EventCalendar() {}

  /** The time in milliseconds: that of the event last taken, or the target last reached. */
  long now() {
    return now;
  }

  /** Events pending. */
  long pending() {
    return inRing + far.size();
  }

  /** Schedules an event at {@code at} ms (not before now). */
  void schedule(long at, int kind, int client, int tag) {
    if (at < now) {
      throw new IllegalArgumentException("event at " + at + " ms is before now, " + now + " ms");
    }
    if (kind < 0 || kind > 3 || client < 0 || client >= MAX_CLIENTS) {
      throw new IllegalArgumentException("kind 0-3 and client 0-2^29: " + kind + ", " + client);
    }
    long event = ((long) tag << 32) | ((long) kind << KIND_SHIFT) | client;
    if (at - now >= RING) {
      far.add(new long[] {at, farSequence++, event});
      return;
    }
    append((int) (at & MASK), event);
  }

  /**
   * Takes the next event due by {@code target} ms, moving the clock to it, and returns true (read
   * it with {@link #kind()}, {@link #client()} and {@link #tag()}); or, if none is due by then,
   * moves the clock to {@code target} and returns false.
   */
  boolean next(long target) {
    while (true) {
      int b = (int) (now & MASK);
      if (read < sizes[b]) {
        fired = buckets[b][read++];
        inRing--;
        return true;
      }
      if (now >= target) {
        return false;
      }
      release(b);
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
    return (int) fired >>> KIND_SHIFT;
  }

  /** The client of the event last taken. */
  int client() {
    return (int) fired & CLIENT_MASK;
  }

  /** The tag of the event last taken. */
  int tag() {
    return (int) (fired >>> 32);
  }

  /** The bucket {@code b} has been read to its end: empty it, keeping its array for another. */
  private void release(int b) {
    long[] array = buckets[b];
    if (array != null) {
      buckets[b] = null;
      sizes[b] = 0;
      if (spare.size() < SPARE_ARRAYS && array.length <= SPARE_LENGTH) {
        spare.push(array);
      }
    }
    read = 0;
  }

  /** Moves the far events the ring now reaches into their buckets, in their order. */
  private void admitFar() {
    while (!far.isEmpty() && far.peek()[0] - now < RING) {
      long[] e = far.poll();
      append((int) (e[0] & MASK), e[2]);
    }
  }

  private void append(int bucket, long event) {
    long[] array = buckets[bucket];
    int size = sizes[bucket];
    if (array == null) {
      array = spare.isEmpty() ? new long[16] : spare.pop();
      buckets[bucket] = array;
    } else if (size == array.length) {
      array = Arrays.copyOf(array, size * 2);
      buckets[bucket] = array;
    }
    array[size] = event;
    sizes[bucket] = size + 1;
    inRing++;
  }
}
