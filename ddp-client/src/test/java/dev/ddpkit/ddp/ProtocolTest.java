package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static dev.ddpkit.ddp.memory.ServerEnd.json;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Handshake, version negotiation, pings, calls and subscriptions, frame by frame. */
@Timeout(value = 30, unit = SECONDS)
class ProtocolTest {

  @Test
  void handshakeIgnoresTheServerIdGreetingAndReportsConnected() {
    try (Harness h = new Harness()) {
      h.client.connect();
      ServerEnd s = h.net.last().open().expect(Harness.CONNECT);
      s.send("{'server_id':'0'}");
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.CONNECTING);

      s.send("{'msg':'connected','session':'s1','extra':'ignored'}");

      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.CONNECTED);
      assertThat(h.client.stats().protocolErrors()).isZero();
    }
  }

  @Test
  void serverPingIsAnsweredAtOnceEchoingTheIdOrWithoutOne() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      s.send("{'msg':'ping','id':'p-7'}").expect("{'msg':'pong','id':'p-7'}");
      s.send("{'msg':'ping'}").expect("{'msg':'pong'}");
    }
  }

  @Test
  void versionNegotiationRedialsAtOnceWithTheProposedVersionWithoutBackingOff() {
    try (Harness h = new Harness()) {
      h.client.connect();
      ServerEnd first = h.net.last().open().expect(Harness.CONNECT);

      first.send("{'msg':'failed','version':'pre1'}");

      assertThat(first.closedByClient()).isTrue();
      assertThat(h.net.count()).as("redialed without waiting").isEqualTo(2);
      h.handshake("{'msg':'connect','version':'pre1','support':['1','pre2','pre1']}", "s1");
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.CONNECTED);
      assertThat(h.client.status().attempt()).isZero();
    }
  }

  @Test
  void unsupportedVersionFailsForGoodWithAClearReasonAndFailsPendingCalls() {
    try (Harness h = new Harness()) {
      CompletableFuture<JsonNode> call = h.client.call("x");
      Subscription sub = h.client.subscribe("y");
      h.client.connect();
      ServerEnd s = h.net.last().open().expect(Harness.CONNECT);

      s.send("{'msg':'failed','version':'99'}");

      DdpStatus st = h.client.status();
      assertThat(st.state()).isEqualTo(DdpStatus.State.FAILED);
      assertThat(st.reason()).contains("'99'").contains("supports 1, pre2, pre1");
      assertThat(s.closedByClient()).isTrue();
      assertThat(failure(call, DdpException.class)).hasMessageContaining("'99'");
      failure(sub.ready(), DdpException.class);
      h.time.advance(Duration.ofMinutes(5));
      assertThat(h.net.count()).as("no redial").isEqualTo(1);
      assertThat(failure(h.client.call("later"), DdpException.class)).hasMessageContaining("99");
    }
  }

  @Test
  void callResultsErrorsAndMissingResults() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      CompletableFuture<JsonNode> ok = h.client.call("add", 1, 2);
      CompletableFuture<JsonNode> none = h.client.call("noop");
      CompletableFuture<JsonNode> bad = h.client.call("secret");
      s.expect(
          "{'msg':'method','method':'add','params':[1,2],'id':'1'}",
          "{'msg':'method','method':'noop','params':[],'id':'2'}",
          "{'msg':'method','method':'secret','params':[],'id':'3'}");

      s.send("{'msg':'result','id':'1','result':{'sum':3}}");
      s.send("{'msg':'result','id':'2'}");
      s.send("{'msg':'result','id':'3','error':{'error':403,'reason':'Not allowed',"
          + "'details':{'x':1}}}");

      assertThat(ok).isCompletedWithValue(json("{'sum':3}"));
      assertThat(none).isCompletedWithValue(json("null"));
      DdpMethodException e = failure(bad, DdpMethodException.class);
      assertThat(e.error()).isEqualTo("403");
      assertThat(e.reason()).isEqualTo("Not allowed");
      assertThat(e.details()).isEqualTo(json("{'x':1}"));
    }
  }

  @Test
  void twoWaitCallsKeepTheirOrderAndHoldLaterCalls() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.client.call("login", List.of("a"), CallOptions.WAIT);
      h.client.call("second", List.of(), CallOptions.WAIT);
      h.client.call("third");
      h.client.call("fourth");
      s.expect("{'msg':'method','method':'login','params':['a'],'id':'1'}");

      s.send("{'msg':'result','id':'1'}");
      s.expect("{'msg':'method','method':'second','params':[],'id':'2'}");

      s.send("{'msg':'result','id':'2'}");
      s.expect(
          "{'msg':'method','method':'third','params':[],'id':'3'}",
          "{'msg':'method','method':'fourth','params':[],'id':'4'}");
    }
  }

  @Test
  void callsMadeBeforeConnectGoOutAfterConnectedInOrder() {
    try (Harness h = new Harness()) {
      h.client.call("a");
      h.client.call("b");
      Subscription sub = h.client.subscribe("feed", 1);
      h.client.call("c");

      h.connect("s1")
          .expect(
              "{'msg':'method','method':'a','params':[],'id':'1'}",
              "{'msg':'method','method':'b','params':[],'id':'2'}",
              "{'msg':'method','method':'c','params':[],'id':'3'}",
              "{'msg':'sub','id':'" + sub.id() + "','name':'feed','params':[1]}");
    }
  }

  @Test
  void offlineQueueOverflowFailsAtOnceWithAClearError() {
    try (Harness h = new Harness(b -> b.maxQueuedCalls(2))) {
      CompletableFuture<JsonNode> a = h.client.call("a");
      CompletableFuture<JsonNode> b = h.client.call("b");
      CompletableFuture<JsonNode> c = h.client.call("c");

      assertThat(a).isNotDone();
      assertThat(b).isNotDone();
      assertThat(failure(c, DdpException.class)).hasMessageContaining("maxQueuedCalls");
      h.connect("s1")
          .expect(
              "{'msg':'method','method':'a','params':[],'id':'1'}",
              "{'msg':'method','method':'b','params':[],'id':'2'}");
    }
  }

  @Test
  void subThenUnsubKeepTheirOrderAndReadyCompletesTheHandle() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      Subscription a = h.client.subscribe("a");
      s.send("{'msg':'ready','subs':['" + a.id() + "']}");
      assertThat(a.ready()).isCompleted();
      assertThat(a.isReady()).isTrue();

      Subscription b = h.client.subscribe("b", "x");
      b.stop();

      s.expect(
          "{'msg':'sub','id':'" + a.id() + "','name':'a','params':[]}",
          "{'msg':'sub','id':'" + b.id() + "','name':'b','params':['x']}",
          "{'msg':'unsub','id':'" + b.id() + "'}");
      failure(b.ready(), DdpException.class);
      assertThat(b.isReady()).isFalse();
      assertThat(b.id()).hasSize(17).isNotEqualTo(a.id());
    }
  }

  @Test
  void subscriptionStoppedWhileOfflineIsNeverSent() {
    try (Harness h = new Harness()) {
      Subscription sub = h.client.subscribe("a");
      sub.stop();
      h.connect("s1").expectNothing();
    }
  }

  @Test
  void nosubWithAnErrorFailsTheHandleWithTheServerError() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      Subscription sub = h.client.subscribe("private");
      s.send("{'msg':'nosub','id':'" + sub.id() + "','error':{'error':'not-allowed',"
          + "'reason':'Login required'}}");

      DdpMethodException e = failure(sub.ready(), DdpMethodException.class);
      assertThat(e.error()).isEqualTo("not-allowed");
      assertThat(e.reason()).isEqualTo("Login required");

      ServerEnd s2 = h.dropAndReconnect(s, "s1", "s2");
      s2.expectNothing(); // a refused subscription is not revived
    }
  }

  @Test
  void dataMessagesFillTheStoreAndNotifyListeners() {
    try (Harness h = new Harness()) {
      List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
      h.client.collection("users").addListener(ReconnectTest.recorder(events));
      ServerEnd s = h.connect("s1");
      s.send("{'msg':'added','collection':'users','id':'u1','fields':{'name':'ann','age':3}}");
      s.send("{'msg':'changed','collection':'users','id':'u1','fields':{'age':4},"
          + "'cleared':['name']}");
      s.send("{'msg':'addedBefore','collection':'users','id':'u2','fields':{},'before':null}");
      s.send("{'msg':'movedBefore','collection':'users','id':'u2','before':'u1'}");
      s.send("{'msg':'removed','collection':'users','id':'u2'}");

      assertThat(events)
          .containsExactly(
              "added u1 {\"name\":\"ann\",\"age\":3}",
              "changed u1 {\"age\":4} cleared [name]",
              "added u2 {}",
              "removed u2");
      assertThat(h.client.collection("users").get("u1")).contains(
          (com.fasterxml.jackson.databind.node.ObjectNode) json("{'age':4}"));
      assertThat(h.client.stats().protocolErrors()).isZero();
    }
  }

  @Test
  void topLevelErrorMessageIsCountedAndNotFatal() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      s.send("{'msg':'error','reason':'Bad request','offendingMessage':{'msg':'x'}}");
      assertThat(h.client.stats().serverErrors()).isEqualTo(1);
      assertThat(s.closedByClient()).isFalse();
      assertThat(h.client.status().connected()).isTrue();
    }
  }
}
