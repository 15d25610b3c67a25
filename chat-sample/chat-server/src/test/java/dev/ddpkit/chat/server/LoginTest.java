package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = SECONDS)
class LoginTest extends ServerTestSupport {
  private final MutableClock clock = MutableClock.stoppedAt(1_700_000_000_000L);

  @Test
  void passwordLoginIssuesALongRandomTokenWithAnExpiry() throws Exception {
    ChatServer s = startSeeded(b -> b.clock(clock).tokenTtl(Duration.ofHours(1)));
    DdpPeer p = connect(s);
    JsonNode r = p.call("login", DdpPeer.loginParams("alice", "alice-pw")).path("result");
    assertThat(r.path("id").asText()).hasSize(17);
    assertThat(r.path("token").asText()).matches("[A-Za-z0-9_-]{43}");
    assertThat(r.path("tokenExpires").path("$date").asLong())
        .isEqualTo(clock.millis() + Duration.ofHours(1).toMillis());
    assertThat(r.path("type").asText()).isEqualTo("password");
    assertThat(s.stats().loginsOk()).isEqualTo(1);
    assertThat(s.stats().authenticatedSessions()).isEqualTo(1);
  }

  @Test
  void wrongPasswordAndUnknownUserAre403() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer p = connect(s);
    JsonNode e = p.call("login", DdpPeer.loginParams("alice", "bob-pw")).path("error");
    assertThat(e.path("error").asInt()).isEqualTo(403);
    assertThat(e.path("reason").asText()).isEqualTo(Logins.BAD_CREDENTIALS);
    assertThat(e.path("message").asText()).isEqualTo(Logins.BAD_CREDENTIALS + " [403]");
    assertThat(e.path("errorType").asText()).isEqualTo("Meteor.Error");
    assertThat(e.path("isClientSafe").asBoolean()).isTrue();
    e = p.call("login", DdpPeer.loginParams("zed", "zed-pw")).path("error");
    assertThat(e.path("reason").asText()).isEqualTo(Logins.BAD_CREDENTIALS);
    ObjectNode notADigest = DdpPeer.loginParams("alice", "x");
    ((ObjectNode) notADigest.get("password")).put("digest", "alice-pw");
    assertThat(p.call("login", notADigest).path("error").path("error").asInt()).isEqualTo(403);
    assertThat(s.stats().loginsFailed()).isEqualTo(3);
    assertThat(s.stats().authenticatedSessions()).isZero();
  }

  /** A guesser must not learn which usernames exist from the error a failed login returns. */
  @Test
  void unknownUserAndWrongPasswordGetTheSameError() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer p = connect(s);
    JsonNode wrongPassword = p.call("login", DdpPeer.loginParams("alice", "bob-pw")).path("error");
    JsonNode unknownUser = p.call("login", DdpPeer.loginParams("zed", "zed-pw")).path("error");
    assertThat(unknownUser).isEqualTo(wrongPassword);
  }

  @Test
  void resumeTokenLogsInUntilItExpires() throws Exception {
    ChatServer s = startSeeded(b -> b.clock(clock).tokenTtl(Duration.ofMinutes(5)));
    DdpPeer first = connect(s);
    String token = first.call("login", DdpPeer.loginParams("bob", "bob-pw"))
        .path("result").path("token").asText();

    DdpPeer second = connect(s);
    JsonNode r = second.call("login", DdpPeer.resumeParams(token)).path("result");
    assertThat(r.path("type").asText()).isEqualTo("resume");
    assertThat(r.path("token").asText()).isEqualTo(token);
    assertThat(second.call("loadHistory", "general", null, 5, null).has("result")).isTrue();

    clock.advance(Duration.ofMinutes(5));
    DdpPeer third = connect(s);
    JsonNode e = third.call("login", DdpPeer.resumeParams(token)).path("error");
    assertThat(e.path("error").asInt()).isEqualTo(403);
    assertThat(e.path("reason").asText()).isEqualTo(Logins.LOGGED_OUT);
    e = third.call("login", DdpPeer.resumeParams("no-such-token")).path("error");
    assertThat(e.path("reason").asText()).isEqualTo(Logins.LOGGED_OUT);
  }

  @Test
  void aUserKeepsItsNewestTokensUpToTheCapAlsoAfterARestart() throws Exception {
    ChatServer s = startSeeded(b -> b.clock(clock).maxTokensPerUser(3));
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(1)); // each token created later than the one before
      DdpPeer p = connect(s);
      tokens.add(p.call("login", DdpPeer.loginParams("bob", "bob-pw"))
          .path("result").path("token").asText());
      p.close();
    }
    clock.advance(Duration.ofSeconds(1));
    tokens.add(s.issueToken("bob")); // issued tokens count too: the oldest login goes
    String aliceToken = s.issueToken("alice"); // another user's are not touched

    assertThat(resumes(s, tokens)).containsExactly(false, false, false, true, true, true);
    int port = s.port();
    s.stop();
    ChatServer again = start(b -> b.clock(clock).port(port).maxTokensPerUser(3));
    assertThat(resumes(again, tokens)).as("after a restart (the journal read again)")
        .containsExactly(false, false, false, true, true, true);
    assertThat(resumes(again, List.of(aliceToken))).containsExactly(true);
    assertThatThrownBy(() -> ChatServer.builder().maxTokensPerUser(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxTokensPerUser");
  }

  /** For each token, whether it logs in by resume. */
  private List<Boolean> resumes(ChatServer s, List<String> tokens) throws Exception {
    List<Boolean> out = new ArrayList<>();
    for (String t : tokens) {
      DdpPeer p = connect(s);
      out.add(p.call("login", DdpPeer.resumeParams(t)).has("result"));
      p.close();
    }
    return out;
  }

  @Test
  void issuedTokensWorkLikeLoginTokens() throws Exception {
    ChatServer s = startSeeded(b -> b);
    String token = s.issueToken("carol");
    DdpPeer p = connect(s);
    assertThat(p.call("login", DdpPeer.resumeParams(token)).path("result").path("id").asText())
        .hasSize(17);
  }

  @Test
  void failedLoginsAreRateLimitedPerConnectionAndPerUsernameFromOneAddress() throws Exception {
    // The failed-login limiter on its own: the DDP login limit (5 calls per 10 s) would answer first.
    // The limiter runs on the ticker: here the test's clock, in nanoseconds.
    ChatServer s = startSeeded(b -> b.clock(clock).ticker(() -> clock.millis() * 1_000_000)
        .rateLimits(RateLimits.none()));
    DdpPeer p = connect(s);
    for (int i = 0; i < 5; i++) {
      assertThat(p.call("login", DdpPeer.loginParams("alice", "guess" + i))
          .path("error").path("error").asInt()).isEqualTo(403);
    }
    JsonNode e = p.call("login", DdpPeer.loginParams("alice", "alice-pw")).path("error");
    assertThat(e.path("error").asText()).isEqualTo("too-many-requests");
    assertThat(e.path("reason").asText()).contains("try again in 10 seconds");
    assertThat(e.path("details").path("timeToReset").asLong()).isEqualTo(10_000);

    // Another connection from the same address cannot get around it for the same username...
    DdpPeer other = connect(s);
    assertThat(other.call("login", DdpPeer.loginParams("alice", "alice-pw"))
        .path("error").path("error").asText()).isEqualTo("too-many-requests");
    // ...but may log in as someone else.
    assertThat(other.call("login", DdpPeer.loginParams("bob", "bob-pw")).has("result")).isTrue();

    clock.advance(Duration.ofSeconds(10));
    assertThat(p.call("login", DdpPeer.loginParams("alice", "alice-pw")).has("result")).isTrue();
  }

  @Test
  void onlyLoginIsAllowedBeforeAuthentication() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer p = connect(s);
    JsonNode e = p.call("sendMessage", DdpPeer.message("m1", "general", "hi")).path("error");
    assertThat(e.path("error").asText()).isEqualTo("error-not-allowed");
    assertThat(p.call("loadHistory", "general", null, 5, null).path("error").path("error")
        .asText()).isEqualTo("error-not-allowed");
    assertThat(p.call("nosuchmethod").path("error").path("error").asText())
        .isEqualTo("error-not-allowed");
    String sub = p.subscribe("general");
    JsonNode nosub = p.next("nosub");
    assertThat(nosub.path("id").asText()).isEqualTo(sub);
    assertThat(nosub.path("error").path("error").asText()).isEqualTo("not-allowed");
    assertThat(s.messageCount("general")).isZero();
  }

  @Test
  void unknownMethodAfterLoginIs404() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer p = login(s, "alice");
    JsonNode e = p.call("deleteEverything").path("error");
    assertThat(e.path("error").asInt()).isEqualTo(404);
    assertThat(e.path("reason").asText()).isEqualTo("Method 'deleteEverything' not found");
  }

  @Test
  void logoutForgetsTheTokenAndTheUser() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer p = connect(s);
    String token = p.call("login", DdpPeer.loginParams("bob", "bob-pw"))
        .path("result").path("token").asText();
    assertThat(p.call("logout").has("error")).isFalse();
    assertThat(p.call("loadHistory", "general", null, 5, null).path("error").path("error")
        .asText()).isEqualTo("error-not-allowed");
    assertThat(p.call("login", DdpPeer.resumeParams(token)).path("error").path("error").asInt())
        .isEqualTo(403);
  }
}
