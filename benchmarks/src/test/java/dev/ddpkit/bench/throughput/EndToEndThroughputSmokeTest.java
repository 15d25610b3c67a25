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
        200, 50, 2, List.of(), Path.of("unused.js"), "node", true);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    EndToEndThroughput.Report r =
        EndToEndThroughput.run(c, new PrintStream(log, true, StandardCharsets.UTF_8));

    assertThat(r.liveServerPerSecond()).isPositive().isFinite();
    assertThat(r.live()).hasSize(1);
    assertThat(r.backlog()).hasSize(1);
    for (EndToEndThroughput.Figure f : List.of(r.live().get(0), r.backlog().get(0))) {
      assertThat(f.messages()).isEqualTo(200);
      assertThat(f.perSecond()).isPositive().isFinite();
      assertThat(f.cpuPerThousand()).isFinite().isNotNegative();
    }
    assertThat(r.live().get(0).lagMillis()).isFinite();

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EndToEndThroughput.print(c, r, new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("java ddpkit ChatClient").contains("backlog").contains("msgs/s");
  }

  @Test
  void parsesTheScriptOptions() {
    EndToEndThroughput.Config c = EndToEndThroughput.parse(new String[] {
        "--messages", "1000", "--warmup", "0", "--node-libs", "ddp.js", "--no-backlog"});
    assertThat(c.messages()).isEqualTo(1000);
    assertThat(c.warmup()).isZero();
    assertThat(c.nodeLibs()).containsExactly("ddp.js");
    assertThat(c.backlog()).isFalse();
  }
}
