package dev.ddpkit.chat.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.reconnect.sim.HerdTiming;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = SECONDS)
class JvmCpuClockTest {
  @Test
  void aStopwatchOnTheJvmClockMeasuresTheWorkBetweenStartAndStop() {
    HerdTiming.Stopwatch stopwatch = HerdTiming.start(JvmCpuClock.INSTANCE);
    long sink = 0;
    for (int i = 0; i < 20_000_000; i++) {
      sink += Long.numberOfTrailingZeros(i ^ sink);
    }
    HerdTiming t = stopwatch.stop();

    assertThat(sink).isNotZero();
    assertThat(t.wall()).isPositive();
    // On OpenJDK both CPU figures are reported; the loop cost some CPU on this thread.
    assertThat(t.threadCpu()).isNotNull().isPositive();
    assertThat(t.processCpu()).isNotNull().isGreaterThanOrEqualTo(Duration.ZERO);
  }
}
