package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static dev.ddpkit.ddp.memory.ServerEnd.json;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The reconnect scenarios of Meteor's own client tests, frame by frame on virtual time. */
@Timeout(value = 30, unit = SECONDS)
class ReconnectTest {

  private static String sub(Subscription s, String name, String params) {
    return "{'msg':'sub','id':'" + s.id() + "','name':'" + name + "','params':" + params + "}";
  }

  @Test
  void reconnectSendsConnectWithOldSessionThenHookCallsThenSubsThenUnansweredCalls() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription room = h.client.subscribe("room", "r1");
      CompletableFuture<JsonNode> echo = h.client.call("echo", 42);
      s1.expect(
          sub(room, "room", "['r1']"), "{'msg':'method','method':'echo','params':[42],'id':'1'}");
      h.client.addReconnectHook(c -> c.call("hello", "again"));

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");

      s2.expect(
          "{'msg':'method','method':'hello','params':['again'],'id':'2'}",
          sub(room, "room", "['r1']"),
          "{'msg':'method','method':'echo','params':[42],'id':'1'}");
      assertThat(echo).isNotDone();
      s2.send("{'msg':'result','id':'1','result':43}");
      assertThat(echo).isCompletedWithValue(json("43"));
    }
  }

  @Test
  void reconnectHookLoginAsWaitCallGoesOutAheadOfResentCallsWhichWaitForItsResult() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      CompletableFuture<JsonNode> send = h.client.call("sendMessage", "hi");
      s1.expect("{'msg':'method','method':'sendMessage','params':['hi'],'id':'1'}");
      h.client.addReconnectHook(
          c -> c.call("login", List.of(Map.of("resume", "token-1")), CallOptions.WAIT));

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");

      s2.expect("{'msg':'method','method':'login','params':[{'resume':'token-1'}],'id':'2'}");
      s2.send("{'msg':'result','id':'2','result':{'id':'u1'}}");
      s2.expect("{'msg':'method','method':'sendMessage','params':['hi'],'id':'1'}");
      s2.send("{'msg':'result','id':'1'}");
      assertThat(send).isCompletedWithValue(json("null"));
    }
  }

  @Test
  void noRetryCallFailsWithInvocationFailedWhenTheConnectionDropsAndIsNotResent() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      CompletableFuture<JsonNode> once =
          h.client.call("charge", List.of(10), CallOptions.DEFAULT.withNoRetry(true));
      s1.expect("{'msg':'method','method':'charge','params':[10],'id':'1'}");

      s1.closeFromServer(1006, "");

      DdpMethodException e = failure(once, DdpMethodException.class);
      assertThat(e.error()).isEqualTo(DdpMethodException.INVOCATION_FAILED);
      h.redial();
      h.handshake(h.connectWithSession("s1"), "s2").expectNothing();
    }
  }

  @Test
  void callThatGotItsResultButNotUpdatedIsNotResent() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      CompletableFuture<JsonNode> call = h.client.call("insert", "x");
      s1.expect("{'msg':'method','method':'insert','params':['x'],'id':'1'}");
      s1.send("{'msg':'result','id':'1','result':'id-9'}");
      assertThat(call).isCompletedWithValue(json("'id-9'"));

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");

      s2.expectNothing();
    }
  }

  @Test
  void resentCallKeepsItsIdAndRandomSeed() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      h.client.call("insert", List.of("x"), CallOptions.DEFAULT.withRandomSeed("seed-1"));
      String frame =
          "{'msg':'method','method':'insert','params':['x'],'id':'1','randomSeed':'seed-1'}";
      s1.expect(frame);

      h.dropAndReconnect(s1, "s1", "s2").expect(frame);
    }
  }

  @Test
  void resyncShowsOnlyTheDifferenceAndNothingBeforeTheRevivedSubscriptionIsReady() {
    try (Harness h = new Harness()) {
      List<String> events = new CopyOnWriteArrayList<>();
      h.client.collection("items").addListener(recorder(events));
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      s1.expect(sub(items, "items", "[]"));
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1}}");
      s1.send("{'msg':'added','collection':'items','id':'b','fields':{'v':1,'w':1}}");
      s1.send("{'msg':'added','collection':'items','id':'c','fields':{'v':1}}");
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");
      assertThat(items.ready()).isCompleted();
      events.clear();

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.expect(sub(items, "items", "[]"));
      s2.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1}}");
      s2.send("{'msg':'added','collection':'items','id':'b','fields':{'v':2}}");
      s2.send("{'msg':'added','collection':'items','id':'d','fields':{'v':1}}");
      s2.send("{'msg':'changed','collection':'items','id':'d','fields':{'v':5}}");

      assertThat(events).as("nothing before ready").isEmpty();
      assertThat(h.client.collection("items").snapshot())
          .as("the old content still shows")
          .containsOnlyKeys("a", "b", "c");

      s2.send("{'msg':'ready','subs':['" + items.id() + "']}");

      assertThat(events)
          .containsExactlyInAnyOrder(
              "removed c", "changed b {\"v\":2} cleared [w]", "added d {\"v\":5}");
      assertThat(h.client.collection("items").snapshot())
          .isEqualTo(
              Map.of(
                  "a", json("{'v':1}"),
                  "b", json("{'v':2}"),
                  "d", json("{'v':5}")));
    }
  }

  @Test
  void resyncAlsoWaitsForTheUpdatedOfResentCalls() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      h.client.call("touch");
      s1.drain();

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.drain();
      s2.send("{'msg':'added','collection':'items','id':'a','fields':{}}");
      s2.send("{'msg':'ready','subs':['" + items.id() + "']}");
      s2.send("{'msg':'result','id':'1'}");
      assertThat(h.client.collection("items").size()).as("held until updated").isZero();
      assertThat(items.ready()).as("ready is shown with the data").isNotDone();

      s2.send("{'msg':'updated','methods':['1']}");

      assertThat(h.client.collection("items").size()).isEqualTo(1);
      assertThat(items.ready()).isCompleted();
    }
  }

  @Test
  void streamEventsAreDeliveredAtOnceDuringResyncAndNeverStored() {
    try (Harness h = new Harness()) {
      List<String> got = new CopyOnWriteArrayList<>();
      h.client.addStreamListener(
          "stream-room-messages", (c, id, fields) -> got.add(id + " " + fields));
      ServerEnd s1 = h.connect("s1");
      Subscription stream = h.client.subscribe("stream-room-messages", "r1");
      s1.drain();

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.expect(
          sub(stream, "stream-room-messages", "['r1']"));
      s2.send(
          "{'msg':'changed','collection':'stream-room-messages','id':'id',"
              + "'fields':{'eventName':'r1','args':[{'_id':'m1'}]}}");

      assertThat(got).containsExactly("id {\"eventName\":\"r1\",\"args\":[{\"_id\":\"m1\"}]}");
      assertThat(h.client.collection("stream-room-messages").size()).isZero();
    }
  }

  @Test
  void callsMadeWhileOfflineGoOutAfterTheResentOnesInOrder() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      h.client.call("first");
      s1.drain();
      s1.closeFromServer(1001, "going away");
      h.client.call("second");
      h.client.call("third");
      h.redial();

      h.handshake(h.connectWithSession("s1"), "s2")
          .expect(
              "{'msg':'method','method':'first','params':[],'id':'1'}",
              "{'msg':'method','method':'second','params':[],'id':'2'}",
              "{'msg':'method','method':'third','params':[],'id':'3'}");
    }
  }

  static CollectionListener recorder(List<String> events) {
    return new CollectionListener() {
      @Override
      public void onAdded(String collection, String id, ObjectNode fields) {
        events.add("added " + id + " " + fields);
      }

      @Override
      public void onChanged(String collection, String id, ObjectNode fields, List<String> cleared) {
        events.add("changed " + id + " " + fields + " cleared " + cleared);
      }

      @Override
      public void onRemoved(String collection, String id) {
        events.add("removed " + id);
      }
    };
  }
}
