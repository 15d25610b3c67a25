package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * What a {@link ReconnectionManager} does outside its lock (call the connector, the listeners, the
 * credentials refresher), queued under the lock in the order of the changes and run by one thread
 * at a time, never under the lock.
 */
final class DeferredActions {
  private final Object lock;
  private final Scheduler scheduler;
  // Guarded by lock.
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private boolean draining;

  /** A queue of deferred actions guarded by {@code lock}; {@code scheduler} takes over after an Error. */
  DeferredActions(Object lock, Scheduler scheduler) {
    this.lock = lock;
    this.scheduler = scheduler;
  }

  /** Queues an action; the caller holds the lock. */
  void add(Runnable action) {
    queue.add(action);
  }

  /**
   * Runs the queued actions in order; returns at once if another thread is running them (its run
   * takes what was queued here too). The caller must not hold the lock.
   */
  void drain() {
    synchronized (lock) {
      if (draining) {
        return;
      }
      draining = true;
    }
    boolean done = false;
    try {
      while (true) {
        Runnable r;
        synchronized (lock) {
          r = queue.poll();
          if (r == null) {
            draining = false;
            done = true;
            return;
          }
        }
        r.run();
      }
    } finally {
      if (!done) {
        // An Error escaped a listener or the connector. It goes on to our caller, but what was
        // queued behind it (a dial, a later status) must not wait for some future report to be
        // drained: hand it to the scheduler, off this stack.
        boolean more;
        synchronized (lock) {
          draining = false;
          more = !queue.isEmpty();
        }
        if (more) {
          scheduler.schedule(Duration.ZERO, this::drain);
        }
      }
    }
  }
}
