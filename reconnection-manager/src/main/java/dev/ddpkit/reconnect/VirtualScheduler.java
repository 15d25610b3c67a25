package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.Objects;
import java.util.PriorityQueue;

/**
 * A scheduler and ticker on virtual time: nothing runs until the caller advances the clock, then
 * tasks run on the caller's thread in deadline order (ties in the order they were scheduled). No
 * threads, no sleeping: thousands of managers can run a simulated hour in milliseconds.
 *
 * <p>Thread-safe, but meant to be driven from one thread. A delay too large to represent puts the
 * task at the end of time ({@link Long#MAX_VALUE} nanoseconds) rather than overflowing.
 */
public final class VirtualScheduler implements Scheduler, Ticker {
  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private long nowNanos;
  private long sequence;
  private int live;

  /** Creates a scheduler whose clock starts at zero. */
  public VirtualScheduler() {}

  @Override
  public synchronized long read() {
    return nowNanos;
  }

  /** Returns the virtual time elapsed since creation. */
  public synchronized Duration now() {
    return Duration.ofNanos(nowNanos);
  }

  @Override
  public synchronized Cancellable schedule(Duration delay, Runnable task) {
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(task, "task");
    Task t = new Task(plusSaturated(nowNanos, delay), sequence++, task);
    queue.add(t);
    live++;
    return () -> cancel(t);
  }

  /** {@code now + max(0, delay)}, clamped to {@link Long#MAX_VALUE} instead of overflowing. */
  static long plusSaturated(long now, Duration delay) {
    if (delay.isNegative()) {
      return now;
    }
    if (delay.compareTo(Duration.ofNanos(Long.MAX_VALUE - now)) >= 0) {
      return Long.MAX_VALUE;
    }
    return now + delay.toNanos();
  }

  // Cancelled tasks stay in the heap and are skipped when they surface: removing them eagerly is
  // O(n) per cancel, which a 100,000-client simulation cannot afford.
  private synchronized void cancel(Task t) {
    if (!t.cancelled && !t.started) {
      t.cancelled = true;
      live--;
    }
  }

  /** Drops cancelled tasks from the head of the heap; returns the first live one, not removed. */
  private Task peekLive() {
    Task head = queue.peek();
    while (head != null && head.cancelled) {
      queue.poll();
      head = queue.peek();
    }
    return head;
  }

  private Task pollLive() {
    Task head = peekLive();
    if (head != null) {
      queue.poll();
      head.started = true;
      live--;
    }
    return head;
  }

  /** Returns how many tasks are scheduled and not cancelled. */
  public synchronized int pendingTasks() {
    return live;
  }

  /** Returns the deadline of the next task, or {@code null} if none is pending. */
  public synchronized Duration nextDeadline() {
    Task t = peekLive();
    return t == null ? null : Duration.ofNanos(t.deadline);
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
    int ran = 0;
    while (ran < maxTasks) {
      Task next;
      synchronized (this) {
        next = pollLive();
        if (next == null) {
          return ran;
        }
        nowNanos = Math.max(nowNanos, next.deadline);
      }
      next.run();
      ran++;
    }
    return ran;
  }

  private int runUntil(long target) {
    int ran = 0;
    while (true) {
      Task next;
      synchronized (this) {
        Task head = peekLive();
        if (head == null || head.deadline > target) {
          nowNanos = Math.max(nowNanos, target);
          return ran;
        }
        next = pollLive();
        nowNanos = Math.max(nowNanos, next.deadline);
      }
      next.run();
      ran++;
    }
  }

  private static final class Task implements Comparable<Task> {
    final long deadline;
    final long seq;
    final Runnable runnable;
    boolean cancelled;
    boolean started;

    Task(long deadline, long seq, Runnable runnable) {
      this.deadline = deadline;
      this.seq = seq;
      this.runnable = runnable;
    }

    void run() {
      runnable.run();
    }

    @Override
    public int compareTo(Task o) {
      int c = Long.compare(deadline, o.deadline);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }
}
