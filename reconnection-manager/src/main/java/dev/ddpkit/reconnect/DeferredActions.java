package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * What a {@link ReconnectionManager} does outside its lock (call the connector, the listeners, the
 * credentials refresher), queued under the lock in the order of the changes and run by one thread
 * at a time, never under the lock. With an {@linkplain ReconnectionManager.Builder#executor
 * executor}, each action is handed to it instead, in the same order, before the thread that made
 * the change returns.
 */
final class DeferredActions {
  private final Object lock;
  private final Scheduler scheduler;
  private final Executor executor; // null: run by the draining thread
  /** Held while handing actions to the executor, so that they reach it in the order queued. */
  private final Object handOff = new Object();
  // Guarded by lock.
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private boolean draining;

  /**
   * A queue of deferred actions guarded by {@code lock}, run on {@code executor} if not null;
   * {@code scheduler} takes over after an Error.
   */
  DeferredActions(Object lock, Scheduler scheduler, Executor executor) {
    this.lock = lock;
    this.scheduler = scheduler;
    this.executor = executor;
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
    if (executor != null) {
      handOff();
      return;
    }
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

  /**
   * Hands every queued action to the executor, in order. Unlike a drain it never returns while
   * actions of its caller's change are still queued: the thread waits for another one handing off
   * (which takes a moment: the executor only queues), so what the caller does next is queued on the
   * executor after them.
   */
  private void handOff() {
    synchronized (handOff) {
      while (true) {
        Runnable r;
        synchronized (lock) {
          r = queue.poll();
        }
        if (r == null) {
          return;
        }
        executor.execute(r);
      }
    }
  }
}
