package dev.ddpkit.chat.server;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wall clock a test moves by hand: either stopped at a given instant, or running with the
 * system clock, and in both cases pushed forward by {@link #advance(Duration)}.
 */
public final class MutableClock extends Clock {
  private final Clock base;
  private final AtomicLong offsetMillis = new AtomicLong();

  private MutableClock(Clock base) {
    this.base = base;
  }

  /** A clock that stands still at {@code startMillis} until advanced. */
  public static MutableClock stoppedAt(long startMillis) {
    return new MutableClock(Clock.fixed(Instant.ofEpochMilli(startMillis), ZoneOffset.UTC));
  }

  /** A clock that runs with the system clock, ahead of it by what it was advanced. */
  public static MutableClock running() {
    return new MutableClock(Clock.systemUTC());
  }

  /** Moves the clock forward by {@code d}. */
  public void advance(Duration d) {
    offsetMillis.addAndGet(d.toMillis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public long millis() {
    return base.millis() + offsetMillis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }
}
