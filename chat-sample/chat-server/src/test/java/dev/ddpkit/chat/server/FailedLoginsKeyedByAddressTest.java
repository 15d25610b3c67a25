package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression (issue 23): failed logins were limited per username from any address, so 5 wrong
 * passwords every 10 s from anywhere kept alice out. Now every limit is keyed by the address the
 * guesses come from: the guesser is slowed, alice from elsewhere logs in at once. On virtual time:
 * the limiter reads the server's ticker, and nothing moves between the steps.
 */
class FailedLoginsKeyedByAddressTest {
  @TempDir Path dir;
  private final VirtualScheduler time = new VirtualScheduler();
  private InProcessServer server;
  private InetAddress attacker;
  private InetAddress home;

  @BeforeEach
  void start() throws Exception {
    // The failed-login limits on their own: the DDP login limit (5 calls per 10 s) would answer first.
    server = new InProcessServer(dir, b -> b.ticker(time).scheduler(time)
        .rateLimits(RateLimits.none()));
    server.createUser("alice", "alice-pw");
    server.createUser("bob", "bob-pw");
    attacker = InetAddress.getByName("203.0.113.7");
    home = InetAddress.getByName("198.51.100.2");
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  @Test
  void anAddressGuessingAlicesPasswordIsThrottledAndAliceFromAnotherLogsInAtOnce() {
    InProcessPeer guesser = InProcessPeer.connectFrom(server, attacker);
    for (int i = 0; i < 5; i++) {
      assertThat(error(login(guesser, "alice", "guess" + i)).path("error").asInt()).isEqualTo(403);
    }
    JsonNode refused = error(login(guesser, "alice", "alice-pw"));
    assertThat(refused.path("error").asText()).isEqualTo("too-many-requests");
    assertThat(refused.path("details").path("timeToReset").asLong()).isEqualTo(10_000);
    // A fresh connection from the same address is the same guesser.
    InProcessPeer again = InProcessPeer.connectFrom(server, attacker);
    assertThat(error(login(again, "alice", "guess")).path("error").asText())
        .isEqualTo("too-many-requests");

    // Alice, from her own address, at the same instant: in.
    JsonNode alice = login(InProcessPeer.connectFrom(server, home), "alice", "alice-pw");
    assertThat(alice.has("result")).as("alice from elsewhere: %s", alice).isTrue();
    // The guesser's address is held back for alice only, not (below its cap) for others.
    assertThat(login(again, "bob", "bob-pw").has("result")).isTrue();

    time.advance(Duration.ofMillis(9_999));
    assertThat(error(login(again, "alice", "guess")).path("error").asText())
        .isEqualTo("too-many-requests");
    time.advance(Duration.ofMillis(1));
    assertThat(error(login(again, "alice", "guess")).path("error").asInt())
        .as("checked again once the window has passed").isEqualTo(403);
  }

  @Test
  void thePerAddressCapHoldsAcrossManyUsernamesAndOnlyForThatAddress() {
    for (int i = 0; i < 20; i++) { // the default: 20 failures a minute per address
      InProcessPeer p = InProcessPeer.connectFrom(server, attacker);
      assertThat(error(login(p, "user" + i, "guess")).path("error").asInt()).as("attempt %d", i)
          .isEqualTo(403);
    }
    InProcessPeer p = InProcessPeer.connectFrom(server, attacker);
    JsonNode refused = error(login(p, "bob", "bob-pw"));
    assertThat(refused.path("error").asText()).isEqualTo("too-many-requests");
    assertThat(refused.path("details").path("timeToReset").asLong()).isEqualTo(60_000);
    assertThat(error(p.call("login", DdpPeer.resumeParams("a-guessed-token"))).path("error")
        .asText()).as("resume tokens count against the same cap").isEqualTo("too-many-requests");

    assertThat(login(InProcessPeer.connectFrom(server, home), "bob", "bob-pw").has("result"))
        .isTrue();
    time.advance(Duration.ofMinutes(1));
    assertThat(login(p, "bob", "bob-pw").has("result")).isTrue();
  }

  private static JsonNode login(InProcessPeer p, String user, String password) {
    return p.call("login", DdpPeer.loginParams(user, password));
  }

  private static JsonNode error(JsonNode result) {
    assertThat(result.has("error")).as("an error: %s", result).isTrue();
    return result.path("error");
  }
}
