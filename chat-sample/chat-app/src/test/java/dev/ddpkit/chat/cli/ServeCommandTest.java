package dev.ddpkit.chat.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.server.DdpPeer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = SECONDS)
class ServeCommandTest {
  @TempDir Path dir;

  @Test
  void badArgumentsPrintUsageAndReturn2() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThat(ServeCommand.run(new String[] {"--port", "x"}, out, errStream,
        new CountDownLatch(0))).isEqualTo(2);
    assertThat(ServeCommand.run(new String[] {"--port", "0"}, out, errStream,
        new CountDownLatch(0))).isEqualTo(2);
    assertThat(ServeCommand.run(new String[] {"--bogus"}, out, errStream,
        new CountDownLatch(0))).isEqualTo(2);
    assertThat(ServeCommand.run(new String[] {"--rate-limits", "chat=1/1s"}, out, errStream,
        new CountDownLatch(0))).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage: serve")
        .contains("dataDir is required").contains("unknown argument: --bogus")
        .contains("unknown rate limit rule").contains("--rate-limits on|off");
  }

  @Test
  void servesSeededDataUntilStoppedThenDrains() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
    CountDownLatch stop = new CountDownLatch(1);
    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> ServeCommand.run(
        new String[] {"--port", "0", "--data", dir.toString(), "--seed-demo", "--drain-ms", "0",
            "--heartbeat-ms", "10000", "--accept-rate", "100",
            "--rate-limits", "login=5/10s,send=off"}, out, out, stop));
    Pattern url = Pattern.compile("listening on (ws://\\S+)");
    Awaitility.await().atMost(10, SECONDS)
        .until(() -> url.matcher(buf.toString(StandardCharsets.UTF_8)).find());
    Matcher m = url.matcher(buf.toString(StandardCharsets.UTF_8));
    assertThat(m.find()).isTrue();
    try (DdpPeer p = DdpPeer.loggedIn(m.group(1), "carol", "carol-pw")) {
      stop.countDown();
      assertThat(exit.get(10, SECONDS)).isZero();
      assertThat(p.awaitClose()).isEqualTo(1012);
    }
    assertThat(buf.toString(StandardCharsets.UTF_8)).contains("seeded users")
        .contains("chat server stopped");
  }

  @Test
  void restartInMakesTheDrainAPlannedRestartByAppointment() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
    CountDownLatch stop = new CountDownLatch(1);
    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> ServeCommand.run(
        new String[] {"--port", "0", "--data", dir.toString(), "--seed-demo",
            "--accept-rate", "100", "--restart-in-ms", "1500"}, out, out, stop));
    Pattern url = Pattern.compile("listening on (ws://\\S+)");
    Awaitility.await().atMost(10, SECONDS)
        .until(() -> url.matcher(buf.toString(StandardCharsets.UTF_8)).find());
    Matcher m = url.matcher(buf.toString(StandardCharsets.UTF_8));
    assertThat(m.find()).isTrue();
    try (DdpPeer p = DdpPeer.connect(m.group(1))) {
      stop.countDown();
      assertThat(exit.get(10, SECONDS)).isZero();
      assertThat(p.awaitClose()).isEqualTo(1012);
      // The first in the queue: 1500 ms + 1/100 s, less the moments the close took.
      Matcher hint = Pattern.compile("retry-after=(\\d+)").matcher(p.closeReason);
      assertThat(hint.find()).as("reason %s", p.closeReason).isTrue();
      assertThat(Long.parseLong(hint.group(1))).isBetween(1000L, 1510L);
    }
    assertThat(buf.toString(StandardCharsets.UTF_8)).contains("planned restart");
  }

  @Test
  void maxSocketsPerAddressRefusesTheSocketPastTheCapWith1013() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
    CountDownLatch stop = new CountDownLatch(1);
    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> ServeCommand.run(
        new String[] {"--port", "0", "--data", dir.toString(), "--drain-ms", "0",
            "--max-sockets-per-address", "1", "--upgrade-timeout-ms", "2000"}, out, out, stop));
    Pattern url = Pattern.compile("listening on (ws://\\S+)");
    Awaitility.await().atMost(10, SECONDS)
        .until(() -> url.matcher(buf.toString(StandardCharsets.UTF_8)).find());
    Matcher m = url.matcher(buf.toString(StandardCharsets.UTF_8));
    assertThat(m.find()).isTrue();
    try (DdpPeer first = DdpPeer.connect(m.group(1)); DdpPeer second = DdpPeer.open(m.group(1))) {
      assertThat(second.awaitClose()).isEqualTo(1013);
      assertThat(second.closeReason).contains("the cap is 1");
      stop.countDown();
      assertThat(exit.get(10, SECONDS)).isZero();
    }
  }
}
