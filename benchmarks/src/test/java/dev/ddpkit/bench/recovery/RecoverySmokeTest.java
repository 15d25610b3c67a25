package dev.ddpkit.bench.recovery;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Tiny runs of the recovery measurements: the figures are computed and printed. */
class RecoverySmokeTest {
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void subscriptionRecoveryDirectAndThroughALatencyProxy() throws Exception {
    for (Duration latency : List.of(Duration.ZERO, Duration.ofMillis(5))) {
      SubscriptionRecovery.Result r = SubscriptionRecovery.run(5, 2, 3, latency);
      assertThat(r.recoveryMillis()).hasSize(2).allSatisfy(v -> assertThat(v).isPositive());
      assertThat(r.firstReadyMillis()).hasSize(2).allSatisfy(v -> assertThat(v).isPositive());
      assertThat(r.pingMillis()).hasSize(3 + 2 * 5);
      assertThat(r.recoveryOverMethodRtt()).isPositive().isFinite();
      assertThat(r.recoveryOverPingRtt()).isPositive().isFinite();
      assertThat(print(out -> SubscriptionRecovery.print(r, out)))
          .contains("connected -> last of 5 ready");
    }
  }

  @Test
  @Timeout(value = 60, unit = SECONDS)
  void halfOpenDetectionMeasuresEachSetting() throws Exception {
    HalfOpenDetection.Setting s =
        new HalfOpenDetection.Setting(Duration.ofMillis(100), Duration.ofMillis(100));
    List<HalfOpenDetection.Row> rows = HalfOpenDetection.run(List.of(s), 2);
    assertThat(rows).hasSize(1);
    // No client can notice before its ping has gone unanswered for the timeout.
    assertThat(rows.get(0).detectionMillis()).hasSize(2)
        .allSatisfy(v -> assertThat(v).isGreaterThanOrEqualTo(100.0));
    assertThat(rows.get(0).overInterval()).isFinite();
    assertThat(print(out -> HalfOpenDetection.print(rows, out))).contains("100ms");
  }

  private static String print(java.util.function.Consumer<PrintStream> printer) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    printer.accept(new PrintStream(b, true, StandardCharsets.UTF_8));
    return b.toString(StandardCharsets.UTF_8);
  }
}
