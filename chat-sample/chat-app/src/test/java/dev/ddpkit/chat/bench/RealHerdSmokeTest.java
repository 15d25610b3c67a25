package dev.ddpkit.chat.bench;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.cli.Main;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code herd --real} through the jar's entry point with 20 clients: every figure is computed. */
@Timeout(value = 60, unit = SECONDS)
class RealHerdSmokeTest {
  private static final Pattern JSON_INT = Pattern.compile("\"%s\":(\\d+)");

  @Test
  void aSmallRealWaveGetsEveryoneBackAndReportsItsFigures(@TempDir Path dir) throws Exception {
    String prefix = dir.resolve("wave").toString();
    String text = runOk("herd", "--real", "--clients", "20", "--capacity", "10",
        "--downtime-ms", "500", "--policy", "full-jitter", "--hints", "on",
        "--cap-ms", "20000", "--svg", prefix, "--json");
    assertThat(text).contains("reproduce: java -jar chat-sample/target/ddpkit.jar herd --real"
        + " --clients 20 --capacity 10 --downtime-ms 500 --policy full-jitter --hints on");
    String json = text.lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow();
    assertThat(json).contains("\"complete\":true", "\"real\":true");
    assertThat(intOf(json, "clientsBack")).isEqualTo(20);
    assertThat(intOf(json, "dials")).isGreaterThanOrEqualTo(20); // attempts per client >= 1
    assertThat(intOf(json, "accepted")).isGreaterThanOrEqualTo(20);
    assertThat(intOf(json, "peakPerSecond")).isGreaterThanOrEqualTo(1);
    assertThat(intOf(json, "peakAcceptsPerSecond")).isBetween(1L, 20L);
    // No one can be back before the server is: the times are after the downtime.
    assertThat(intOf(json, "p50Ms")).isGreaterThanOrEqualTo(500);
    assertThat(intOf(json, "maxMs")).isGreaterThanOrEqualTo(intOf(json, "p99Ms"));
    assertThat(text).contains("Hints on, all policies:", "limit ");
    String svg = Files.readString(Path.of(prefix + "-hints-on.svg"));
    assertThat(svg).startsWith("<?xml").contains("Reconnect herd on real sockets: 20 clients")
        .doesNotContain("token bucket").endsWith("</svg>\n");
  }

  /**
   * {@code --planned} with a bare {@code --hints}, as {@code herd} takes them: every client is
   * closed with its own appointment, and comes back at it, no earlier, with about one dial.
   */
  @Test
  void aPlannedRestartBringsEveryoneBackByAppointment(@TempDir Path dir) throws Exception {
    String text = runOk("herd", "--real", "--clients", "20", "--capacity", "10",
        "--downtime-ms", "1000", "--policy", "rfc", "--hints", "--planned",
        "--cap-ms", "20000", "--json");
    assertThat(text).contains("--policy rfc --hints on --planned", "restarted as planned");
    String json = text.lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow();
    assertThat(intOf(json, "clientsBack")).isEqualTo(20);
    // The last in the queue is told D + 20/C = 3 s; an RFC client would otherwise be back at 1-1.5 s.
    assertThat(intOf(json, "maxMs")).isGreaterThanOrEqualTo(2900);
    assertThat(intOf(json, "dials")).as("about one dial each").isLessThanOrEqualTo(30);
  }

  /**
   * {@code --warm-up}: the killed server is started again at once and books every dial until it is
   * ready at D, so no client sleeps on its curve past the queue: all back by
   * D + N/C plus the spread, with about two dials each (turned away with a slot, admitted in it).
   */
  @Test
  void aServerWarmingUpBooksEveryDialAndEveryoneIsBackByTheLimit(@TempDir Path dir)
      throws Exception {
    String text = runOk("herd", "--real", "--clients", "20", "--capacity", "10",
        "--downtime-ms", "1000", "--policy", "full-jitter", "--hints", "--warm-up",
        "--cap-ms", "20000", "--json");
    assertThat(text).contains("--hints on --warm-up", "warming up");
    String json = text.lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow();
    assertThat(intOf(json, "clientsBack")).isEqualTo(20);
    // Refused only in the moment the new server binds its port: at most one dial per client.
    assertThat(intOf(json, "refused")).isLessThanOrEqualTo(20);
    // D + 20/C = 3 s is the earliest the last can be back; warming up, it is there within the
    // spread and the machine's slack, where full jitter from a dark server takes up to its cap.
    assertThat(intOf(json, "maxMs")).isBetween(2900L, 6000L);
    assertThat(intOf(json, "dials")).as("about two dials each").isLessThanOrEqualTo(50);
  }

  /** Runs {@code args} through the jar's entry point; asserts exit 0 and returns stdout. */
  private static String runOk(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Main.run(args, new ByteArrayInputStream(new byte[0]),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static long intOf(String json, String key) {
    Matcher m = Pattern.compile(String.format(JSON_INT.pattern(), key)).matcher(json);
    assertThat(m.find()).as("%s in %s", key, json).isTrue();
    return Long.parseLong(m.group(1));
  }
}
