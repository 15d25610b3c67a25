package dev.ddpkit.chat;

import dev.ddpkit.reconnect.Scheduler;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The chat's wall clock read from the client's one time source, {@link Scheduler#wallTime()}: on a
 * {@link dev.ddpkit.reconnect.VirtualScheduler} it follows the virtual time. UTC; a {@link Clock}
 * so that the parts that compute with wall times (the pacer, the catch-up) take a standard type.
 */
final class SchedulerClock extends Clock {
  private final Scheduler scheduler;
  private final ZoneId zone;

  SchedulerClock(Scheduler scheduler) {
    this(scheduler, ZoneOffset.UTC);
  }

  private SchedulerClock(Scheduler scheduler, ZoneId zone) {
    this.scheduler = scheduler;
    this.zone = zone;
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return new SchedulerClock(scheduler, zone);
  }

  @Override
  public Instant instant() {
    return scheduler.wallTime();
  }
}
