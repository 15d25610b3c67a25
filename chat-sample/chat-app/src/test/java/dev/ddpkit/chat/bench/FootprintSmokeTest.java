package dev.ddpkit.chat.bench;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The footprint benchmark with 10 clients against a server in a child JVM: figures computed. */
@Timeout(value = 60, unit = SECONDS)
class FootprintSmokeTest {

  @Test
  void tenIdleClientsCostThreadsAndHeapAndAreAllClosedAfterwards() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        FootprintCommand.run(new String[] {"--steps", "5,10", "--modes", "chat,ddp-shared,ddp"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);

    assertThat(status).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(text).contains("mode chat:", "mode ddp-shared:", "mode ddp:", "threads/cl",
        "heap KiB/cl");
    List<String[]> rows = text.lines().map(String::strip)
        .filter(l -> l.matches("^(5|10)\\s.*")).map(l -> l.split("\\s+")).toList();
    assertThat(rows).hasSize(6);
    for (String[] r : rows) {
      assertThat(Double.parseDouble(r[2])).as("threads per client").isGreaterThan(1.5);
      assertThat(Double.parseDouble(r[4])).as("heap KiB per client").isGreaterThan(1.0);
    }
    // The defaults (issue 11): the socket's two threads per client, the loops on the shared pool
    // (until then 3: a loop thread of each client's own). The JVM's own compiler threads may come
    // and go, hence a margin rather than exact figures.
    assertThat(Double.parseDouble(rows.get(1)[2])).as("chat threads per client").isLessThan(2.5);
    assertThat(Double.parseDouble(rows.get(5)[2])).as("ddp threads per client").isLessThan(2.5);
    // Every measured client was closed: none of their threads are left in this JVM.
    assertThat(Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("footprint-"))).isEmpty();
  }

  @Test
  void badArgumentsAreRefusedWithTheUsage() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = FootprintCommand.run(new String[] {"--steps", "10,5"},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("ascending", "usage:");
  }
}
