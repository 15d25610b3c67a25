package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.server.InProcessServer.FakeConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server keeps the admission's peak limit: a connection admitted when the accept rate's worth
 * already started in the last second is held, its frames kept, and served (in order) when the
 * hold is over; nothing it sent is lost, and a connection that closes, floods, or meets a drain
 * meanwhile is never served. The admission runs on a hand-moved ticker; holds run on the server's
 * real timer (under a second each).
 */
@Timeout(value = 30, unit = SECONDS)
class HeldConnectionTest {
  private static final String CONNECT = "{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}";

  @TempDir Path dir;
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private InProcessServer server;

  @BeforeEach
  void start() {
    // 10 a second, burst 10; idle for 10 s, so the bucket is full.
    server = new InProcessServer(dir, b -> b.ticker(nanos::get).acceptRate(10));
    advance(10_000);
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  private void advance(long millis) {
    nanos.addAndGet(Duration.ofMillis(millis).toNanos());
  }

  /** Lets the bucket's 10 in at once, then, 100 ms later, one more: held 900 ms. */
  private FakeConnection held() {
    for (int i = 0; i < 10; i++) {
      assertThat(server.open().sent()).as("admitted at once: greeted").hasSize(1);
    }
    advance(100);
    return server.open();
  }

  @Test
  void aHeldConnectionIsServedAfterItsHoldWithEveryFrameItSentMeanwhileInOrder() {
    long before = System.nanoTime();
    FakeConnection c = held();
    server.text(c, CONNECT);
    server.text(c, "{\"msg\":\"ping\",\"id\":\"p1\"}");

    assertThat(c.closeCode).as("admitted, not turned away").isZero();
    assertThat(c.sent()).as("not served yet: no greeting, no answer").isEmpty();
    assertThat(server.counters.connectionsOpened.get()).isEqualTo(10);

    await().atMost(Duration.ofSeconds(10)).until(() -> c.sent().size() == 3);
    assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(
        Duration.ofMillis(900));
    assertThat(c.sent().get(0)).contains("server_id");
    assertThat(c.sent().get(1)).contains("\"msg\":\"connected\"");
    assertThat(c.sent().get(2)).contains("\"msg\":\"pong\"").contains("p1");
    assertThat(server.counters.connectionsOpened.get()).isEqualTo(11);
    // Served now: a frame goes straight through.
    server.text(c, "{\"msg\":\"ping\",\"id\":\"p2\"}");
    assertThat(c.sent()).hasSize(4);
    assertThat(c.sent().get(3)).contains("p2");
  }

  @Test
  void aConnectionClosedWhileHeldIsNeverServed() throws Exception {
    FakeConnection gone = held();
    server.text(gone, CONNECT);
    server.closed(gone, 1000, true);

    server.awaitTimer(Duration.ofMillis(950)); // past the end of its 900 ms hold

    assertThat(server.counters.connectionsOpened.get()).isEqualTo(10);
    assertThat(server.handler.sessions()).hasSize(10);
    assertThat(gone.sent()).isEmpty();
  }

  @Test
  void noFrameIsHandledAndNoSocketClosedUnderTheHoldsLock() {
    FakeConnection c = held();
    server.text(c, CONNECT);
    server.text(c, "not json"); // kept; handled after the hold, it closes the socket (1002)

    await().atMost(Duration.ofSeconds(10)).until(() -> c.closeCode != 0);
    assertThat(c.closeCode).isEqualTo(1002);
    assertThat(c.sent().get(0)).contains("server_id");
    assertThat(c.sent().get(1)).contains("\"msg\":\"connected\"");
    assertThat(c.calledUnderHoldLock).isFalse();
  }

  @Test
  void aPeerThatFloodsWhileHeldIsClosed() {
    FakeConnection c = held();
    for (int i = 0; i < Hold.MAX_FRAMES; i++) {
      server.text(c, "{\"msg\":\"ping\"}");
    }
    assertThat(c.closeCode).as("up to the limit, kept").isZero();

    server.text(c, "{\"msg\":\"ping\"}");

    assertThat(c.closeCode).isEqualTo(1008);
    assertThat(server.counters.protocolErrors.get()).isEqualTo(1);
  }

  @Test
  void aConnectionHeldWhenTheServerStartsToDrainIsTurnedAwayWithTheDrainsAppointment() {
    FakeConnection c = held();
    server.text(c, CONNECT);
    server.handler.mode(Arrivals.Mode.DRAINING, () -> "service restart; retry-after=4000");

    // At once, not when the hold would have ended: a planned restart gives it its appointment.
    assertThat(c.closeCode).isEqualTo(1012);
    await().atMost(Duration.ofSeconds(10)).until(() -> c.closeCode != 0);
    assertThat(c.closeCode).isEqualTo(1012);
    assertThat(c.closeReason).isEqualTo("service restart; retry-after=4000");
    assertThat(c.sent()).isEmpty();
    assertThat(server.counters.connectionsOpened.get()).isEqualTo(10);
  }

  @Test
  void aConnectionHeldWhenTheServerIsKilledIsDroppedAtOnce() throws Exception {
    FakeConnection c = held();
    server.text(c, CONNECT);

    server.handler.mode(Arrivals.Mode.KILLED, () -> "killed");

    assertThat(c.closed).as("dropped, no close frame").isTrue();
    assertThat(c.closeCode).isEqualTo(1006);
    server.awaitTimer(Duration.ofMillis(950)); // the hold's own end finds it over
    assertThat(c.sent()).isEmpty();
    assertThat(server.counters.connectionsOpened.get()).isEqualTo(10);
  }
}
