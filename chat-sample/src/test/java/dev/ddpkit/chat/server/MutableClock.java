package dev.ddpkit.chat.server;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A wall clock a test moves by hand. */
final class MutableClock extends Clock {
  private final AtomicLong millis;

  MutableClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  void advance(Duration d) {
    millis.addAndGet(d.toMillis());
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
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }
}
