package dev.ddpkit.reconnect.sim;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = SECONDS)
class HerdTimingTest {
  private static final HerdTiming TIMING =
      new HerdTiming(Duration.ofMillis(6_214), Duration.ofMillis(9_836), Duration.ofMillis(5_020));

  @Test
  void aLineNamesThePolicyAndEveryFigure() {
    assertThat(TIMING.line("rfc"))
        .isEqualTo(
            "run time rfc             6.21 s wall,  9.84 s CPU (5.02 s on the simulation"
                + " thread, the rest GC and JIT)");
  }

  @Test
  void aFigureTheJvmDoesNotReportIsLeftOutAndIsMinusOneInJson() {
    HerdTiming noProcess = new HerdTiming(Duration.ofMillis(1_500), null, Duration.ofMillis(900));
    HerdTiming none = new HerdTiming(Duration.ofMillis(1_500), null, null);

    assertThat(noProcess.line("fixed"))
        .isEqualTo("run time fixed           1.50 s wall, 0.90 s CPU on the simulation thread");
    assertThat(none.line("fixed")).isEqualTo("run time fixed           1.50 s wall");
    assertThat(none.processCpuMillis()).isEqualTo(-1);
    assertThat(none.threadCpuMillis()).isEqualTo(-1);
  }

  @Test
  void aStopwatchMeasuresTheWorkBetweenStartAndStop() {
    HerdTiming.Stopwatch stopwatch = HerdTiming.start();
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

  @Test
  void theTextReportPutsOneLinePerPolicyBetweenTableAndHistograms() {
    HerdResult r = HerdSimulation.run(HerdConfig.builder().clients(200).capacity(100).build());

    String text = HerdReport.text(List.of(r), List.of(TIMING));

    String timingLine = TIMING.line(r.policyName());
    assertThat(text).startsWith(HerdReport.table(List.of(r)) + "\n" + timingLine + "\n\n");
    assertThat(text).endsWith(HerdReport.histogram(r));
    assertThat(HerdReport.text(List.of(r))).doesNotContain("run time");
    assertThatThrownBy(() -> HerdReport.text(List.of(r), List.of(TIMING, TIMING)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 timings for 1 results");
  }
}
