package dev.ddpkit.reconnect;

import java.time.Duration;

/** The preset {@link Backoff} implementations, each with a readable {@code toString()}. */
final class Backoffs {
  private Backoffs() {}

  /**
   * The longest duration accepted anywhere: what fits in a {@code long} of nanoseconds (about 292
   * years), so that no delay can overflow a scheduler's deadline or {@link Duration#toMillis()}.
   * Declared before the presets: their constructors check against it.
   */
  static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE);

  static final Backoff RFC = new Rfc(Duration.ofSeconds(1), Duration.ofSeconds(60));

  /** The Rocket.Chat RFC's shape: doubling from {@code base} up to {@code cap}, plus up to half. */
  record Rfc(Duration base, Duration cap) implements Backoff {
    Rfc {
      checkPositive("base", base);
      checkPositive("cap", cap);
    }

    @Override
    public Duration delay(int attempt, double sample) {
      checkArgs(attempt, sample);
      long value = exponential(base.toMillis(), attempt, cap.toMillis());
      return Duration.ofMillis(Math.round(value * (1 + 0.5 * sample)));
    }

    @Override
    public String toString() {
      return equals(RFC) ? "rfc" : "rfc(" + base.toMillis() + "ms.." + cap.toMillis() + "ms)";
    }
  }

  static final Backoff METEOR =
      new Backoff() {
        @Override
        public Duration delay(int attempt, double sample) {
          checkArgs(attempt, sample);
          if (attempt <= 2) {
            return Duration.ofMillis(10);
          }
          double base = Math.min(300_000d, 1_000d * Math.pow(2.2, attempt - 1));
          return Duration.ofMillis(Math.round(base * (0.75 + 0.5 * sample)));
        }

        @Override
        public String toString() {
          return "meteor";
        }
      };

  record FullJitter(Duration base, Duration cap) implements Backoff {
    FullJitter {
      checkPositive("base", base);
      checkPositive("cap", cap);
    }

    @Override
    public Duration delay(int attempt, double sample) {
      checkArgs(attempt, sample);
      long ceiling = exponential(base.toMillis(), attempt, cap.toMillis());
      return Duration.ofMillis(Math.round(ceiling * sample));
    }

    @Override
    public String toString() {
      return "full-jitter(" + base.toMillis() + "ms.." + cap.toMillis() + "ms)";
    }
  }

  record Proportional(Duration base, Duration cap, double jitter) implements Backoff {
    Proportional {
      checkPositive("base", base);
      checkPositive("cap", cap);
      if (!(jitter >= 0 && jitter < 1)) {
        throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
      }
    }

    @Override
    public Duration delay(int attempt, double sample) {
      checkArgs(attempt, sample);
      long value = exponential(base.toMillis(), attempt, cap.toMillis());
      return Duration.ofMillis(Math.round(value * (1 + jitter * (2 * sample - 1))));
    }

    @Override
    public String toString() {
      return "proportional(" + base.toMillis() + "ms.." + cap.toMillis() + "ms, +-" + jitter + ")";
    }
  }

  record Fixed(Duration interval) implements Backoff {
    Fixed {
      checkNonNegative("interval", interval);
    }

    @Override
    public Duration delay(int attempt, double sample) {
      checkArgs(attempt, sample);
      return interval;
    }

    @Override
    public String toString() {
      return "fixed(" + interval.toMillis() + "ms)";
    }
  }

  record Floored(Backoff backoff, Duration floor) implements Backoff {
    Floored {
      checkNonNegative("floor", floor);
    }

    @Override
    public Duration delay(int attempt, double sample) {
      Duration d = backoff.delay(attempt, sample);
      return d.compareTo(floor) < 0 ? floor : d;
    }

    @Override
    public String toString() {
      return backoff + ", floor " + floor.toMillis() + "ms";
    }
  }

  /** How many attempts {@link #probe} tries a custom backoff on. */
  private static final int PROBED_ATTEMPTS = 16;

  /**
   * The delay of {@code backoff} for {@code attempt}, clamped to {@link #MAX_DURATION}.
   *
   * @throws IllegalStateException naming the backoff and the attempt if it threw or returned null
   *     or a negative delay
   */
  static Duration checkedDelay(Backoff backoff, int attempt, double sample) {
    Duration d;
    try {
      d = backoff.delay(attempt, sample);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "backoff " + backoff + " failed for attempt " + attempt + ": " + e, e);
    }
    if (d == null || d.isNegative()) {
      throw new IllegalStateException(
          "backoff " + backoff + " returned " + d + " for attempt " + attempt);
    }
    // Clamped so that a status's delay and next-try time always fit in nanoseconds.
    return d.compareTo(MAX_DURATION) > 0 ? MAX_DURATION : d;
  }

  /**
   * Tries {@code backoff} on the first attempts with the lowest and a high sample, so that a broken
   * custom curve fails where it is configured rather than at the first outage.
   *
   * @throws IllegalArgumentException naming {@code field} if the backoff fails
   */
  static void probe(String field, Backoff backoff) {
    for (int n = 1; n <= PROBED_ATTEMPTS; n++) {
      for (double sample : new double[] {0, 0.999}) {
        try {
          checkedDelay(backoff, n, sample);
        } catch (IllegalStateException e) {
          throw new IllegalArgumentException(field + ": " + e.getMessage(), e.getCause());
        }
      }
    }
  }

  /** {@code min(cap, base * 2^(attempt-1))} without overflow. */
  static long exponential(long baseMillis, int attempt, long capMillis) {
    int shift = attempt - 1;
    if (shift >= 62 || baseMillis > (capMillis >> Math.min(shift, 62))) {
      return capMillis;
    }
    return Math.min(capMillis, baseMillis << shift);
  }

  static void checkArgs(int attempt, double sample) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be 1 or more: " + attempt);
    }
    if (!(sample >= 0 && sample < 1)) {
      throw new IllegalArgumentException("sample must be in [0, 1): " + sample);
    }
  }

  static void checkPositive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
    checkNotHuge(name, d);
  }

  static void checkNonNegative(String name, Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + d);
    }
    checkNotHuge(name, d);
  }

  private static void checkNotHuge(String name, Duration d) {
    if (d.compareTo(MAX_DURATION) > 0) {
      throw new IllegalArgumentException(name + " must be at most " + MAX_DURATION + ": " + d);
    }
  }
}
