package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.chat.server.InProcessServer.FakeConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Coverage-guided fuzzing (Jazzer) of the embedded server's frame handling, in process: the
 * fuzzer's frames go to {@link DdpHandler#text} for one session at a time ({@link
 * InProcessServer}, no socket), on a real store with the demo users. Checked for every session:
 * nothing was logged at WARN or above (a method that threw is logged and answered 500; a frame
 * whose handling threw is logged at ERROR and closed with 1011); the server closed it, if it did,
 * with 1000, 1002 or 1003; every frame it sent is a JSON object with a known {@code msg} (the first
 * being the {@code server_id} greeting); before {@code connected} it sent nothing but errors and
 * {@code failed}; before a successful login, no result without an error, no {@code ready} and no
 * data. Afterwards a fresh session still connects, logs in, reads the history and gets a pong.
 *
 * <p>An input is UTF-8 text, one frame per line (at most {@value #MAX_STEPS} lines), or a harness
 * step: {@code !c} a valid {@code connect}, {@code !l} a resume-token login as alice, {@code !n}
 * the client closes and a new session starts. A session the server closed is replaced by a new
 * one for the lines that follow.
 *
 * <p>Without {@code JAZZER_FUZZ} (the CI build) it runs once per committed input under {@code
 * src/test/resources/dev/ddpkit/chat/server/ServerSessionJazzerTestInputs/<method>/}; {@code
 * scripts/fuzz-jazzer.sh server} fuzzes it.
 */
class ServerSessionJazzerTest {
  static final int MAX_STEPS = 48;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> SERVER_MESSAGES = Set.of("connected", "failed", "pong", "ping",
      "result", "updated", "ready", "nosub", "error", "added", "changed", "removed");
  private static final Set<Integer> CLOSE_CODES = Set.of(1000, 1002, 1003);
  private static final String CONNECT =
      "{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\",\"pre2\",\"pre1\"]}";

  @TempDir static Path dir;
  private static InProcessServer server;
  /** The token of {@code !l}; a logout in that session revokes it, and it is issued again. */
  private static String aliceToken;
  /** The token of the fresh session at the end; never in a frame the fuzzer can change. */
  private static String checkToken;

  @BeforeAll
  static void startServer() {
    // Failed logins are what the fuzzer makes most: the limits (tested in LoginTest) would soon
    // refuse every login from the one fake address, the harness's own included.
    server = new InProcessServer(dir, b -> b
        .loginRateLimit(Integer.MAX_VALUE, Duration.ofSeconds(1))
        .addressLoginRateLimit(Integer.MAX_VALUE, Duration.ofSeconds(1)));
    for (String u : List.of("alice", "bob", "carol")) {
      server.createUser(u, u + "-pw");
    }
    server.createRoom("general", "alice", "bob", "carol");
    server.createRoom("secret", "carol");
    aliceToken = server.issueToken("alice");
    checkToken = server.issueToken("alice");
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    server.close();
  }

  /** The fuzzer's frames never break the server, and it answers them as DDP says. */
  @FuzzTest(maxDuration = "10m")
  @Timeout(value = 30, unit = SECONDS)
  void framesFromOneSessionNeverBreakTheServer(byte[] input) throws Exception {
    List<String> steps = new String(input, StandardCharsets.UTF_8).lines()
        .limit(MAX_STEPS).toList();
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger logger = (Logger) LoggerFactory.getLogger("dev.ddpkit.chat");
    logs.start();
    logger.addAppender(logs);
    try {
      FakeConnection c = server.open();
      for (String step : steps) {
        if (c.closeCode != 0 || c.closed) {
          c = endSession(c, 1000, false);
        }
        switch (step) {
          case "!c" -> server.text(c, CONNECT);
          case "!l" -> {
            if (server.store.reads().token(Secrets.tokenKey(aliceToken)) == null) {
              aliceToken = server.issueToken("alice"); // logged out by an earlier step
            }
            server.text(c, resume("harness-login", aliceToken));
          }
          case "!n" -> c = endSession(c, 1000, true);
          default -> server.text(c, step);
        }
      }
      endSession(c, 1000, true);
      assertServesAFreshSession();
      List<String> warnings = new ArrayList<>();
      for (ILoggingEvent e : List.copyOf(logs.list)) {
        if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
          warnings.add(e.getLoggerName() + ": " + e.getFormattedMessage()
              + (e.getThrowableProxy() == null ? "" : " (" + e.getThrowableProxy().getClassName()
                  + ": " + e.getThrowableProxy().getMessage() + ")"));
        }
      }
      assertThat(warnings).as("warnings and errors logged by the server").isEmpty();
    } finally {
      logger.detachAppender(logs);
      logs.stop();
    }
  }

  /**
   * Waits for the session's pending answers, checks everything it was sent, ends it (the close
   * handshake completes, or the client closes) and opens the next one.
   */
  private static FakeConnection endSession(FakeConnection c, int code, boolean remote)
      throws Exception {
    server.settle();
    if (c.closeCode != 0) {
      assertThat(CLOSE_CODES).as("the server's close code").contains(c.closeCode);
    }
    assertWellFormed(c.sent());
    server.closed(c, c.closeCode != 0 ? c.closeCode : code, c.closeCode == 0 && remote);
    return server.open();
  }

  private static void assertWellFormed(List<String> sent) throws Exception {
    assertThat(sent).as("frames sent").isNotEmpty();
    assertThat(JSON.readTree(sent.get(0))).as("greeting")
        .isEqualTo(JSON.readTree("{\"server_id\":\"0\"}"));
    boolean connected = false;
    boolean loggedIn = false;
    for (String text : sent.subList(1, sent.size())) {
      JsonNode f = JSON.readTree(text);
      assertThat(f.isObject()).as("an object: %s", text).isTrue();
      String msg = f.path("msg").asText(null);
      assertThat(msg).as("msg of %s", text).isIn(SERVER_MESSAGES);
      if (!connected) {
        assertThat(msg).as("before connected: %s", text).isIn("error", "failed", "connected");
      }
      switch (msg) {
        case "connected" -> {
          assertThat(connected).as("connected twice").isFalse();
          assertThat(f.path("session").isTextual()).as("session in %s", text).isTrue();
          connected = true;
        }
        case "result" -> {
          assertThat(f.path("id").isTextual()).as("id in %s", text).isTrue();
          assertThat(f.has("error") && f.has("result")).as("result and error in %s", text)
              .isFalse();
          if (f.has("error")) {
            assertThat(f.path("error").path("error").asText()).as("error in %s", text)
                .isNotEqualTo("500");
          } else if (f.path("result").path("token").isTextual()) {
            loggedIn = true;
          } else {
            assertThat(loggedIn).as("a result before login: %s", text).isTrue();
          }
        }
        case "ready", "added", "changed", "removed" ->
            assertThat(loggedIn).as("served before login: %s", text).isTrue();
        case "error" ->
            assertThat(f.path("reason").isTextual()).as("reason in %s", text).isTrue();
        case "nosub" -> assertThat(f.path("id").isTextual()).as("id in %s", text).isTrue();
        default -> {
          // pong, ping, updated, failed: nothing more to check
        }
      }
    }
  }

  /** A fresh session connects, logs in with the token, reads the history and gets a pong. */
  private static void assertServesAFreshSession() throws Exception {
    FakeConnection c = server.open();
    server.text(c, CONNECT);
    server.text(c, resume("fresh-login", checkToken));
    server.text(c, "{\"msg\":\"method\",\"id\":\"h\",\"method\":\"loadHistory\","
        + "\"params\":[\"general\",null,1,null]}");
    server.text(c, "{\"msg\":\"ping\",\"id\":\"alive\"}");
    server.settle();
    List<String> sent = c.sent();
    assertWellFormed(sent);
    List<JsonNode> frames = new ArrayList<>();
    for (String t : sent) {
      frames.add(JSON.readTree(t));
    }
    assertThat(frames).as("a fresh session's answers").anySatisfy(f -> {
      assertThat(f.path("id").asText()).isEqualTo("fresh-login");
      assertThat(f.path("result").path("token").isTextual()).isTrue();
    }).anySatisfy(f -> {
      assertThat(f.path("id").asText()).isEqualTo("h");
      assertThat(f.path("result").path("messages").isArray()).isTrue();
    }).anySatisfy(f -> {
      assertThat(f.path("msg").asText()).isEqualTo("pong");
      assertThat(f.path("id").asText()).isEqualTo("alive");
    });
    assertThat(c.closeCode).as("the fresh session stays open").isZero();
    server.closed(c, 1000, true);
  }

  private static String resume(String id, String token) {
    return "{\"msg\":\"method\",\"id\":\"" + id + "\",\"method\":\"login\",\"params\":"
        + "[{\"resume\":\"" + token + "\"}]}";
  }
}
