package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static dev.ddpkit.ddp.memory.ServerEnd.json;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.ddp.protocol.DdpMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DDP session resumption (Meteor 3.5), frame by frame on virtual time: the count of frames
 * received, the {@code connect} that offers it, the decision by the session id in {@code
 * connected}, what a resumed session sends and keeps, and its edge cases.
 */
@Timeout(value = 30, unit = SECONDS)
class SessionResumptionTest {

  private static String sub(Subscription s, String name) {
    return "{'msg':'sub','id':'" + s.id() + "','name':'" + name + "','params':[]}";
  }

  private static String unsub(Subscription s) {
    return "{'msg':'unsub','id':'" + s.id() + "'}";
  }

  /** The socket drops, 1 s passes, the client redials and must offer {@code expectedConnect}. */
  private static ServerEnd redialExpecting(Harness h, ServerEnd old, String expectedConnect,
      String answerSession) {
    old.closeFromServer(1006, "");
    h.redial();
    return h.handshake(expectedConnect, answerSession);
  }

  @Test
  void countsEveryFrameWithAMsgButPingAndPongAndOffersTheCountAfterADrop() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1"); // connected: 1
      Subscription items = h.client.subscribe("items");
      h.client.call("echo");
      s1.drain();
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{}}"); // 2
      s1.send("{'msg':'ping'}");
      s1.send("{'msg':'pong'}");
      s1.send("{'server_id':'0'}");
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}"); // 3
      s1.send("{'msg':'result','id':'1','result':1}"); // 4
      s1.send("{'msg':'updated','methods':['1']}"); // 5
      s1.send("{'msg':'error','reason':'bad'}"); // 6
      s1.send("{'msg':'no-such-message'}"); // 7: unknown, dropped, but the server counted it
      s1.send("{'msg':'added','collection':'items'}"); // 8: invalid, dropped, counted
      s1.send("{'id':'9','error':'oops'}"); // a method error without msg: not counted

      redialExpecting(h, s1, Harness.connectWithSession("s1", 8), "s2");
    }
  }

  @Test
  void anInvalidFrameReadFromBytesIsCountedAsFromTextIfItHasAMsg() {
    SessionResumption r = new SessionResumption(true, new com.fasterxml.jackson.databind.ObjectMapper());
    DdpMessage bad = new DdpMessage.Invalid("a problem");
    byte[] withMsg = "xx{\"msg\":\"added\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] ping = "{\"msg\":\"ping\",\"id\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] notJson = "{\"msg\":".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    r.received(bad, withMsg, 2, withMsg.length - 2);
    r.received(bad, ping, 0, ping.length);
    r.received(bad, notJson, 0, notJson.length);
    r.received(bad, "{\"msg\":\"added\"}");
    r.received(bad, "[1]");

    assertThat(r.receivedCount()).isEqualTo(2);
  }

  @Test
  void aNewSessionRestartsTheCountAtOneAndAResumedOneGoesOn() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{}}");
      ServerEnd s2 = redialExpecting(h, s1, Harness.connectWithSession("s1", 2), "s2");
      s2.send("{'msg':'added','collection':'items','id':'b','fields':{}}");
      // s2 is new: its connected (1) and one added
      ServerEnd s3 = redialExpecting(h, s2, Harness.connectWithSession("s2", 2), "s2");
      s3.send("{'msg':'added','collection':'items','id':'c','fields':{}}");
      // s2 resumed: 2 before, its connected, one added
      redialExpecting(h, s3, Harness.connectWithSession("s2", 4), "s3");
    }
  }

  @Test
  void aResumedSessionRunsNoHookSendsNoSubscriptionAndKeepsTheCollections() {
    try (Harness h = new Harness()) {
      List<String> events = new CopyOnWriteArrayList<>();
      List<Boolean> resyncing = new CopyOnWriteArrayList<>();
      h.client.collection("items").addListener(ReconnectTest.recorder(events));
      h.client.addResyncListener(resyncing::add);
      ServerEnd s1 = h.connect("s1");
      List<String> hooks = new ArrayList<>();
      h.client.addReconnectHook(c -> {
        hooks.add("login");
        c.call("login", List.of(Map.of("resume", "token-1")), CallOptions.WAIT);
      });
      Subscription items = h.client.subscribe("items");
      s1.expect(sub(items, "items"));
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1}}");
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");
      events.clear();

      s1.closeFromServer(1006, "");
      assertThat(h.client.isResyncing()).isTrue();
      assertThat(items.isCurrent()).isFalse();
      h.redial();
      ServerEnd s2 = h.handshake(Harness.connectWithSession("s1", 3), "s1");

      s2.expectNothing();
      assertThat(hooks).isEmpty();
      assertThat(events).as("no flicker: nothing removed and added again").isEmpty();
      assertThat(h.client.collection("items").snapshot()).isEqualTo(Map.of("a", json("{'v':1}")));
      assertThat(h.client.isResyncing()).isFalse();
      assertThat(resyncing).containsExactly(true, false);
      assertThat(items.isCurrent()).isTrue();
      assertThat(h.client.status()).isEqualTo(
          new DdpStatus(DdpStatus.State.CONNECTED, 1, null, "", /* resumed= */ true));
      assertThat(h.client.stats().resumes()).isEqualTo(1);
      assertThat(h.client.stats().reconnects()).isEqualTo(1);
    }
  }

  @Test
  void theReplayIsAppliedInOrderAtOnce() {
    try (Harness h = new Harness()) {
      List<String> events = new CopyOnWriteArrayList<>();
      h.client.collection("items").addListener(ReconnectTest.recorder(events));
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1}}");
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");
      events.clear();
      ServerEnd s2 = redialExpecting(h, s1, Harness.connectWithSession("s1", 3), "s1");

      s2.send("{'msg':'changed','collection':'items','id':'a','fields':{'v':2}}");
      s2.send("{'msg':'added','collection':'items','id':'b','fields':{'v':1}}");
      s2.send("{'msg':'removed','collection':'items','id':'a'}");

      assertThat(events).containsExactly(
          "changed a {\"v\":2} cleared []", "added b {\"v\":1}", "removed a");
      assertThat(h.client.collection("items").snapshot()).isEqualTo(Map.of("b", json("{'v':1}")));
    }
  }

  @Test
  void aReplayedAddedForAHeldDocumentIsAChangeAndKeepsNewerFields() {
    try (Harness h = new Harness()) {
      List<String> events = new CopyOnWriteArrayList<>();
      h.client.collection("items").addListener(ReconnectTest.recorder(events));
      ServerEnd s1 = h.connect("s1");
      h.client.subscribe("items");
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1,'w':1}}");
      events.clear();
      ServerEnd s2 = redialExpecting(h, s1, Harness.connectWithSession("s1", 2), "s1");

      // Meteor 3.5.0 could send a replayed message after newer ones: the newer 'changed' of w
      // first, then an 'added' of the same document with only some fields.
      s2.send("{'msg':'changed','collection':'items','id':'a','fields':{'w':2}}");
      s2.send("{'msg':'added','collection':'items','id':'a','fields':{'v':3}}");

      assertThat(h.client.collection("items").get("a")).contains(
          (com.fasterxml.jackson.databind.node.ObjectNode) json("{'v':3,'w':2}"));
      assertThat(events).containsExactly(
          "changed a {\"w\":2} cleared []", "changed a {\"v\":3} cleared []");
      assertThat(h.client.stats().protocolErrors()).isZero();
    }
  }

  @Test
  void anAddedForAHeldDocumentInANewSessionIsStillTodaysReplacement() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      h.client.subscribe("items");
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1,'w':1}}");
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':3}}");

      assertThat(h.client.collection("items").get("a")).contains(
          (com.fasterxml.jackson.databind.node.ObjectNode) json("{'v':3}"));
    }
  }

  @Test
  void anUnsubMadeWhileOfflineIsSentAfterTheResume() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      Subscription other = h.client.subscribe("other");
      s1.drain();
      // Both answered: one sent but unanswered would be sent again on the resume
      // (aSubscriptionUnansweredAtTheDropIsSentAgainOnTheResumeAndAReadyOneIsNot).
      s1.send("{'msg':'ready','subs':['" + items.id() + "','" + other.id() + "']}");
      s1.closeFromServer(1006, "");
      items.stop();
      Subscription later = h.client.subscribe("later");
      h.redial();

      ServerEnd s2 = h.handshake(Harness.connectWithSession("s1", 2), "s1");

      s2.expect(unsub(items), sub(later, "later"));
      assertThat(other.ended()).isNotDone();
    }
  }

  @Test
  void aSubscriptionUnansweredAtTheDropIsSentAgainOnTheResumeAndAReadyOneIsNot() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription answered = h.client.subscribe("answered");
      Subscription lost = h.client.subscribe("lost");
      s1.expect(sub(answered, "answered"), sub(lost, "lost"));
      s1.send("{'msg':'ready','subs':['" + answered.id() + "']}");
      // The socket dies with the second sub still unread by the server: the count (2 frames
      // received) still matches what the server wrote, so it resumes.
      s1.closeFromServer(1006, "");
      h.redial();

      ServerEnd s2 = h.handshake(Harness.connectWithSession("s1", 2), "s1");

      s2.expect(sub(lost, "lost"));
      s2.expectNothing();
      assertThat(lost.ready()).isNotDone();
      s2.send("{'msg':'ready','subs':['" + lost.id() + "']}");
      assertThat(lost.ready()).isDone();
      assertThat(answered.isCurrent()).isTrue();
      assertThat(lost.isCurrent()).isTrue();
    }
  }

  @Test
  void aSubscriptionSentAgainOnTheResumeWhoseReplayRefusedItIsUnsubscribed() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription refused = h.client.subscribe("refused");
      s1.expect(sub(refused, "refused"));
      // The server read the sub and refused it, but its nosub was held for the grace period: the
      // client has received 1 frame, the server wrote 1, so it resumes and replays the nosub.
      s1.closeFromServer(1006, "");
      h.redial();

      ServerEnd s2 = h.handshake(Harness.connectWithSession("s1", 1), "s1");
      s2.expect(sub(refused, "refused")); // unanswered at the drop: sent again
      s2.send("{'msg':'nosub','id':'" + refused.id() + "','error':{'error':'too-many-requests'}}");

      assertThat(failure(refused.ready(), DdpMethodException.class).error())
          .isEqualTo("too-many-requests");
      // The server runs the repeat afresh and may serve it now: the client ended it, so it says so.
      s2.expect(unsub(refused));
      s2.send("{'msg':'ready','subs':['" + refused.id() + "']}");
      s2.send("{'msg':'nosub','id':'" + refused.id() + "'}");
      s2.expectNothing();
      assertThat(h.client.stats().protocolErrors()).isZero();
    }
  }

  @Test
  void anUnsubSentJustBeforeTheDropIsSentAgainOnTheResumeUntilItsNosub() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription lostUnsub = h.client.subscribe("lostUnsub");
      Subscription answered = h.client.subscribe("answered");
      s1.expect(sub(lostUnsub, "lostUnsub"), sub(answered, "answered"));
      s1.send("{'msg':'ready','subs':['" + lostUnsub.id() + "','" + answered.id() + "']}");
      lostUnsub.stop();
      answered.stop();
      s1.expect(unsub(lostUnsub), unsub(answered));
      s1.send("{'msg':'nosub','id':'" + answered.id() + "'}");
      // The socket dies with the first unsub unread by the server (its nosub never came): the
      // count (3 frames received) still matches what the server wrote, so it resumes.
      s1.closeFromServer(1006, "");
      h.redial();

      ServerEnd s2 = h.handshake(Harness.connectWithSession("s1", 3), "s1");

      s2.expect(unsub(lostUnsub));
      s2.expectNothing();
      s2.send("{'msg':'nosub','id':'" + lostUnsub.id() + "'}");
      s2.closeFromServer(1006, "");
      h.redial();

      ServerEnd s3 = h.handshake(Harness.connectWithSession("s1", 5), "s1");

      s3.expectNothing(); // answered: not sent a third time
      assertThat(h.client.stats().protocolErrors()).isZero();
    }
  }

  @Test
  void anUnsubMadeWhileOfflineIsNotSentToANewSession() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      Subscription other = h.client.subscribe("other");
      s1.drain();
      s1.closeFromServer(1006, "");
      items.stop();
      h.redial();

      ServerEnd s2 = h.handshake(Harness.connectWithSession("s1", 1), "s2");

      s2.expect(sub(other, "other"));
    }
  }

  @Test
  void unansweredCallsAreResentUnlessNoRetryAndASecondAnswerIsNoError() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      CompletableFuture<JsonNode> echo = h.client.call("echo", 1);
      CompletableFuture<JsonNode> once =
          h.client.call("charge", List.of(10), CallOptions.DEFAULT.withNoRetry(true));
      s1.drain();
      s1.closeFromServer(1006, "");
      assertThat(failure(once, DdpMethodException.class).error())
          .isEqualTo(DdpMethodException.INVOCATION_FAILED);
      h.redial();

      ServerEnd s2 = h.handshake(Harness.connectWithSession("s1", 1), "s1");
      s2.expect("{'msg':'method','method':'echo','params':[1],'id':'1'}");
      s2.send("{'msg':'result','id':'1','result':2}"); // the replayed answer to the first copy
      s2.send("{'msg':'result','id':'1','result':2}"); // the answer to the copy re-sent

      assertThat(echo).isCompletedWithValue(json("2"));
      assertThat(h.client.stats().protocolErrors()).isZero();
      s2.send("{'msg':'result','id':'1','result':2}"); // a third is an error again
      assertThat(h.client.stats().protocolErrors()).isEqualTo(1);
    }
  }

  @Test
  void anotherSessionIdIsANewSessionRecoveredAsAlways() {
    try (Harness h = new Harness()) {
      List<String> hooks = new ArrayList<>();
      ServerEnd s1 = h.connect("s1");
      h.client.addReconnectHook(c -> hooks.add("hook"));
      Subscription items = h.client.subscribe("items");
      s1.drain();

      ServerEnd s2 = redialExpecting(h, s1, Harness.connectWithSession("s1", 1), "s2");

      s2.expect(sub(items, "items"));
      assertThat(hooks).containsExactly("hook");
      assertThat(h.client.isResyncing()).isTrue();
      assertThat(h.client.status().resumed()).isFalse();
      assertThat(h.client.stats().resumes()).isZero();
    }
  }

  @Test
  void aHeartbeatTimeoutLeavesTheSessionResumable() {
    try (Harness h = new Harness(b -> b.heartbeatInterval(Duration.ofSeconds(5))
        .heartbeatTimeout(Duration.ofSeconds(2)))) {
      ServerEnd s1 = h.connect("s1");
      h.time.advance(Duration.ofSeconds(7)); // ping at 5 s, no answer by 7 s
      assertThat(s1.closedByClient()).isTrue();
      h.time.advance(Duration.ofSeconds(1));

      h.handshake(Harness.connectWithSession("s1", 1), "s1");

      assertThat(h.client.status().resumed()).isTrue();
    }
  }

  @Test
  void aResumedStatusEndsWithTheConnection() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      ServerEnd s2 = redialExpecting(h, s1, Harness.connectWithSession("s1", 1), "s1");
      assertThat(h.client.status().resumed()).isTrue();

      s2.closeFromServer(1006, "");

      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.WAITING);
      assertThat(h.client.status().resumed()).isFalse();
      assertThat(h.statuses).filteredOn(DdpStatus::resumed).hasSize(1);
    }
  }

  @Test
  void closeSaysDisconnectBeforeItClosesTheSocket() {
    Harness h = new Harness();
    ServerEnd s1 = h.connect("s1");

    h.client.close();

    s1.expect("{'msg':'disconnect'}");
    assertThat(s1.closedByClient()).isTrue();
  }

  @Test
  void closeBeforeConnectedSaysNoDisconnect() {
    Harness h = new Harness();
    h.client.connect();
    ServerEnd s1 = h.net.last().open();
    s1.expect(Harness.CONNECT);

    h.client.close();

    s1.expectNothing();
  }

  @Test
  void turnedOffTheConnectOffersNoCountCloseSaysNoDisconnectAndTheSameIdIsANewSession() {
    try (Harness h = new Harness(b -> b.sessionResumption(false))) {
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      s1.drain();

      ServerEnd s2 = redialExpecting(h, s1, Harness.connectNamingSession("s1"), "s1");

      s2.expect(sub(items, "items"));
      assertThat(h.client.status().resumed()).isFalse();
      h.client.close();
      s2.expectNothing();
    }
  }
}
