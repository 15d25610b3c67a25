package dev.ddpkit.reconnect.sim;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;

@ExtendWith(QuietReconnectLogs.class)
@Timeout(value = 60, unit = SECONDS)
class HerdCommandTest {
  private static final List<String> REQUIRED_KEYS =
      List.of(
          "policy", "clients", "capacity", "downtimeMs", "p50Ms", "p99Ms", "maxMs",
          "attemptsPerClient", "rejected", "peakPerSecond");

  /** What one run of the command printed. */
  private record Run(int exitCode, String out, String err) {}

  private static Run herd(String... args) {
    return herd(CpuClock.NONE, args);
  }

  private static Run herd(CpuClock cpu, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = HerdCommand.run(args, o, e, cpu);
    }
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void jsonLinesParseAndCarryEveryRequiredKeyWithSaneValues() throws Exception {
    Run run =
        herd("--clients", "2000", "--capacity", "400", "--downtime-ms", "3000", "--policy",
            "fixed,rfc,full-jitter,proportional,meteor", "--json");

    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).isEmpty();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(5);
    ObjectMapper mapper = new ObjectMapper();
    for (int i = 0; i < lines.size(); i++) {
      JsonNode json = mapper.readTree(lines.get(i));
      assertThat(REQUIRED_KEYS).allSatisfy(key -> assertThat(json.has(key)).as(key).isTrue());
      assertThat(json.get("policy").asText())
          .isEqualTo(List.of("fixed", "rfc", "full-jitter", "proportional", "meteor").get(i));
      assertThat(json.get("clients").asInt()).isEqualTo(2000);
      assertThat(json.get("capacity").asInt()).isEqualTo(400);
      assertThat(json.get("downtimeMs").asLong()).isEqualTo(3000);
      long limit = 3000 + 2000 * 1000 / 400;
      assertThat(json.get("maxMs").isIntegralNumber()).isTrue();
      assertThat(json.get("p50Ms").asLong())
          .isGreaterThan(3000)
          .isLessThanOrEqualTo(json.get("p99Ms").asLong());
      assertThat(json.get("p99Ms").asLong()).isLessThanOrEqualTo(json.get("maxMs").asLong());
      assertThat(json.get("maxMs").asLong()).isGreaterThanOrEqualTo(limit);
      assertThat(json.get("limitMs").asLong()).isEqualTo(limit);
      assertThat(json.get("attemptsPerClient").isNumber()).isTrue();
      assertThat(json.get("attemptsPerClient").asDouble()).isGreaterThanOrEqualTo(1.0);
      assertThat(json.get("rejected").asLong()).isNotNegative();
      assertThat(json.get("peakPerSecond").asInt()).isBetween(1, 2000);
      assertThat(json.get("complete").asBoolean()).isTrue();
    }
  }

  @Test
  void sameSeedPrintsTheSameAndAnotherSeedDoesNot() {
    String[] args = {"--clients", "1500", "--policy", "full-jitter,rfc", "--json", "--seed", "5"};
    Run first = herd(args);
    Run again = herd(args);
    Run other = herd("--clients", "1500", "--policy", "full-jitter,rfc", "--json", "--seed", "6");

    assertThat(again.out()).isEqualTo(first.out());
    assertThat(other.out()).isNotEqualTo(first.out());
  }

  @Test
  void textOutputHasTheLimitLineTheTableAndAHistogramPerPolicy() {
    Run run = herd("herd", "--clients", "2000", "--capacity", "500");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("Physical limit: all 2000 back at 9.0 s (D + N/C = 5000 ms + 2000/500 s)")
        .contains("policy", "50% back", "100% back", "attempts/client", "peak/s")
        .containsPattern("(?m)^physical limit +7\\.0 s +9\\.0 s +9\\.0 s +1\\.00 ")
        .containsPattern("(?m)^fixed +\\d")
        .containsPattern("(?m)^rfc +\\d")
        .containsPattern("(?m)^full-jitter +\\d")
        .contains("Dials reaching the server, fixed:")
        .contains("Dials reaching the server, rfc:")
        .contains("Dials reaching the server, full-jitter:");
    // The fixed herd's first wave: every client rejected in the same row.
    assertThat(run.out()).containsPattern("(?m)^ +[45]\\.0 s x+ +2000$");
  }

  @Test
  void svgIsWellFormedWithAPanelPerPolicy(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("herd.svg");

    Run run = herd("--clients", "2000", "--policy", "fixed,meteor", "--svg", file.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("SVG written to " + file);
    String svg = Files.readString(file);
    Document doc =
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
    assertThat(svg)
        .contains(">fixed</tspan>", ">meteor</tspan>", "C = 500/s", "limit 9 s", "accepted",
            "rejected (1013)", "Reconnect herd: 2,000 clients");
    assertThat(doc.getElementsByTagName("rect").getLength()).isGreaterThan(20);
  }

  @Test
  void anUnwritableSvgFileIsExitCodeOne(@TempDir Path dir) {
    Path file = dir.resolve("no-such-dir").resolve("herd.svg");

    Run run = herd("--clients", "200", "--policy", "rfc", "--svg", file.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("herd: cannot write");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--clients abc", "--clients", "--clients 0", "--capacity -5", "--downtime-ms -1",
        "--policy nope", "--policy rfc,,fixed", "--bogus", "--hints=yes", "--seed 1.5",
        "--horizon-ms 1000", "--bucket-ms 0", "--svg", "extra"
      })
  void badArgumentsGiveExitCodeTwoAndAOneLineMessage(String line) {
    Run run = herd(line.split(" "));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    List<String> err = run.err().lines().toList();
    assertThat(err.get(0)).startsWith("herd: ").doesNotContain("Exception");
    assertThat(err.get(1)).startsWith("usage: herd");
  }

  @Test
  void helpPrintsTheUsageAndSucceeds() {
    Run run = herd("--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("usage: herd").contains("--hints", "--svg FILE");
    assertThat(run.err()).isEmpty();
  }
  @Test
  void textShowsTheRunTimeOfEachPolicyUnderTheTable() {
    Run run = herd(new SteppingCpuClock(), "--clients", "1000", "--policy", "fixed,full-jitter");

    assertThat(run.exitCode()).isZero();
    String timing =
        "run time %s +\\d+\\.\\d\\d s wall, +\\d+\\.\\d\\d s CPU \\(\\d+\\.\\d\\d s on the"
            + " simulation thread, the rest GC and JIT\\)$";
    assertThat(run.out())
        .containsPattern("(?m)^" + String.format(timing, "fixed"))
        .containsPattern("(?m)^" + String.format(timing, "full-jitter"));
    // Under the table (after its last row), before the first histogram.
    String out = run.out();
    assertThat(out.indexOf("run time fixed")).isGreaterThan(out.indexOf("physical limit "));
    assertThat(out.indexOf("run time full-jitter"))
        .isLessThan(out.indexOf("Dials reaching the server"));
  }

  @Test
  void withNoCpuClockTheTextShowsTheWallTimeAlone() {
    Run run = herd("--clients", "1000", "--policy", "rfc");

    assertThat(run.out()).containsPattern("(?m)^run time rfc +\\d+\\.\\d\\d s wall$");
  }

  /** A CPU clock that advances 1 ms at every reading, so that every CPU figure is reported. */
  private static final class SteppingCpuClock implements CpuClock {
    private long nanos;

    @Override
    public long processCpuNanos() {
      return nanos += 1_000_000;
    }

    @Override
    public long threadCpuNanos() {
      return nanos += 1_000_000;
    }
  }

  @Test
  void jsonCarriesTheRunTimeOnlyWhenAskedSoThatTheSameSeedPrintsTheSame() throws Exception {
    Run plain = herd("--clients", "1000", "--policy", "rfc", "--json");
    Run timed = herd("--clients", "1000", "--policy", "rfc", "--json", "--timing");

    ObjectMapper mapper = new ObjectMapper();
    JsonNode p = mapper.readTree(plain.out());
    JsonNode t = mapper.readTree(timed.out());
    assertThat(p.has("elapsedMs")).isFalse();
    assertThat(p.has("cpuMs")).isFalse();
    assertThat(t.get("elapsedMs").isIntegralNumber()).isTrue();
    assertThat(t.get("elapsedMs").asLong()).isNotNegative();
    assertThat(t.get("cpuMs").asLong()).isGreaterThanOrEqualTo(-1);
    assertThat(t.get("threadCpuMs").asLong()).isGreaterThanOrEqualTo(-1);
    // Every other key is the same, value for value.
    ((com.fasterxml.jackson.databind.node.ObjectNode) t).remove(
        List.of("elapsedMs", "cpuMs", "threadCpuMs"));
    assertThat(t).isEqualTo(p);
  }

  private static final String[] TINY = {
    "--clients", "300", "--capacity", "100", "--downtime-ms", "1000", "--policy", "rfc"
  };

  private static String[] tiny(String... more) {
    String[] all = java.util.Arrays.copyOf(TINY, TINY.length + more.length);
    System.arraycopy(more, 0, all, TINY.length, more.length);
    return all;
  }

  @Test
  void plannedIsInTheJsonOnlyWhenSetSoThatADropPrintsAsBefore() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    JsonNode planned = mapper.readTree(herd(tiny("--planned", "--json")).out());
    JsonNode dropped = mapper.readTree(herd(tiny("--json")).out());

    assertThat(planned.get("planned").asBoolean()).isTrue();
    assertThat(dropped.has("planned")).isFalse();
    // Every client is told its own slot, so each dials once, after the downtime.
    assertThat(planned.get("dials").asLong()).isEqualTo(300);
    assertThat(planned.get("refused").asLong()).isZero();
  }

  @Test
  void hintsBothRunsWithoutThenWithHintsAndWritesAnSvgForEach(@TempDir Path dir) {
    Path svg = dir.resolve("herd.svg");
    Run run = herd(tiny("--hints", "both", "--svg", svg.toString()));

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("hints off; seed 42").contains("hints on; seed 42");
    assertThat(run.out().indexOf("hints off;")).isLessThan(run.out().indexOf("hints on;"));
    assertThat(dir.resolve("herd-hints-off.svg")).exists();
    assertThat(dir.resolve("herd-hints-on.svg")).exists();
    assertThat(svg).doesNotExist();
  }

  @Test
  void hintsAloneAndHintsOnAreTheSame() {
    assertThat(herd(tiny("--hints", "--json")).out())
        .isEqualTo(herd(tiny("--hints", "on", "--json")).out());
    assertThat(herd(tiny("--hints=off", "--json")).out()).isEqualTo(herd(tiny("--json")).out());
  }

  @Test
  void sweepPrintsTheFrontAndTheRfcCurvesPlace() throws Exception {
    Run run = herd(tiny("--sweep"));

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("Pareto front:", "RFC curve", "rfc 1 s/60 s");
    List<String> json = herd(tiny("--sweep", "--json")).out().lines().toList();
    assertThat(json).hasSize(HerdSweep.curves().size());
    ObjectMapper mapper = new ObjectMapper();
    long onFront = 0;
    for (String line : json) {
      JsonNode n = mapper.readTree(line);
      assertThat(n.get("curve").asText()).isNotBlank();
      onFront += n.get("front").asBoolean() ? 1 : 0;
    }
    assertThat(onFront).isPositive();
  }
}
