package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server on virtual time: its ticker, scheduler and clock are one {@link VirtualScheduler},
 * so a test steps through a heartbeat timeout, a token's expiry and a held session's grace
 * without waiting, and nothing happens between the steps.
 */
class ServerOnVirtualTimeTest {
  private static final long START_MILLIS = 1_800_000_000_000L;

  @TempDir Path dir;
  private final VirtualScheduler time = new VirtualScheduler();
  private InProcessServer server;

  @BeforeEach
  void start() {
    server = new InProcessServer(dir, b -> b.ticker(time).scheduler(time).clock(clockOf(time))
        .heartbeatInterval(Duration.ofSeconds(10)).heartbeatTimeout(Duration.ofSeconds(5))
        .tokenTtl(Duration.ofHours(1)));
    server.handler.startHeartbeat();
    server.createUser("alice", "alice-pw");
    server.createRoom("general", "alice");
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  @Test
  void aQuietConnectionIsPingedAtTheIntervalAndClosedWhenThePingGoesUnanswered() {
    InProcessPeer peer = InProcessPeer.connect(server);

    // The heartbeat runs every second (a quarter of the shorter of 10 s and 5 s, at most 1 s).
    time.advance(Duration.ofMillis(9_999));
    assertThat(peer.frames("ping")).isEmpty();
    time.advance(Duration.ofMillis(1)); // 10 s quiet: the ping
    assertThat(peer.frames("ping")).hasSize(1);
    assertThat(peer.conn.closeCode).isZero();

    time.advance(Duration.ofMillis(4_999)); // not yet 5 s since the ping
    assertThat(peer.conn.closeCode).isZero();
    time.advance(Duration.ofMillis(1));
    assertThat(peer.conn.closeCode).isEqualTo(1000);
    assertThat(server.counters.heartbeatTimeouts.get()).isEqualTo(1);
  }

  @Test
  void anAnsweredPingKeepsTheConnection() {
    InProcessPeer peer = InProcessPeer.connect(server);
    for (int i = 1; i <= 5; i++) {
      time.advance(Duration.ofSeconds(11));
      assertThat(peer.frames("ping")).hasSize(i);
      server.text(peer.conn, "{\"msg\":\"pong\"}");
    }
    assertThat(peer.conn.closeCode).isZero();
    assertThat(server.counters.heartbeatTimeouts.get()).isZero();
  }

  @Test
  void aResumeTokenWorksUntilItsLifetimeIsOverThenIsRefused() {
    String token = server.issueToken("alice");

    time.advance(Duration.ofMinutes(59));
    assertThat(resume(token).has("error")).as("a token 59 min old").isFalse();

    time.advance(Duration.ofMinutes(2));
    JsonNode refused = resume(token);
    assertThat(refused.path("error").path("error").asInt()).isEqualTo(403);
  }

  @Test
  void aConnectionThatNeverSaysConnectIsClosedAfterTheIntervalAndTimeout() {
    InProcessServer.FakeConnection silent = server.open();

    time.advance(Duration.ofMillis(14_999)); // 10 s interval + 5 s timeout, less 1 ms
    assertThat(silent.closeCode).isZero();
    time.advance(Duration.ofMillis(1));
    assertThat(silent.closeCode).isEqualTo(1000);
  }

  @Test
  void aDroppedSessionIsHeldForItsGraceThenEnds() {
    InProcessPeer peer = InProcessPeer.loggedIn(server, "alice");
    server.closed(peer.conn, 1006, /* remote= */ true);
    assertThat(server.handler.heldSessions()).isEqualTo(1);

    time.advance(Duration.ofMillis(14_999)); // the default grace is 15 s
    assertThat(server.handler.heldSessions()).as("held within its grace").isEqualTo(1);
    assertThat(server.counters.sessionsExpired.get()).isZero();
    time.advance(Duration.ofMillis(1));
    assertThat(server.handler.heldSessions()).isZero();
    assertThat(server.counters.sessionsExpired.get()).isEqualTo(1);
  }

  private JsonNode resume(String token) {
    InProcessPeer peer = InProcessPeer.connect(server);
    JsonNode r = peer.call("login", Map.of("resume", token));
    time.advance(Duration.ZERO);
    return r;
  }

  /** A wall clock on the scheduler's virtual time, from {@link #START_MILLIS}. */
  private static Clock clockOf(VirtualScheduler time) {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Instant instant() {
        return Instant.ofEpochMilli(START_MILLIS + time.now().toMillis());
      }
    };
  }
}
