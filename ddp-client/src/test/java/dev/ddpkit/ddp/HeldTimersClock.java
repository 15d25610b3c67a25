package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import java.time.Instant;

/**
 * The client's view of a {@link VirtualScheduler}, whose clock can jump ahead while no timer
 * fires: what an app sees when the OS held its timers in the background. Timers still run when
 * the underlying scheduler advances; until then they are simply late. Both of its clocks (the
 * monotonic one and the wall clock) jump together.
 */
final class HeldTimersClock implements Scheduler, Ticker {
  private final VirtualScheduler time;
  private volatile long heldNanos;

  HeldTimersClock(VirtualScheduler time) {
    this.time = time;
  }

  /** Moves this clock forward by {@code d} and runs nothing. */
  void holdTimersFor(Duration d) {
    heldNanos += d.toNanos();
  }

  @Override
  public long read() {
    return time.read() + heldNanos;
  }

  @Override
  public long nanoTime() {
    return read();
  }

  @Override
  public Instant wallTime() {
    return time.wallTime().plusNanos(heldNanos);
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    return time.schedule(delay, task);
  }
}
