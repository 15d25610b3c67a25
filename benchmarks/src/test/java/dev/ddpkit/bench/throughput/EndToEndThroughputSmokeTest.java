package dev.ddpkit.bench.throughput;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tiny end-to-end run, Java consumer only (Node and its modules are the script's business):
 * every phase yields finite figures and the report prints them.
 */
class EndToEndThroughputSmokeTest {
  @Test
  @Timeout(value = 90, unit = SECONDS)
  void tinyRunComputesEveryFigure() throws Exception {
    EndToEndThroughput.Config c = new EndToEndThroughput.Config(
        200, 50, 2, List.of(), Path.of("unused.js"), "node", true, List.of("default", "shared"));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    EndToEndThroughput.Report r =
        EndToEndThroughput.run(c, new PrintStream(log, true, StandardCharsets.UTF_8));

    assertThat(r.liveServerPerSecond()).isPositive().isFinite();
    assertThat(r.live()).hasSize(2);
    assertThat(r.backlog()).hasSize(2);
    for (EndToEndThroughput.Figure f : concat(r.live(), r.backlog())) {
      assertThat(f.messages()).isEqualTo(200);
      assertThat(f.perSecond()).isPositive().isFinite();
      assertThat(f.cpuPerThousand()).isFinite().isNotNegative();
    }
    assertThat(r.live()).allSatisfy(f -> assertThat(f.lagMillis()).isFinite());

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EndToEndThroughput.print(c, r, new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("java ddpkit ChatClient (loop pool)")
        .contains("java ddpkit ChatClient (shared pool)")
        .contains("ratio ddpkit shared pool / ddpkit loop pool").contains("backlog").contains("msgs/s");
  }

  @Test
  @Timeout(value = 10, unit = SECONDS)
  void parsesTheScriptOptions() {
    EndToEndThroughput.Config c = EndToEndThroughput.parse(new String[] {
        "--messages", "1000", "--warmup", "0", "--node-libs", "ddp.js", "--no-backlog",
        "--java-modes", "shared"});
    assertThat(c.messages()).isEqualTo(1000);
    assertThat(c.warmup()).isZero();
    assertThat(c.nodeLibs()).containsExactly("ddp.js");
    assertThat(c.backlog()).isFalse();
    assertThat(c.javaModes()).containsExactly("shared");
    assertThat(EndToEndThroughput.Config.defaults().javaModes())
        .containsExactly("default", "shared");
  }

  @Test
  @Timeout(value = 10, unit = SECONDS)
  void anUnknownJavaModeIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> EndToEndThroughput.parse(
            new String[] {"--java-modes", "default,turbo"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("turbo");
  }

  private static List<EndToEndThroughput.Figure> concat(
      List<EndToEndThroughput.Figure> a, List<EndToEndThroughput.Figure> b) {
    java.util.ArrayList<EndToEndThroughput.Figure> all = new java.util.ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
