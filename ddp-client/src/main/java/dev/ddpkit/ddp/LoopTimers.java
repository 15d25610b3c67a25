package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * The user's timers of one client ({@link DdpClient#schedule}): each fires on the client's event
 * loop, and all of them are cancelled together when the client closes. A timer is live until it
 * has run or been cancelled; whether it may still run is decided on the loop, so a timer cancelled
 * from a loop task never runs afterwards. Whether its owner is closed is the owner's fact, read
 * here, not stored again: the client's loop, or a {@link Connection}.
 */
final class LoopTimers {
  private final Scheduler scheduler;
  private final Executor loop;
  private final Set<Timer> live = ConcurrentHashMap.newKeySet();
  private final BooleanSupplier closed;

  /** Timers on {@code loop}, none scheduled once {@code closed} says the owner closed. */
  LoopTimers(Scheduler scheduler, Executor loop, BooleanSupplier closed) {
    this.scheduler = scheduler;
    this.loop = loop;
    this.closed = closed;
  }

  /** Schedules {@code task} on the loop after {@code delay}; once the owner closed, a no-op. */
  Cancellable schedule(Duration delay, Runnable task) {
    Timer t = new Timer(task);
    live.add(t);
    if (closed.getAsBoolean()) {
      live.remove(t);
      return () -> {};
    }
    t.arm(scheduler.schedule(delay, () -> loop.execute(t::fire)));
    if (closed.getAsBoolean()) {
      t.cancel(); // raced with cancelAll(): it may not have seen this timer
    }
    return t;
  }

  /** Returns how many timers have neither run nor been cancelled. */
  int live() {
    return live.size();
  }

  /** Cancels every live timer; called once the owner is closed (later calls schedule nothing). */
  void cancelAll() {
    for (Timer t : new ArrayList<>(live)) {
      t.cancel();
    }
  }

  private final class Timer implements Cancellable {
    private final Runnable task;
    private volatile Cancellable underlying;

    Timer(Runnable task) {
      this.task = task;
    }

    /** The scheduler's timer behind this one, to cancel with it. */
    void arm(Cancellable underlying) {
      this.underlying = underlying;
    }

    /** On the loop: runs the task unless it was cancelled meanwhile. */
    void fire() {
      if (live.remove(this)) {
        task.run();
      }
    }

    @Override
    public void cancel() {
      if (live.remove(this)) {
        Cancellable u = underlying;
        if (u != null) {
          u.cancel();
        }
      }
    }
  }
}
