package dev.ddpkit.ddp.testserver;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ddpkit.ddp.testing.LiveThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = SECONDS)
class TestDdpServerTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  /** How long "no answer" is given to show itself; an upper bound on silence, not a sync. */
  private static final Duration SILENCE = Duration.ofMillis(300);

  private TestDdpServer server;
  private final List<RawClient> clients = new ArrayList<>();

  @BeforeEach
  void startServer() {
    server = TestDdpServer.start();
  }

  @AfterEach
  @Timeout(value = 30, unit = SECONDS)
  void stopEverything() throws Exception {
    // Close without waiting: a client stuck in a blackholed handshake only ends when the server
    // drops its socket on stop().
    clients.forEach(RawClient::close);
    server.stop();
    for (RawClient c : clients) {
      c.awaitClosed();
    }
    assertThat(serverThreads()).as("threads left by " + server).isEmpty();
  }

  private List<String> serverThreads() {
    return LiveThreads.startingWith(server.name() + "-");
  }

  private RawClient open() {
    RawClient c = RawClient.open(server.uri());
    clients.add(c);
    return c;
  }

  private RawClient ddp() {
    RawClient c = RawClient.connectDdp(server.uri());
    clients.add(c);
    return c;
  }

  @Test
  void greetsThenGivesEachConnectionItsOwnSession() {
    RawClient a = open();
    JsonNode greeting = TestDdpServer.json(a.poll(WAIT));
    assertThat(greeting).isEqualTo(TestDdpServer.json("{\"server_id\":\"0\"}"));
    a.send("{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
    assertThat(a.awaitMsg("connected").path("session").asText()).isEqualTo("session-1");
    RawClient b = ddp();

    assertThat(server.takeFrame(WAIT).msg()).isEqualTo("connect");
    assertThat(server.takeFrame(WAIT).connectionId()).isEqualTo(2);
    assertThat(server.pollFrame(Duration.ZERO)).isNull();
    assertThat(server.count(Counter.SESSIONS)).isEqualTo(2);
    assertThat(server.connections()).extracting(TestConnection::session)
        .containsExactly("session-1", "session-2");
    assertThat(b.isOpen()).isTrue();
  }

  @Test
  void proposesABetterVersionWithFailedThenCloses() throws Exception {
    RawClient old = open();
    old.send("{\"msg\":\"connect\",\"version\":\"pre1\",\"support\":[\"1\",\"pre1\"]}");
    assertThat(old.awaitMsg("failed").path("version").asText()).isEqualTo("1");
    assertThat(old.awaitClosed().code()).isEqualTo(1000);

    RawClient alien = open();
    alien.send("{\"msg\":\"connect\",\"version\":\"7\",\"support\":[\"7\"]}");
    assertThat(alien.awaitMsg("failed").path("version").asText()).isEqualTo("1");
    assertThat(server.count(Counter.VERSION_FAILED)).isEqualTo(2);
    assertThat(server.count(Counter.SESSIONS)).isZero();
  }

  @Test
  void answersPingsWithTheSameId() {
    RawClient c = ddp();
    c.send("{\"msg\":\"ping\",\"id\":\"p-1\"}");
    assertThat(c.awaitMsg("pong").path("id").asText()).isEqualTo("p-1");
    c.send("{\"msg\":\"ping\"}");
    assertThat(c.awaitMsg("pong").has("id")).isFalse();
    assertThat(server.count(Counter.PINGS_ANSWERED)).isEqualTo(2);
  }

  @Test
  void methodsGetResultThenUpdatedOrAnError() {
    server.onMethodReturn("add", p -> IntNode.valueOf(p.get(0).intValue() + p.get(1).intValue()));
    server.onMethod("deny", call -> {
      throw new DdpServerError("not-allowed", "No");
    });
    RawClient c = ddp();

    c.send("{\"msg\":\"method\",\"method\":\"add\",\"params\":[2,3],\"id\":\"1\"}");
    JsonNode result = c.awaitMsg("result");
    assertThat(result.path("id").asText()).isEqualTo("1");
    assertThat(result.path("result").intValue()).isEqualTo(5);
    assertThat(c.awaitMsg("updated").path("methods").get(0).asText()).isEqualTo("1");

    c.send("{\"msg\":\"method\",\"method\":\"deny\",\"id\":\"2\"}");
    assertThat(c.awaitMsg("result").path("error").path("error").asText()).isEqualTo("not-allowed");

    c.send("{\"msg\":\"method\",\"method\":\"nope\",\"id\":\"3\"}");
    JsonNode notFound = c.awaitMsg("result").path("error");
    assertThat(notFound.path("error").intValue()).isEqualTo(404);
    assertThat(notFound.path("reason").asText()).isEqualTo("Method 'nope' not found");
  }

  @Test
  void aHandlerCanAnswerLater() {
    List<MethodCall> pending = new CopyOnWriteArrayList<>();
    server.onMethod("slow", pending::add);
    RawClient c = ddp();
    c.send("{\"msg\":\"method\",\"method\":\"slow\",\"id\":\"9\",\"randomSeed\":\"seed\"}");
    await().atMost(WAIT).until(() -> pending.size() == 1);
    assertThat(c.poll(SILENCE)).isNull();

    MethodCall call = pending.get(0);
    assertThat(call.randomSeed().asText()).isEqualTo("seed");
    call.reply(JsonNodeFactory.instance.textNode("done"));
    assertThat(c.awaitMsg("result").path("result").asText()).isEqualTo("done");
  }

  @Test
  void publicationsSendDataAndReadyAndCanPushLater() {
    server.publish("items", sub -> {
      sub.added("items", "a", JsonNodeFactory.instance.objectNode().put("n", 1));
      sub.ready();
    });
    RawClient c = ddp();
    c.send("{\"msg\":\"sub\",\"id\":\"s1\",\"name\":\"items\",\"params\":[]}");
    assertThat(c.awaitMsg("added").path("fields").path("n").intValue()).isEqualTo(1);
    assertThat(c.awaitMsg("ready").path("subs").get(0).asText()).isEqualTo("s1");

    ServerSubscription live = server.subscriptions().get(0);
    live.changed("items", "a", JsonNodeFactory.instance.objectNode().put("n", 2), List.of("old"));
    JsonNode changed = c.awaitMsg("changed");
    assertThat(changed.path("fields").path("n").intValue()).isEqualTo(2);
    assertThat(changed.path("cleared").get(0).asText()).isEqualTo("old");

    c.send("{\"msg\":\"unsub\",\"id\":\"s1\"}");
    assertThat(c.awaitMsg("nosub").path("id").asText()).isEqualTo("s1");
    await().atMost(WAIT).until(() -> server.subscriptions().isEmpty());
    assertThat(live.isActive()).isFalse();

    c.send("{\"msg\":\"sub\",\"id\":\"s2\",\"name\":\"unknown\"}");
    JsonNode nosub = c.awaitMsg("nosub");
    assertThat(nosub.path("id").asText()).isEqualTo("s2");
    assertThat(nosub.path("error").path("error").intValue()).isEqualTo(404);
  }

  @Test
  void badClientFramesGetAnErrorAndAreRecorded() {
    RawClient c = open();
    c.send("{\"msg\":\"method\",\"method\":\"x\",\"id\":\"1\"}");
    assertThat(c.awaitMsg("error").path("reason").asText()).isEqualTo("Must connect first");
    c.send("{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
    c.awaitMsg("connected");
    c.send("not json");
    assertThat(c.awaitMsg("error").path("reason").asText()).isEqualTo("Parse error");
    c.send("{\"msg\":\"bogus\"}");
    JsonNode error = c.awaitMsg("error");
    assertThat(error.path("offendingMessage").path("msg").asText()).isEqualTo("bogus");
    c.send("{\"msg\":\"method\",\"method\":\"m\",\"id\":5}");
    assertThat(c.awaitMsg("error").path("reason").asText())
        .isEqualTo("Malformed method invocation");
    c.send("{\"msg\":\"sub\",\"name\":\"s\",\"id\":\"1\",\"params\":\"x\"}");
    assertThat(c.awaitMsg("error").path("reason").asText()).isEqualTo("Malformed subscription");

    assertThat(server.awaitFrame(f -> f.text().equals("not json"), WAIT).json().isMissingNode())
        .isTrue();
    assertThat(server.count(Counter.ERRORS_SENT)).isEqualTo(5);
  }

  @Test
  void dropAllSendsTheCloseCodeAndReason() throws Exception {
    RawClient c = ddp();
    server.dropAll(4000, "TIMEOUT");
    RawClient.Closed closed = c.awaitClosed();
    assertThat(closed.code()).isEqualTo(4000);
    assertThat(closed.reason()).isEqualTo("TIMEOUT");
    assertThat(closed.remote()).isTrue();
    await().atMost(WAIT).until(() -> server.openConnections() == 0);
  }

  @Test
  void closeAbruptlyDropsWithoutACloseFrame() throws Exception {
    RawClient c = ddp();
    server.closeAbruptly();
    assertThat(c.awaitClosed().code()).isEqualTo(1006);
    RawClient again = ddp();
    assertThat(again.isOpen()).isTrue();
  }

  @Test
  void blackholeKeepsSocketsOpenButAnswersNothing() {
    RawClient c = ddp();
    server.drainFrames();
    server.blackhole(true);

    c.send("{\"msg\":\"ping\",\"id\":\"lost\"}");
    await().atMost(WAIT).until(() -> server.count(Counter.BLACKHOLED_BYTES) > 0);
    assertThat(c.poll(SILENCE)).isNull();
    server.send(TestDdpServer.message("ping"));
    assertThat(c.poll(SILENCE)).isNull();
    assertThat(c.isOpen()).isTrue();
    assertThat(server.openConnections()).isEqualTo(1);
    assertThat(server.pollFrame(Duration.ZERO)).isNull();

    RawClient hanging = new RawClient(server.uri());
    clients.add(hanging);
    assertThat(hanging.connectWithin(SILENCE)).isFalse();

    server.blackhole(false);
    assertThat(ddp().isOpen()).isTrue();
  }

  @Test
  void refusedHandshakesFailUntilRefusalEnds() throws Exception {
    server.refuse(true);
    RawClient refused = new RawClient(server.uri());
    clients.add(refused);
    assertThat(refused.connectWithin(WAIT)).isFalse();
    assertThat(refused.awaitClosed().code()).isNotEqualTo(1000);
    assertThat(server.count(Counter.REFUSED)).isEqualTo(1);

    server.refuse(false);
    assertThat(ddp().isOpen()).isTrue();
  }

  @Test
  void downRefusesDialsAndUpListensOnTheSamePort() throws Exception {
    RawClient c = ddp();
    int port = server.port();

    server.down();
    assertThat(c.awaitClosed().code()).isEqualTo(1006);
    RawClient refused = new RawClient(server.uri());
    clients.add(refused);
    assertThat(refused.connectWithin(WAIT)).isFalse();

    server.up();
    assertThat(server.port()).isEqualTo(port);
    assertThat(ddp().isOpen()).isTrue();

    server.restart();
    assertThat(server.port()).isEqualTo(port);
    assertThat(ddp().isOpen()).isTrue();
    assertThat(server.count(Counter.STARTS)).isEqualTo(3);
    // One selector, one worker, one lost-write guard: the old ones are gone.
    assertThat(serverThreads()).hasSize(3);
  }

  @Test
  void garbageReachesTheClient() throws Exception {
    RawClient c = ddp();
    server.sendGarbage(Garbage.NOT_JSON);
    assertThat(c.poll(WAIT)).startsWith("{\"msg\": \"added\", oops");
    server.sendGarbage(Garbage.WRONG_TYPES);
    assertThat(c.awaitMsg("added").path("id").isNumber()).isTrue();
    server.sendGarbage(Garbage.BINARY_FRAME);
    assertThat(c.pollBinary(WAIT)).isEqualTo(4);
    server.sendGarbage(Garbage.HUGE_FRAME);
    assertThat(c.poll(WAIT)).hasSizeGreaterThan(2 * 1024 * 1024);
  }

  @Test
  void stopDropsEvenASocketStuckInItsHandshake() throws Exception {
    server.blackhole(true);
    RawClient stuck = new RawClient(server.uri());
    clients.add(stuck);
    stuck.connect(); // not connectBlocking: on timeout it would give up and close by itself
    await().atMost(WAIT).until(() -> server.count(Counter.BLACKHOLED_BYTES) > 0);
    assertThat(stuck.closed).isNotDone();

    server.stop();
    assertThat(stuck.awaitClosed().code()).isNotEqualTo(1000);
  }

  @Test
  void stopIsFinalAndIdempotent() {
    ddp();
    server.stop();
    server.stop();
    assertThat(serverThreads()).isEmpty();
    assertThatThrownBy(server::up).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void lifeCycleMethodsRefuseToRunOnTheServersOwnThread() {
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    server.onMethod("restart", call -> {
      try {
        server.restart();
      } catch (IllegalStateException e) {
        errors.add(e);
      }
      call.reply(JsonNodeFactory.instance.nullNode());
    });
    RawClient c = ddp();
    c.send("{\"msg\":\"method\",\"method\":\"restart\",\"id\":\"1\"}");
    c.awaitMsg("result");
    assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
        .contains("must not run on the server's threads");
  }
}
