package dev.ddpkit.reconnect;

import java.time.Duration;
import java.time.Instant;

/**
 * The one source of time of a manager or a client: it runs a task after a delay, and says what
 * time it is, on the monotonic clock delays are measured on ({@link #nanoTime()}) and on the wall
 * clock time stamps are taken from ({@link #wallTime()}). Injected into {@link
 * ReconnectionManager} (and the DDP and chat clients) so that tests and the herd simulation can
 * use a {@link VirtualScheduler}, which drives all three, while production code uses {@link
 * #systemScheduler()}.
 *
 * <p>A scheduler written as a lambda reads the system's clocks; one on time of its own overrides
 * both readings, as {@link VirtualScheduler} does.
 */
@FunctionalInterface
public interface Scheduler {
  /**
   * Schedules {@code task} to run once after {@code delay}. A zero or negative delay means "as soon
   * as possible", but never on the calling thread's stack.
   */
  Cancellable schedule(Duration delay, Runnable task);

  /**
   * Returns now on the monotonic clock the delays of {@link #schedule} are measured on, in
   * nanoseconds from an arbitrary origin (default {@link System#nanoTime()}).
   */
  default long nanoTime() {
    return System.nanoTime();
  }

  /** Returns now on the wall clock, for time stamps and retry times (default the system's). */
  default Instant wallTime() {
    return Instant.now();
  }

  /**
   * Returns the shared real-time scheduler: one named daemon thread ({@code ddpkit-reconnect}) for
   * every manager in the JVM, so that a thousand managers cost one thread, not a thousand.
   */
  static Scheduler systemScheduler() {
    return SystemScheduler.INSTANCE;
  }
}
