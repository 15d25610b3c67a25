package dev.ddpkit.chat.demo;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.cli.Main;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README's main command, {@code demo}, run in-process through {@link Main} at a small size: 20
 * clients, a 0.5 s outage, 1 s phases. It must end with exit 0 and its OK line, and leave no
 * server or socket thread behind.
 */
class DemoSmokeTest {
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void aSmallDemoEndsOkWithExitZero() {
    String printed = runOk("demo", "--clients", "20", "--rooms", "2", "--down-ms", "500",
        "--before-kill-ms", "1000", "--after-restart-ms", "1000", "--rate", "20");
    assertThat(printed).contains("RESULT: OK - nothing lost, nothing duplicated");
    // Issue 19: writers also edit and delete, and every view must end equal to the server's.
    assertThat(printed).contains("views equal to the server's: 20 / 20")
        .containsPattern("edits asked for +[1-9]").containsPattern("deletions asked for +[1-9]")
        .contains("deleted messages still shown       0");
    // The accounting sets the all-back time against the least the accept rate allows.
    assertThat(printed).containsPattern("all back [0-9.]+ s after the restart: limit N/C = 20/100/s"
        + " = 0\\.2 s \\([0-9.]+x\\); [0-9.]+ s after the kill: limit D \\+ N/C");
    // By default the demo first restarts as planned: every client told when to come back.
    assertThat(printed).contains("planned restart: the server closed its 20 connections with 1012")
        .containsPattern("planned restart: all back [0-9.]+ s after the restart: limit N/C ="
            + " 20/100/s = 0\\.2 s \\([0-9.]+x\\); [0-9.]+ s after the stop: limit D \\+ N/C")
        .contains("reconnect wave after the planned restart")
        .contains("reconnect wave after the hard kill");
    await("the demo's server and socket threads to end").atMost(15, SECONDS)
        .until(() -> leftoverThreads().isEmpty());
  }

  /**
   * {@code --restart warm}: a hard kill whose next server listens at once and warms up for the
   * downtime (3 s: the RFC curve's first retry, 1 to 1.5 s, falls in it). Every client that dials
   * meanwhile is booked; all come back, nothing lost.
   */
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void aKillWhoseNextServerWarmsUpBooksTheDialsAndEndsOk() {
    String printed = runOk("demo", "--clients", "20", "--rooms", "2", "--down-ms", "3000",
        "--before-kill-ms", "1000", "--after-restart-ms", "1000", "--rate", "20", "--restart",
        "warm");
    assertThat(printed).contains("RESULT: OK - nothing lost, nothing duplicated")
        .contains("a new server listens on port")
        .containsPattern("during the warm-up \\([0-9.]+ s\\): [1-9][0-9]* dials turned away")
        .containsPattern("hard kill, next server warming up: all back [0-9.]+ s after the restart")
        .doesNotContain("reconnect wave after the planned restart");
    await("the demo's server and socket threads to end").atMost(15, SECONDS)
        .until(() -> leftoverThreads().isEmpty());
  }

  /**
   * Runs the demo with {@code args} through the jar's entry point; asserts exit 0 and an empty
   * stderr, and returns stdout.
   */
  private static String runOk(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Main.run(args, new ByteArrayInputStream(new byte[0]), o, e);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("exit status; stdout:%n%s%nstderr:%n%s", printed,
        err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    return printed;
  }

  private static List<String> leftoverThreads() {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String n = t.getName();
      if (t.isAlive() && (n.startsWith("chat-server-") || n.startsWith("demo-")
          || n.startsWith("WebSocketConnectReadThread")
          || n.startsWith("WebSocketWriteThread"))) {
        names.add(n);
      }
    }
    return names;
  }
}
