package dev.ddpkit.reconnect;

import java.time.Duration;

/**
 * Runs a task after a delay. Injected into {@link ReconnectionManager} so that tests and the herd
 * simulation can use a {@link VirtualScheduler} while production code uses {@link
 * #systemScheduler()}.
 */
@FunctionalInterface
public interface Scheduler {
  /**
   * Schedules {@code task} to run once after {@code delay}. A zero or negative delay means "as soon
   * as possible", but never on the calling thread's stack.
   */
  Cancellable schedule(Duration delay, Runnable task);

  /**
   * Returns the shared real-time scheduler: one named daemon thread ({@code ddpkit-reconnect}) for
   * every manager in the JVM, so that a thousand managers cost one thread, not a thousand.
   */
  static Scheduler systemScheduler() {
    return SystemScheduler.INSTANCE;
  }
}
