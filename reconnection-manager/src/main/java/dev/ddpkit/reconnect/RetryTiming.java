package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a {@link ReconnectionManager} dials next: its backoff curve, the 1013 floor and the
 * server's {@code retry-after} appointments, with the random samples they draw. Not thread-safe:
 * used under the manager's lock, so the samples are drawn in the order of the decisions (the herd
 * simulation's figures depend on it).
 */
final class RetryTiming {
  private static final Logger log = LoggerFactory.getLogger(ReconnectionManager.class);

  private final Backoff backoff;
  private final double hintSpread;
  private final Duration maxHintSpread;
  private final Duration hintMinimum;
  private final DoubleSupplier random;
  // When no source was set, and when the set one misbehaves.
  private final SplittableRandom own = new SplittableRandom();
  private final String name;

  RetryTiming(ReconnectPolicy policy, DoubleSupplier random, String name) {
    this.backoff = policy.backoff();
    this.hintSpread = policy.hintSpread();
    this.maxHintSpread = policy.maxHintSpread();
    this.hintMinimum = policy.hintMinimum();
    // A lambda, not own::nextDouble: that names RandomGenerator (Android 35+).
    this.random = random != null ? random : () -> own.nextDouble();
    this.name = name;
  }

  /**
   * The backoff's delay for {@code attempt}, a delay beyond ~292 years clamped.
   *
   * @throws IllegalStateException if the backoff threw or returned null or a negative delay
   */
  Duration curve(int attempt) {
    return Backoffs.checkedDelay(backoff, attempt, sample());
  }

  /**
   * {@code curve} raised to {@code floor} if below it, then up to {@code hintSpread} past the
   * floor, so that clients turned away together spread out.
   */
  Duration atLeast(Duration curve, Duration floor) {
    if (curve.compareTo(floor) >= 0) {
      return curve;
    }
    return floor.plusMillis(Math.round(floor.toMillis() * hintSpread * sample()));
  }

  /**
   * The delay until the server's appointment: the hint, raised to {@code hintMinimum} (a broken or
   * hostile server answering {@code retry-after=0} gets at most one dial per minimum), capped to
   * {@link ClosePolicy#MAX_RETRY_AFTER}, plus the spread.
   */
  Duration appointment(Duration hint) {
    Duration h = hint.compareTo(hintMinimum) < 0 ? hintMinimum : hint;
    if (h.compareTo(ClosePolicy.MAX_RETRY_AFTER) > 0) {
      h = ClosePolicy.MAX_RETRY_AFTER;
    }
    return spread(h);
  }

  /**
   * {@code at} plus a jitter of up to {@code hintSpread} of it, at most {@code maxHintSpread}: never
   * earlier than the server said, and late by little enough that a server holding a slot for the
   * client (see {@code dev.ddpkit.reconnect.admission.Admission}) still has it.
   */
  private Duration spread(Duration at) {
    long window = Math.min(Math.round(at.toMillis() * hintSpread), maxHintSpread.toMillis());
    return at.plusMillis(Math.round(window * sample()));
  }

  /** A sample in [0, 1) from the configured source, or the own one if that source misbehaves. */
  private double sample() {
    double s;
    try {
      s = random.getAsDouble();
    } catch (RuntimeException e) {
      log.warn("{}: random source failed; using the manager's own", name, e);
      return own.nextDouble();
    }
    if (!(s >= 0 && s < 1)) {
      log.warn("{}: random source returned {}, not in [0, 1); using the manager's own", name, s);
      return own.nextDouble();
    }
    return s;
  }
}
