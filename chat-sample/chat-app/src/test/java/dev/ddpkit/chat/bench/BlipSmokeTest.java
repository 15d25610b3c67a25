package dev.ddpkit.chat.bench;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The blip benchmark (issue 20) small: 20 clients in 2 rooms and one probe in a JVM of its own,
 * one 1 s blip with session resumption and one without. Its figures are computed and say what
 * the benchmark claims: resumed, one frame in per client and nothing re-run; not resumed, the
 * login, the subscriptions and the catch-up again; nothing lost either way.
 */
@Timeout(value = 180, unit = SECONDS)
class BlipSmokeTest {
  private static final int CLIENTS = 20;
  private static final int ROOMS = 2;

  private static BlipBench.Wave wave(boolean resume, ByteArrayOutputStream progress) {
    List<BlipBench.Wave> waves = new BlipBench(CLIENTS, ROOMS, 1,
        new PrintStream(progress, true, StandardCharsets.UTF_8))
        .run(resume, List.of(Duration.ofSeconds(1)));
    assertThat(waves).hasSize(1);
    return waves.get(0);
  }

  @Test
  void aResumedBlipCostsTheServerOneFrameAClientAndANonResumedOneTheWholeRecovery() {
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    BlipBench.Wave on = wave(true, progress);
    BlipBench.Wave off = wave(false, progress);
    String log = progress.toString(StandardCharsets.UTF_8);

    assertThat(on.cut()).as(log).isEqualTo(CLIENTS + 1);
    assertThat(on.resumed()).as(log).isEqualTo(CLIENTS);
    assertThat(on.probes().count()).isEqualTo(1);
    assertThat(on.probes().resumed()).isEqualTo(1);
    // The connect, and at most a ping's pong: the bound.
    assertThat(on.perClient(on.framesIn())).isBetween(1.0, 2.0);
    assertThat(on.methodCalls()).isZero();
    assertThat(on.subscriptions()).isZero();
    assertThat(on.held()).isEqualTo(CLIENTS + 1);
    assertThat(on.expired()).isZero();
    assertThat(on.serverCpuNanos()).isPositive();
    assertThat(on.afterOpenMicros()).hasSize(CLIENTS);
    assertThat(Arrays.stream(on.afterOpenMicros()).min().orElse(0)).isPositive();
    assertThat(on.probes().openToConnectMicros()).hasSize(1);
    assertThat(on.probes().roundTripMicros()[0]).isPositive();

    assertThat(off.resumed()).as(log).isZero();
    assertThat(off.probes().resumed()).isZero();
    assertThat(off.perClient(off.framesIn())).isGreaterThan(2.0);
    assertThat(off.methodCalls()).isPositive(); // the login and the catch-up calls
    assertThat(off.subscriptions()).isEqualTo((long) (CLIENTS + 1) * ROOMS * 3);

    for (BlipBench.Wave w : List.of(on, off)) {
      assertThat(w.lostSubscriptions()).as("lost subscriptions, resume %s", w.resume()).isZero();
      assertThat(w.lostMessages()).as("lost messages, resume %s", w.resume()).isZero();
      assertThat(w.lastLiveMs()).isPositive();
      assertThat(BlipCommand.line(w)).startsWith(w.resume() ? "on " : "off ");
    }
  }
}
