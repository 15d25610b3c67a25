package dev.ddpkit.chat.server;

import dev.ddpkit.chat.protocol.CallLimit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rocket.Chat's default DDP rate limits on the embedded server, in process and on virtual time:
 * each rule refuses the call past its allowance with Meteor's {@code too-many-requests} and lets
 * calls through again once its fixed window is over.
 */
@Timeout(value = 30, unit = SECONDS)
class DdpRateLimitsTest {
  @TempDir Path dir;
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private InProcessServer server;

  private InProcessServer start(UnaryOperator<ChatServerBuilder> tweak) {
    server = new InProcessServer(dir, b -> tweak.apply(b.ticker(nanos::get)));
    for (String u : new String[] {"alice", "bob"}) {
      server.createUser(u, u + "-pw");
    }
    server.createRoom("general", "alice", "bob");
    return server;
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  private static JsonNode badLogin() {
    return DdpPeer.JSON.createObjectNode(); // error-invalid-params: no failed login recorded
  }

  @Test
  void theDefaultsAreRocketChats() {
    assertThat(ChatServer.builder().rateLimits).isEqualTo(RateLimits.rocketChatDefaults());
    RateLimits d = RateLimits.rocketChatDefaults();
    assertThat(d.login()).isEqualTo(new CallLimit(5, Duration.ofSeconds(10)));
    assertThat(d.perMethod()).isEqualTo(new CallLimit(10, Duration.ofSeconds(10)));
    assertThat(d.streamSubscriptions()).isEqualTo(new CallLimit(40, Duration.ofSeconds(10)));
    assertThat(d.sendMessagePerUser()).isEqualTo(new CallLimit(5, Duration.ofSeconds(1)));
  }

  @Test
  void loginIsFiveCallsPerTenSecondsPerConnectionWhileLoggedOut() {
    start(b -> b);
    InProcessPeer p = InProcessPeer.connect(server);
    for (int i = 0; i < 5; i++) {
      assertThat(p.call("login", badLogin()).path("error").path("error").asText())
          .isEqualTo("error-invalid-params");
    }
    advance(Duration.ofMillis(2500));
    JsonNode e = p.call("login", DdpPeer.loginParams("alice", "alice-pw")).path("error");
    assertThat(e.path("error").asText()).isEqualTo("too-many-requests");
    assertThat(e.path("reason").asText()).isEqualTo(
        "Error, too many requests. Please slow down. You must wait 8 seconds before trying again.");
    assertThat(e.path("details").path("timeToReset").asLong()).isEqualTo(7500);
    assertThat(server.counters.rateLimited.get()).isEqualTo(1);

    // Per connection: another one logs in.
    assertThat(InProcessPeer.connect(server)
        .call("login", DdpPeer.loginParams("alice", "alice-pw")).has("result")).isTrue();
    advance(Duration.ofMillis(7500));
    assertThat(p.call("login", DdpPeer.loginParams("alice", "alice-pw")).has("result")).isTrue();
  }

  @Test
  void loginCallsOfALoggedInConnectionAreNotCountedByTheLoginRule() {
    start(b -> b);
    InProcessPeer p = InProcessPeer.loggedIn(server, "alice");
    for (int i = 0; i < 9; i++) {
      assertThat(p.call("login", DdpPeer.loginParams("alice", "alice-pw")).has("result"))
          .as("login %d", i + 2).isTrue();
    }
    // ...but by the per-method rule: the 11th login on the connection.
    assertThat(p.call("login", DdpPeer.loginParams("alice", "alice-pw"))
        .path("error").path("error").asText()).isEqualTo("too-many-requests");
  }

  @Test
  void anyOneMethodIsTenCallsPerTenSecondsPerConnection() {
    start(b -> b);
    InProcessPeer p = InProcessPeer.loggedIn(server, "alice");
    for (int i = 0; i < 10; i++) {
      assertThat(p.call("loadHistory", "general", null, 5, null).has("result")).isTrue();
    }
    advance(Duration.ofSeconds(4));
    JsonNode e = p.call("loadHistory", "general", null, 5, null).path("error");
    assertThat(e.path("error").asText()).isEqualTo("too-many-requests");
    assertThat(e.path("details").path("timeToReset").asLong()).isEqualTo(6000);
    // Another method, or the same on another connection, is not held back.
    assertThat(p.call("loadMissedMessages", "general", DdpPeer.date(0)).has("result")).isTrue();
    assertThat(InProcessPeer.loggedIn(server, "alice")
        .call("loadHistory", "general", null, 5, null).has("result")).isTrue();
    advance(Duration.ofSeconds(6));
    assertThat(p.call("loadHistory", "general", null, 5, null).has("result")).isTrue();
  }

  /** Meteor's window is fixed per rule: it does not slide, so a burst at its end and one at the
   * start of the next both get through. */
  @Test
  void theWindowIsFixedNotSliding() {
    start(b -> b);
    InProcessPeer p = InProcessPeer.loggedIn(server, "alice");
    advance(Duration.ofMillis(9_900));
    for (int i = 0; i < 10; i++) {
      assertThat(p.call("loadHistory", "general", null, 1, null).has("result")).isTrue();
    }
    assertThat(p.call("loadHistory", "general", null, 1, null).path("error").path("details")
        .path("timeToReset").asLong()).isEqualTo(100);
    advance(Duration.ofMillis(100));
    for (int i = 0; i < 10; i++) {
      assertThat(p.call("loadHistory", "general", null, 1, null).has("result")).isTrue();
    }
  }

  @Test
  void streamSubscriptionsAreFortyPerTenSecondsPerConnection() {
    start(b -> b);
    InProcessPeer p = InProcessPeer.loggedIn(server, "alice");
    for (int i = 0; i < 40; i++) {
      assertThat(p.subscribe("general").path("msg").asText()).isEqualTo("ready");
    }
    JsonNode nosub = p.subscribe("general");
    assertThat(nosub.path("msg").asText()).isEqualTo("nosub");
    assertThat(nosub.path("error").path("error").asText()).isEqualTo("too-many-requests");
    assertThat(nosub.path("error").path("details").path("timeToReset").asLong())
        .isEqualTo(10_000);
    assertThat(InProcessPeer.loggedIn(server, "bob").subscribe("general").path("msg").asText())
        .isEqualTo("ready");
    advance(Duration.ofSeconds(10));
    assertThat(p.subscribe("general").path("msg").asText()).isEqualTo("ready");
  }

  @Test
  void eachStreamNameHasItsOwnFortyPerTenSeconds() {
    start(b -> b);
    InProcessPeer p = InProcessPeer.loggedIn(server, "alice");
    for (int i = 0; i < 40; i++) {
      assertThat(p.subscribe("general").path("msg").asText()).isEqualTo("ready");
    }
    assertThat(p.subscribe("general").path("error").path("error").asText())
        .isEqualTo("too-many-requests");
    // Rocket.Chat's streamer counts stream-notify-room on its own: its 40 are all still there.
    for (int i = 0; i < 40; i++) {
      assertThat(p.subscribe("stream-notify-room", "general/deleteMessage").path("msg").asText())
          .isEqualTo("ready");
    }
    assertThat(p.subscribe("stream-notify-room", "general/deleteMessage").path("error")
        .path("error").asText()).isEqualTo("too-many-requests");
  }

  @Test
  void sendMessageIsFivePerSecondPerUserAcrossConnections() {
    start(b -> b);
    InProcessPeer one = InProcessPeer.loggedIn(server, "alice");
    InProcessPeer two = InProcessPeer.loggedIn(server, "alice");
    for (int i = 0; i < 5; i++) {
      InProcessPeer p = i % 2 == 0 ? one : two;
      assertThat(p.call("sendMessage", DdpPeer.message("a" + i, "general", "hi")).has("result"))
          .isTrue();
    }
    JsonNode e = two.call("sendMessage", DdpPeer.message("a5", "general", "hi")).path("error");
    assertThat(e.path("error").asText()).isEqualTo("too-many-requests");
    assertThat(e.path("details").path("timeToReset").asLong()).isEqualTo(1000);
    assertThat(InProcessPeer.loggedIn(server, "bob")
        .call("sendMessage", DdpPeer.message("b0", "general", "hi")).has("result")).isTrue();
    advance(Duration.ofSeconds(1));
    assertThat(one.call("sendMessage", DdpPeer.message("a6", "general", "hi")).has("result"))
        .isTrue();
    assertThat(server.store.reads().messageCount("general")).isEqualTo(7);
  }

  @Test
  void noneLetsEverythingThrough() {
    start(b -> b.rateLimits(RateLimits.none()));
    InProcessPeer p = InProcessPeer.loggedIn(server, "alice");
    for (int i = 0; i < 30; i++) {
      assertThat(p.call("sendMessage", DdpPeer.message("n" + i, "general", "hi")).has("result"))
          .isTrue();
    }
    assertThat(server.counters.rateLimited.get()).isZero();
  }

  @Test
  void oneRuleCanBeChangedOrLifted() {
    start(b -> b.rateLimits(RateLimits.parse("send=2/1s,method=off")));
    InProcessPeer p = InProcessPeer.loggedIn(server, "alice");
    assertThat(p.call("sendMessage", DdpPeer.message("x0", "general", "hi")).has("result")).isTrue();
    assertThat(p.call("sendMessage", DdpPeer.message("x1", "general", "hi")).has("result")).isTrue();
    assertThat(p.call("sendMessage", DdpPeer.message("x2", "general", "hi"))
        .path("error").path("error").asText()).isEqualTo("too-many-requests");
    for (int i = 0; i < 15; i++) {
      assertThat(p.call("loadHistory", "general", null, 1, null).has("result")).isTrue();
    }
  }

  @Test
  void parseReadsTheServeFlag() {
    assertThat(RateLimits.parse("on")).isEqualTo(RateLimits.rocketChatDefaults());
    assertThat(RateLimits.parse("OFF")).isEqualTo(RateLimits.none());
    RateLimits r = RateLimits.parse("login=3/5s, stream=off, send=10/500ms");
    assertThat(r.login()).isEqualTo(new CallLimit(3, Duration.ofSeconds(5)));
    assertThat(r.streamSubscriptions()).isNull();
    assertThat(r.sendMessagePerUser()).isEqualTo(new CallLimit(10, Duration.ofMillis(500)));
    assertThat(r.perMethod()).isEqualTo(RateLimits.rocketChatDefaults().perMethod());
    assertThatThrownBy(() -> RateLimits.parse("chat=1/1s")).hasMessageContaining("unknown");
    assertThatThrownBy(() -> RateLimits.parse("login=5")).hasMessageContaining("CALLS/WINDOW");
    assertThatThrownBy(() -> RateLimits.parse("login=5/10m")).hasMessageContaining("s or ms");
    assertThatThrownBy(() -> RateLimits.parse("login=0/1s")).hasMessageContaining("calls");
  }

  @Test
  void builderRefusesNulls() {
    assertThatThrownBy(() -> ChatServer.builder().rateLimits(null))
        .hasMessageContaining("rateLimits");
    assertThatThrownBy(() -> ChatServer.builder().ticker(null)).hasMessageContaining("ticker");
  }
}
