package dev.ddpkit.ddp.fuzz;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing (Jazzer) of the client's message handling: a client on the in-memory
 * transport and virtual time ({@link StormClient}: connected, two pending calls, two
 * subscriptions, one of them ready, two stored documents) gets the fuzzer's frames from the
 * "server", mixed with socket and API events. Afterwards, as in {@link ClientFrameStormFuzzTest}:
 * nothing was logged at ERROR (where the event loop reports a task that threw), no protocol error
 * is an internal error, the client still works (it redials, and a fresh call round-trips), and
 * after {@code close()} every future the test made is complete.
 *
 * <p>An input is UTF-8 text, one step per line (at most {@value #MAX_STEPS}). A line is a frame
 * sent on the latest socket, with {@code $MID}, {@code $SUB} and {@code $DOC} replaced by the id of
 * a call, a subscription and a document the client knows; or an event, a {@code !} and a letter:
 * {@code !o} the latest socket opens, {@code !c<code>} the server closes it, {@code !l} a late
 * close of an earlier socket, {@code !t<ms>} time passes, {@code !m}/{@code !n}/{@code !w} a
 * call (plain, no-retry, wait), {@code !s} subscribe, {@code !u} stop a subscription, {@code !h} a
 * health check, {@code !a} network available, {@code !x<frame>} a frame on an earlier socket.
 * Each input runs twice: with the tolerant default and in strict mode.
 *
 * <p>Without {@code JAZZER_FUZZ} (the CI build) it runs once per committed input under {@code
 * src/test/resources/dev/ddpkit/ddp/fuzz/ClientHandlingJazzerTestInputs/<method>/}; {@code
 * scripts/fuzz-jazzer.sh} fuzzes it.
 */
class ClientHandlingJazzerTest {
  static final int MAX_STEPS = 64;
  private static final List<Integer> CLOSE_CODES =
      List.of(1000, 1001, 1002, 1003, 1006, 1008, 1009, 1011, 1012, 1013, 4000, 4401, 4999);

  /** The fuzzer's frames and events never break the client nor leave a future hanging. */
  @FuzzTest(maxDuration = "10m")
  // Per input; the first also pays the JVM and Jazzer warm-up (8 s seen under load).
  @Timeout(value = 30, unit = SECONDS)
  void serverFramesNeverBreakTheClient(byte[] input) {
    List<String> steps = new String(input, StandardCharsets.UTF_8).lines()
        .limit(MAX_STEPS).toList();
    run(steps, /* strict= */ false);
    run(steps, /* strict= */ true);
  }

  private static void run(List<String> steps, boolean strict) {
    StormClient c = new StormClient("jazzer-client", Runnable::run, strict);
    try {
      c.setUp();
      int i = 0;
      for (String step : steps) {
        apply(c, step, i++);
      }
      assertThat(c.errorLines()).as("errors logged during the steps").isEmpty();
      assertThat(c.client.stats().lastProtocolError()).doesNotStartWith("internal error");
      c.assertStillWorks();
      c.close();
      c.assertEveryFutureComplete();
      assertThat(c.errorLines()).as("errors logged after the steps").isEmpty();
    } finally {
      c.close(); // idempotent; also when an assertion failed
    }
  }

  private static void apply(StormClient c, String step, int pick) {
    if (!step.startsWith("!") || step.length() < 2) {
      c.frame(c.resolve(step, pick));
      return;
    }
    String arg = step.substring(2);
    switch (step.charAt(1)) {
      case 'o' -> c.net.last().open();
      case 'c' -> c.net.last().closeFromServer(code(arg, pick), "fuzz");
      case 'l' -> {
        List<ServerEnd> all = c.net.connections();
        all.get(pick % all.size()).lateClose(code(arg, pick), "late");
      }
      case 't' -> c.time.advance(Duration.ofMillis(1 + Math.floorMod(number(arg), 120_000)));
      case 'm' -> c.call(CallOptions.DEFAULT);
      case 'n' -> c.call(CallOptions.DEFAULT.withNoRetry(true));
      case 'w' -> c.call(CallOptions.WAIT);
      case 's' -> c.subscribe();
      case 'u' -> c.subs.get(pick % c.subs.size()).stop();
      case 'h' -> c.checkHealth();
      case 'a' -> c.client.networkAvailable();
      case 'x' -> c.frameOnOld(c.resolve(arg, pick), pick);
      default -> c.frame(c.resolve(step, pick));
    }
  }

  /** The close code written after the letter if there is one, else one of the usual ones. */
  private static int code(String arg, int pick) {
    long n = number(arg);
    return n >= 1000 && n <= 4999 ? (int) n : CLOSE_CODES.get(pick % CLOSE_CODES.size());
  }

  private static long number(String arg) {
    long n = 0;
    for (int i = 0; i < arg.length() && i < 9 && Character.isDigit(arg.charAt(i)); i++) {
      n = n * 10 + Character.digit(arg.charAt(i), 10);
    }
    return n;
  }
}
