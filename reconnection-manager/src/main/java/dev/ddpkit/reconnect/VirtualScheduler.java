package dev.ddpkit.reconnect;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * A scheduler on virtual time: nothing runs until the caller advances the clock, then tasks run on
 * the caller's thread in deadline order (ties in the order they were scheduled). No threads, no
 * sleeping: thousands of managers can run a simulated hour in milliseconds. Both of its clocks
 * follow the virtual time: {@link #nanoTime()} (also {@link #read()}, as a {@link Ticker}) is the
 * time elapsed, {@link #wallTime()} the wall-clock start plus it, so a client given this one
 * scheduler takes its delays, its idle times and its time stamps from it alone.
 *
 * <p>Thread-safe, but meant to be driven from one thread. A delay too large to represent puts the
 * task at the end of time ({@link Long#MAX_VALUE} nanoseconds) rather than overflowing.
 */
public final class VirtualScheduler implements Scheduler, Ticker {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private final TaskHeap heap = new TaskHeap();
  private final Instant wallStart;
  private long nowNanos;
  private long sequence;

  /** Creates a scheduler whose clock starts at zero, its wall clock at the epoch (1970). */
  public VirtualScheduler() {
    this(Instant.EPOCH);
  }

  /** Creates a scheduler whose clock starts at zero, its wall clock at {@code wallStart}. */
  public VirtualScheduler(Instant wallStart) {
    this.wallStart = Objects.requireNonNull(wallStart, "wallStart");
  }

  @Override
  public synchronized long read() {
    return nowNanos;
  }

  /** Returns the virtual time elapsed, in nanoseconds: the same as {@link #read()}. */
  @Override
  public synchronized long nanoTime() {
    return nowNanos;
  }

  /** Returns the wall-clock start plus the virtual time elapsed. */
  @Override
  public synchronized Instant wallTime() {
    return wallStart.plusNanos(nowNanos);
  }

  /** Returns the virtual time elapsed since creation. */
  public synchronized Duration now() {
    return Duration.ofNanos(nowNanos);
  }

  @Override
  public synchronized Cancellable schedule(Duration delay, Runnable task) {
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(task, "task");
    Task t = new Task(this, task);
    heap.add(plusSaturated(nowNanos, delay), sequence++, t);
    return t;
  }

  /**
   * {@code now + max(0, delay)}, clamped to {@link Long#MAX_VALUE} instead of overflowing. Called
   * twice per timer, so it compares field by field instead of building a {@code Duration}: the
   * clamp applies exactly when {@code delay >= Duration.ofNanos(Long.MAX_VALUE - now)}.
   */
  static long plusSaturated(long now, Duration delay) {
    if (delay.isNegative()) {
      return now;
    }
    long room = Long.MAX_VALUE - now;
    long roomSeconds = Math.floorDiv(room, NANOS_PER_SECOND);
    long roomNanos = Math.floorMod(room, NANOS_PER_SECOND);
    long seconds = delay.getSeconds();
    if (seconds > roomSeconds || (seconds == roomSeconds && delay.getNano() >= roomNanos)) {
      return Long.MAX_VALUE;
    }
    return now + delay.toNanos();
  }

  // A cancelled task leaves the heap at once (O(log n)): nothing piles up, and pendingTasks() is
  // the heap's size.
  private synchronized void cancel(Task t) {
    heap.remove(t);
  }

  /** Returns how many tasks are scheduled and not cancelled. */
  public synchronized int pendingTasks() {
    return heap.size();
  }

  /** Returns the deadline of the next task, or {@code null} if none is pending. */
  public synchronized Duration nextDeadline() {
    return heap.isEmpty() ? null : Duration.ofNanos(heap.firstDeadline());
  }

  /**
   * Advances the clock by {@code amount}, running every task that falls due on the way, including
   * tasks scheduled by those tasks.
   *
   * @return the number of tasks run
   */
  public int advance(Duration amount) {
    if (amount.isNegative()) {
      throw new IllegalArgumentException("amount must not be negative: " + amount);
    }
    long target;
    synchronized (this) {
      target = plusSaturated(nowNanos, amount);
    }
    return runUntil(target);
  }

  /** Runs every task that is due now, without moving the clock. */
  public int runDue() {
    return advance(Duration.ZERO);
  }

  /**
   * Runs tasks in order, moving the clock to each deadline, until none is left or {@code maxTasks}
   * have run (a guard against a task that always reschedules itself).
   *
   * @return the number of tasks run
   */
  public int runUntilIdle(int maxTasks) {
    return runTasks(Long.MAX_VALUE, /* moveClockToTarget= */ false, maxTasks);
  }

  private int runUntil(long target) {
    return runTasks(target, /* moveClockToTarget= */ true, Integer.MAX_VALUE);
  }

  /** Runs tasks due by {@code target} in order, at most {@code maxTasks} of them. */
  private int runTasks(long target, boolean moveClockToTarget, int maxTasks) {
    int ran = 0;
    while (ran < maxTasks) {
      Task next;
      synchronized (this) {
        if (heap.isEmpty() || heap.firstDeadline() > target) {
          if (moveClockToTarget) {
            nowNanos = Math.max(nowNanos, target);
          }
          return ran;
        }
        nowNanos = Math.max(nowNanos, heap.firstDeadline());
        next = heap.pollFirst();
      }
      next.runnable.run();
      ran++;
    }
    return ran;
  }

  /** A scheduled task; its own cancellation handle. */
  private static final class Task implements Cancellable {
    final VirtualScheduler owner;
    final Runnable runnable;
    /** The task's slot in the heap while it is pending, or -1 once it has run or been cancelled. */
    private int slot = -1;

    Task(VirtualScheduler owner, Runnable runnable) {
      this.owner = owner;
      this.runnable = runnable;
    }

    /** The heap put this task in {@code slot} (-1: it left the heap). */
    void placedIn(int slot) {
      this.slot = slot;
    }

    /** The task's slot in the heap, or -1 if it is not in it. */
    int slot() {
      return slot;
    }

    @Override
    public void cancel() {
      owner.cancel(this);
    }
  }

  /**
   * A 4-ary min-heap of tasks ordered by (deadline, sequence). The heap itself is primitive
   * arrays; each pending task sits in a slot that does not move while it waits, and the heap
   * entries name the slot. With 100,000 timers pending, sifting then reads and writes only
   * primitives: no pointer chased per comparison, and no reference stored per move (each such
   * store into an old array is a card the garbage collector must rescan, which dominated a large
   * simulation's CPU time). A cancel removes the entry in O(log n).
   */
  private static final class TaskHeap {
    private long[] deadlines = new long[64];
    private long[] seqs = new long[64];
    private int[] slotAt = new int[64];
    private Task[] slots = new Task[64];
    private int[] indexOfSlot = new int[64];
    private int[] freeSlots = new int[64];
    private int freeCount;
    private int size;

    int size() {
      return size;
    }

    boolean isEmpty() {
      return size == 0;
    }

    long firstDeadline() {
      return deadlines[0];
    }

    void add(long deadline, long seq, Task t) {
      if (size == deadlines.length) {
        grow();
      }
      // Slots in use == size, so a full heap has no free slot and the next is slots[size].
      int slot = freeCount > 0 ? freeSlots[--freeCount] : size;
      slots[slot] = t;
      t.placedIn(slot);
      siftUp(size++, deadline, seq, slot);
    }

    private void grow() {
      int n = deadlines.length * 2;
      deadlines = Arrays.copyOf(deadlines, n);
      seqs = Arrays.copyOf(seqs, n);
      slotAt = Arrays.copyOf(slotAt, n);
      slots = Arrays.copyOf(slots, n);
      indexOfSlot = Arrays.copyOf(indexOfSlot, n);
      freeSlots = Arrays.copyOf(freeSlots, n);
    }

    Task pollFirst() {
      Task first = slots[slotAt[0]];
      removeAt(0);
      return first;
    }

    void remove(Task t) {
      if (t.slot() >= 0) {
        removeAt(indexOfSlot[t.slot()]);
      }
    }

    private void removeAt(int i) {
      int slot = slotAt[i];
      slots[slot].placedIn(-1);
      slots[slot] = null;
      freeSlots[freeCount++] = slot;
      int last = --size;
      if (i == last) {
        return;
      }
      long d = deadlines[last];
      long s = seqs[last];
      int movedSlot = slotAt[last];
      siftDown(i, d, s, movedSlot);
      if (slotAt[i] == movedSlot) {
        siftUp(i, d, s, movedSlot);
      }
    }

    private static boolean less(long d1, long s1, long d2, long s2) {
      return d1 < d2 || (d1 == d2 && s1 < s2);
    }

    private void place(int i, long d, long s, int slot) {
      deadlines[i] = d;
      seqs[i] = s;
      slotAt[i] = slot;
      indexOfSlot[slot] = i;
    }

    private void siftUp(int i, long d, long s, int slot) {
      while (i > 0) {
        int parent = (i - 1) >>> 2;
        if (!less(d, s, deadlines[parent], seqs[parent])) {
          break;
        }
        place(i, deadlines[parent], seqs[parent], slotAt[parent]);
        i = parent;
      }
      place(i, d, s, slot);
    }

    private void siftDown(int i, long d, long s, int slot) {
      while (true) {
        int first = 4 * i + 1;
        if (first >= size) {
          break;
        }
        int best = first;
        int end = Math.min(first + 4, size);
        for (int c = first + 1; c < end; c++) {
          if (less(deadlines[c], seqs[c], deadlines[best], seqs[best])) {
            best = c;
          }
        }
        if (!less(deadlines[best], seqs[best], d, s)) {
          break;
        }
        place(i, deadlines[best], seqs[best], slotAt[best]);
        i = best;
      }
      place(i, d, s, slot);
    }
  }
}
