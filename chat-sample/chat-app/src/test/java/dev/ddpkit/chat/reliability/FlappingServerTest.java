package dev.ddpkit.chat.reliability;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.testserver.Counter;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that accepts, completes the WebSocket upgrade and the DDP handshake, then drops the
 * connection at once, for a minute of real time: a client with the default reconnection (the RFC
 * curve, stable after 10 s) must back off along the curve, not redial in a hot loop. The same rule
 * is covered in virtual time by the ReconnectionManager's unit tests; this is the real-socket proof.
 */
class FlappingServerTest {
  private static final Duration WINDOW = Duration.ofSeconds(60);

  @Test
  @Timeout(value = 100, unit = SECONDS)
  void aServerThatAcceptsThenDropsIsDialedNoMoreOftenThanTheRfcCurveAllows() {
    Backoff curve = Backoff.rfc();
    int upperBound = dialsWithin(WINDOW, curve, 0.0, Duration.ZERO);
    // At the top of the jitter, with a generous second per attempt for dialing and handshaking.
    int lowerBound = dialsWithin(WINDOW, curve, 0.999_999, Duration.ofSeconds(1));

    List<Long> drops = new CopyOnWriteArrayList<>(); // server side, each right after `connected`
    List<ReconnectStatus> waits = new CopyOnWriteArrayList<>();
    try (TestDdpServer server = TestDdpServer.start()) {
      // The client's first call (re-sent after every reconnect) is the drop signal: the server has
      // sent `connected`, the client has answered, the connection is complete; drop it now.
      server.onMethod("hello", call -> {
        drops.add(System.nanoTime());
        call.connection().closeAbruptly();
      });
      try (DdpClient client = DdpClient.builder().url(server.uri()).name("flapping-client").build()) {
        client.reconnectionManager().addListener(s -> {
          // One entry per attempt (a status can be re-published while waiting).
          if (s.state() == ReconnectionManager.State.WAITING
              && (waits.isEmpty() || waits.get(waits.size() - 1).attempt() != s.attempt())) {
            waits.add(s);
          }
        });
        client.call("hello");
        client.connect();
        await("the first connection").atMost(10, SECONDS).until(() -> !drops.isEmpty());
        long start = drops.get(0);
        // The scenario's clock: the client must keep retrying (never give up) for the window.
        await("the client to keep retrying for " + WINDOW).during(WINDOW)
            .atMost(WINDOW.plusSeconds(10))
            .until(() -> client.status().state() != DdpStatus.State.FAILED);

        List<Long> inWindow = new ArrayList<>();
        for (long t : drops) {
          if (t - start <= WINDOW.toNanos()) {
            inWindow.add(t);
          }
        }
        System.out.printf("flapping server: %d connections in %s (curve allows %d..%d), sessions %d,"
                + " waits %s%n", inWindow.size(), WINDOW, lowerBound, upperBound,
            server.count(Counter.SESSIONS), describe(waits));
        assertThat(inWindow.size()).as("connections within %s", WINDOW)
            .isBetween(lowerBound, upperBound);

        for (int k = 1; k < drops.size(); k++) {
          Duration gap = Duration.ofNanos(drops.get(k) - drops.get(k - 1));
          assertThat(gap).as("time between connection %d and %d", k, k + 1)
              .isGreaterThanOrEqualTo(curve.delay(k, 0.0));
        }
        for (int k = 0; k < waits.size(); k++) {
          ReconnectStatus w = waits.get(k);
          assertThat(w.attempt()).as("the counter never resets on open (wait %d)", k + 1)
              .isEqualTo(k + 1);
          assertThat(w.delay()).as("delay before attempt %d", k + 1)
              .isBetween(curve.delay(k + 1, 0.0), curve.delay(k + 1, 0.999_999));
        }
      }
    }
  }

  /**
   * How many dials fit in {@code window} if the first is at 0 and each retry waits the curve's
   * delay at {@code sample} plus {@code overhead}.
   */
  static int dialsWithin(Duration window, Backoff curve, double sample, Duration overhead) {
    Duration t = Duration.ZERO;
    int dials = 1;
    for (int attempt = 1; ; attempt++) {
      t = t.plus(curve.delay(attempt, sample)).plus(overhead);
      if (t.compareTo(window) > 0) {
        return dials;
      }
      dials++;
    }
  }

  private static String describe(List<ReconnectStatus> waits) {
    List<String> parts = new ArrayList<>();
    for (ReconnectStatus w : waits) {
      parts.add("#" + w.attempt() + " " + w.delay().toMillis() + " ms");
    }
    return parts.toString();
  }
}
