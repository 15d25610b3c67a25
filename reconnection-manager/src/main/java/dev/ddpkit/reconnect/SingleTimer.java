package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.function.LongConsumer;

/**
 * The one pending timer of a {@link ReconnectionManager}, never two: scheduling one cancels the
 * last. A timer that fired just as it was cancelled must not act; each is handed its generation,
 * which {@link #isCurrent(long)} checks. Not thread-safe: used under the manager's lock.
 */
final class SingleTimer {
  private final Scheduler scheduler;
  private Cancellable timer;
  private long generation;

  SingleTimer(Scheduler scheduler) {
    this.scheduler = scheduler;
  }

  /** Cancels the pending timer, if any, and schedules {@code task} (given its generation). */
  void schedule(Duration after, LongConsumer task) {
    cancel();
    long gen = generation;
    timer = scheduler.schedule(after, () -> task.accept(gen));
  }

  /** Cancels the pending timer; one already firing finds itself no longer current. */
  void cancel() {
    generation++;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  /** Whether the timer of generation {@code gen} is still the pending one. */
  boolean isCurrent(long gen) {
    return gen == generation;
  }

  /** The pending timer fired (and was current): nothing is pending any more. */
  void fired() {
    timer = null;
  }
}
