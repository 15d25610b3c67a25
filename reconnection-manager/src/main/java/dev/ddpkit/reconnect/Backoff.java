package dev.ddpkit.reconnect;

import java.time.Duration;

/**
 * How long to wait before a reconnection attempt: a pure function of the attempt number and a
 * random sample, so that a table of exact values can be tested. The caller draws the sample.
 *
 * <p>Attempts count from 1: attempt 1 is the first retry after a connection was lost.
 */
@FunctionalInterface
public interface Backoff {

  /**
   * Returns the delay before {@code attempt}.
   *
   * @param attempt the attempt number, 1 or more
   * @param sample a uniform random sample in {@code [0, 1)}
   */
  Duration delay(int attempt, double sample);

  /**
   * The Rocket.Chat RFC curve: {@code min(60 s, 1 s * 2^(n-1))} plus up to half of it again.
   * Attempt 1 waits 1.0-1.5 s, attempt 2 2-3 s, ..., attempt 7 and later 60-90 s.
   */
  static Backoff rfc() {
    return Backoffs.RFC;
  }

  /**
   * The RFC curve's shape, scaled: {@code min(cap, base * 2^(n-1))} plus up to half of it again.
   * {@code rfc(1 s, 60 s)} is {@link #rfc()}.
   *
   * @throws IllegalArgumentException naming {@code base} or {@code cap} if it is not positive
   */
  static Backoff rfc(Duration base, Duration cap) {
    return new Backoffs.Rfc(base, cap);
  }

  /**
   * Full jitter (AWS): {@code U(0, min(cap, base * 2^(n-1)))}. Spreads a herd the most, at the
   * price of some clients retrying almost at once. Defaults: 500 ms base, 30 s cap.
   */
  static Backoff fullJitter() {
    return fullJitter(Duration.ofMillis(500), Duration.ofSeconds(30));
  }

  /** Full jitter with the given base and cap. */
  static Backoff fullJitter(Duration base, Duration cap) {
    return new Backoffs.FullJitter(base, cap);
  }

  /**
   * Exponential with proportional jitter: {@code min(cap, base * 2^(n-1))}, then plus or minus
   * {@code jitter} of it (0.25 means +-25 %).
   */
  static Backoff proportional(Duration base, Duration cap, double jitter) {
    return new Backoffs.Proportional(base, cap, jitter);
  }

  /**
   * The legacy fixed interval ({@code reopen: 5000}): always {@code interval}, no jitter. Kept for
   * migration and for comparison; it is what causes synchronised reconnect waves.
   */
  static Backoff fixed(Duration interval) {
    return new Backoffs.Fixed(interval);
  }

  /**
   * Meteor's {@code Retry} defaults as its DDP client uses them: 10 ms for the first two attempts,
   * then {@code min(5 min, 1 s * 2.2^(n-1))} times a factor in {@code [0.75, 1.25)}.
   */
  static Backoff meteor() {
    return Backoffs.METEOR;
  }

  /** Returns a backoff that never waits less than {@code floor}. */
  default Backoff withFloor(Duration floor) {
    return new Backoffs.Floored(this, floor);
  }
}
