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
  void aStopwatchReportsTheCpuTimeItsClockCountedBetweenStartAndStop() {
    // The JVM's own clock is chat-sample's JvmCpuClock (JvmCpuClockTest); here a scripted one.
    long[] process = {1_000_000_000L, 3_500_000_000L};
    long[] thread = {200_000_000L, 1_700_000_000L};
    int[] reads = {0, 0};
    CpuClock scripted =
        new CpuClock() {
          @Override
          public long processCpuNanos() {
            return process[reads[0]++];
          }

          @Override
          public long threadCpuNanos() {
            return thread[reads[1]++];
          }
        };

    HerdTiming t = HerdTiming.start(scripted).stop();

    assertThat(t.wall()).isGreaterThanOrEqualTo(Duration.ZERO);
    assertThat(t.processCpu()).isEqualTo(Duration.ofMillis(2_500));
    assertThat(t.threadCpu()).isEqualTo(Duration.ofMillis(1_500));
    assertThat(reads).containsExactly(2, 2);
  }

  @Test
  void withNoCpuClockOnlyTheWallTimeIsReported() {
    HerdTiming t = HerdTiming.start(CpuClock.NONE).stop();

    assertThat(t.processCpu()).isNull();
    assertThat(t.threadCpu()).isNull();
    assertThat(t.line("rfc")).matches("run time rfc +\\d+\\.\\d\\d s wall");
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
