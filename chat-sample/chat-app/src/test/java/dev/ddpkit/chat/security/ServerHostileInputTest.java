package dev.ddpkit.chat.security;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ChatServerBuilder;
import dev.ddpkit.chat.server.ServerConnectionListener;
import dev.ddpkit.chat.server.testing.RawPeer;
import dev.ddpkit.chat.server.testing.WebSocketWire;
import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded server against hostile clients over real loopback sockets: random, malformed and
 * out-of-order frames; the close codes of the frames it cannot use, matched by its counters; and a
 * flood of connections past its accept rate.
 */
@Timeout(value = 60, unit = SECONDS)
class ServerHostileInputTest {
  private static final Pattern RETRY_AFTER = Pattern.compile(".*retry-after=\\d+.*");

  @TempDir Path dir;
  private final List<ChatServer> servers = new ArrayList<>();
  private final List<RawPeer> sockets = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    sockets.forEach(RawPeer::close);
    servers.forEach(ChatServer::kill);
  }

  // The class's 60 s applies to the CI size; a long run (-Dfuzz.server.frames) checks its own
  // deadline below, scaled to the number of frames.
  @Test
  @Timeout(value = 4, unit = java.util.concurrent.TimeUnit.HOURS)
  void randomFramesNeverBreakTheServer() throws Exception {
    long seed = Long.getLong("fuzz.seed", 20_261_129L);
    Random r = new Random(seed);
    // Random frames include failed logins as alice; the per-user and per-address limits (tested
    // in LoginTest and AuthRulesTest) would end up refusing this test's own re-logins.
    ChatServer s = start(b -> b.loginRateLimit(Integer.MAX_VALUE, java.time.Duration.ofSeconds(1))
        .addressLoginRateLimit(Integer.MAX_VALUE, java.time.Duration.ofSeconds(1)));
    int frames = Integer.getInteger("fuzz.server.frames", 600);
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60 + frames / 100L).toNanos();
    List<Integer> closes = new ArrayList<>();
    try (LogCapture logs = new LogCapture(Level.WARN)) {
      RawPeer ws = session(s, r);
      for (int i = 0; i < frames; i++) {
        assertThat(System.nanoTime() - deadline).as("time left after %d of %d frames", i, frames)
            .isNegative();
        ws.sendText(ServerFrames.any(r));
        // A fence: the pong to this ping comes after every answer to the frame above.
        String fence = "fence-" + i;
        ws.sendText("{\"msg\":\"ping\",\"id\":\"" + fence + "\"}");
        WebSocketWire.Frame f;
        while ((f = ws.next()) != null && f.opcode() != WebSocketWire.CLOSE) {
          if (f.opcode() != WebSocketWire.TEXT) {
            continue;
          }
          JsonNode m = f.json();
          if (m.path("id").asText().equals(fence) && m.path("msg").asText().equals("pong")) {
            break;
          }
        }
        if (f == null || f.opcode() == WebSocketWire.CLOSE) {
          closes.add(f == null ? 1006 : f.closeCode());
          ws.close();
          ws = session(s, r);
        }
      }
      List<String> errors = new ArrayList<>();
      for (ILoggingEvent e : logs.events()) {
        if (e.getLevel().isGreaterOrEqual(Level.ERROR)) {
          errors.add(e.getLoggerName() + ": " + e.getFormattedMessage()
              + (e.getThrowableProxy() == null ? "" : " (" + e.getThrowableProxy().getClassName()
                  + ": " + e.getThrowableProxy().getMessage() + ")"));
        }
      }
      assertThat(errors).as("errors logged by the server (seed %s)", seed).isEmpty();
    }
    assertThat(closes).as("close codes (seed %s)", seed).allMatch(c -> c == 1000 || c == 1002);
    assertThat(s.stats().protocolErrors()).isPositive();
    assertServes(s);
  }

  /** Found by the fuzz test above: the echo of such a frame broke the writer's depth limit. */
  @Test
  void aFrameNestedAtTheDepthLimitGetsAnErrorWithoutItsEchoNot1011() throws Exception {
    ChatServer s = start(b -> b);
    RawPeer ws = track(RawPeer.ddp(s.url()));
    ws.sendText("{\"msg\":\"sub\",\"id\":" + "[".repeat(999) + "]".repeat(999) + "}");
    JsonNode e = ws.nextJson();
    assertThat(e.path("msg").asText()).isEqualTo("error");
    assertThat(e.path("reason").asText()).isEqualTo("Malformed subscription");
    assertThat(e.has("offendingMessage")).isFalse();
    ws.sendText("{\"msg\":\"ping\",\"id\":\"alive\"}");
    assertThat(ws.nextJson().path("id").asText()).isEqualTo("alive");
    assertThat(s.stats().protocolErrors()).isEqualTo(1);
  }

  @Test
  void framesItCannotUseAreClosedWithTheirCodesAndCounted() throws Exception {
    List<Integer> serverCloses = new CopyOnWriteArrayList<>();
    ChatServer s = start(b -> b.maxFrameBytes(64 * 1024).connectionListener(
        new ServerConnectionListener() {
          @Override
          public void closed(long epochMillis, int code, boolean remote) {
            serverCloses.add(code);
          }
        }));
    RawPeer badJson = track(RawPeer.ddp(s.url()));
    badJson.sendText("{\"msg\":\"connect\",");
    assertThat(closeCodeOf(badJson)).isEqualTo(1002);

    RawPeer binary = track(RawPeer.ddp(s.url()));
    binary.sendBinary(new byte[] {0, 1, 2});
    assertThat(closeCodeOf(binary)).isEqualTo(1003);

    RawPeer huge = track(RawPeer.ddp(s.url()));
    try {
      huge.sendText("{\"msg\":\"ping\",\"id\":\"" + "x".repeat(100 * 1024) + "\"}");
    } catch (IOException e) {
      // the server may close before the whole frame is written
    }
    await().atMost(10, SECONDS).until(() -> serverCloses.size() == 3);
    assertThat(serverCloses).containsExactlyInAnyOrder(1002, 1003, 1009);
    await().atMost(10, SECONDS).until(() -> s.stats().protocolErrors() == 3);
    assertThat(s.stats().currentConnections()).isZero();
    assertServes(s);
  }

  @Test
  void aFloodOfConnectionsPastTheAcceptRateGets1013AndTheServerStaysUp() throws Exception {
    long startedNanos = System.nanoTime();
    ChatServer s = start(b -> b.acceptRate(50).workers(2));
    int base = serverThreads();
    int n = 300;
    List<RawPeer> dials = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      dials.add(track(RawPeer.builder(s.url()).timeout(Duration.ofSeconds(20)).dial()));
    }
    int accepted = 0;
    int rejected = 0;
    int maxThreads = 0;
    for (RawPeer ws : dials) {
      assertThat(ws.readUpgrade()).contains(" 101 ");
      WebSocketWire.Frame f = ws.next();
      assertThat(f).isNotNull();
      if (f.opcode() == WebSocketWire.CLOSE) {
        assertThat(f.closeCode()).isEqualTo(1013);
        assertThat(f.closeReason()).matches(RETRY_AFTER);
        rejected++;
      } else {
        assertThat(f.json().has("server_id")).isTrue();
        accepted++;
      }
      maxThreads = Math.max(maxThreads, serverThreads());
    }
    double seconds = (System.nanoTime() - startedNanos) / 1e9;
    assertThat(accepted + rejected).isEqualTo(n);
    // The admission's bucket starts empty and fills at 50 a second (burst 50): however long the
    // 300 dials took, at most 50 a second since the start, and never more than burst + rate in
    // any one wall-clock second.
    assertThat((double) accepted).isLessThanOrEqualTo(50 * seconds + 1);
    assertThat(s.stats().acceptsPerSecond().values()).allMatch(perSecond -> perSecond <= 100);
    assertThat(rejected).isPositive();
    await().atMost(10, SECONDS).until(
        () -> s.stats().connectionsOpened() + s.stats().connectionsRejected() == n);
    assertThat(s.stats().connectionsRejected()).isEqualTo(rejected);
    assertThat(s.stats().connectionsOpened()).isEqualTo(accepted);
    assertThat(maxThreads).as("server threads during the flood").isEqualTo(base);
    // The flood is over: a normal client is served (after the rate window passes).
    await().atMost(10, SECONDS).ignoreExceptions().until(() -> {
      assertServes(s);
      return true;
    });
  }

  // ---- helpers ----

  private ChatServer start(UnaryOperator<ChatServerBuilder> tweak) {
    ChatServer s = tweak.apply(ChatServer.builder().dataDir(dir.resolve("db" + servers.size())))
        .build();
    servers.add(s);
    s.start();
    s.seedDemo();
    return s;
  }

  private RawPeer track(RawPeer ws) {
    sockets.add(ws);
    return ws;
  }

  /** A connected session, logged in as alice half of the time (so methods get past the login). */
  private RawPeer session(ChatServer s, Random r) throws IOException {
    RawPeer ws = track(RawPeer.ddp(s.url()));
    if (r.nextBoolean()) {
      ws.sendText(login("alice", "alice-pw", "login-1"));
      JsonNode res = ws.nextJson();
      assertThat(res.has("result")).as("login: %s", res).isTrue();
      ws.nextJson(); // updated
    }
    return ws;
  }

  private static int closeCodeOf(RawPeer ws) throws IOException {
    WebSocketWire.Frame f = ws.awaitClose();
    return f == null ? 1006 : f.closeCode();
  }

  /** A fresh client logs in and reads the history. */
  static void assertServes(ChatServer s) throws IOException {
    try (RawPeer ws = RawPeer.ddp(s.url())) {
      ws.sendText(login("bob", "bob-pw", "l1"));
      assertThat(ws.nextJson().has("result")).isTrue();
      ws.nextJson();
      ws.sendText("{\"msg\":\"method\",\"id\":\"h1\",\"method\":\"loadHistory\","
          + "\"params\":[\"general\",null,1,null]}");
      assertThat(ws.nextJson().has("result")).isTrue();
    }
  }

  static String login(String user, String password, String id) {
    return "{\"msg\":\"method\",\"id\":\"" + id + "\",\"method\":\"login\",\"params\":[{\"user\":"
        + "{\"username\":\"" + user + "\"},\"password\":{\"digest\":\"" + sha256(password)
        + "\",\"algorithm\":\"sha-256\"}}]}";
  }

  static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static int serverThreads() {
    return (int) Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("chat-server-")).count();
  }
}
