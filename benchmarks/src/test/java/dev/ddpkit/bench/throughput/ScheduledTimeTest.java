package dev.ddpkit.bench.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The Java consumer's process CPU reading moves in steps far below the 10 ms clock tick that the
 * MXBean's process CPU time moves by on Linux: busy for a while, it is seen to advance by less
 * than 5 ms at least once.
 */
class ScheduledTimeTest {
  @Test
  void processCpuIsReadFinerThanAClockTick() {
    double first = JavaConsumer.ScheduledTime.processMillis();
    assumeTrue(first >= 0, "no /proc/self/task/*/schedstat here");
    double smallestStep = Double.MAX_VALUE;
    double last = first;
    long end = System.nanoTime() + 500_000_000L;
    long spin = 0;
    while (System.nanoTime() < end && smallestStep >= 5) {
      for (int i = 0; i < 100_000; i++) {
        spin += i ^ spin;
      }
      double now = JavaConsumer.ScheduledTime.processMillis();
      if (now > last) {
        smallestStep = Math.min(smallestStep, now - last);
        last = now;
      }
    }
    assertThat(spin).isNotZero(); // the loop's work is used, so it is not removed
    assertThat(last).as("CPU read after busy work").isGreaterThan(first);
    assertThat(smallestStep).as("smallest step between readings, ms").isLessThan(5);
  }
}
