package dev.ddpkit.bench.recovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Small helpers of the recovery runs: order statistics of samples, and waiting for a condition. */
final class Samples {
  private Samples() {}

  /** Returns the median of {@code values} (the mean of the middle two for an even count). */
  static double median(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no samples");
    }
    List<Double> s = new ArrayList<>(values);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /** Returns the smallest value. */
  static double min(List<Double> values) {
    return Collections.min(values);
  }

  /** Returns the largest value. */
  static double max(List<Double> values) {
    return Collections.max(values);
  }

  /** Nanoseconds to milliseconds. */
  static double millis(long nanos) {
    return nanos / 1e6;
  }

  /**
   * Waits until {@code condition} holds, looking every 200 microseconds (a benchmark, not a test:
   * the resolution matters more than the CPU).
   *
   * @throws IllegalStateException naming {@code what} if it does not hold within {@code timeout}
   */
  static void await(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + timeout + ": " + what);
      }
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    }
  }
}
