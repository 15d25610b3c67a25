package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link DdpClient#isResyncing()}, {@link Subscription#isCurrent()} and the {@link
 * ResyncListener}: after a loss the collections still show the old data, and the application can
 * tell, frame by frame, until the resync swaps in the server's.
 */
@Timeout(value = 30, unit = SECONDS)
class ResyncFlagTest {

  @Test
  void staleFromTheLossUntilTheSwapThenCurrentAgain() {
    try (Harness h = new Harness()) {
      List<String> events = new CopyOnWriteArrayList<>();
      h.client.addResyncListener(r -> events.add("resyncing " + r));
      h.client.collection("items").addListener(new CollectionListener() {
        @Override
        public void onChanged(String c, String id, ObjectNode fields, List<String> cleared) {
          events.add("changed " + id);
        }
      });
      assertThat(h.client.isResyncing()).as("nothing shown yet, nothing stale").isFalse();
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      h.client.call("touch");
      s1.drain();
      assertThat(items.isCurrent()).as("not ready yet").isFalse();
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1}}");
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");
      assertThat(items.isCurrent()).isTrue();
      assertThat(h.client.isResyncing()).isFalse();

      s1.closeFromServer(1006, "");

      assertThat(h.client.isResyncing()).isTrue();
      assertThat(events).containsExactly("resyncing true");
      assertThat(items.isReady()).as("unchanged: still ready").isTrue();
      assertThat(items.isCurrent()).isFalse();
      assertThat(items.toString()).contains("ready stale");

      h.redial();
      ServerEnd s2 = h.handshake(h.connectWithSession("s1"), "s2");
      s2.drain();
      s2.send("{'msg':'added','collection':'items','id':'a','fields':{'v':2}}");
      s2.send("{'msg':'ready','subs':['" + items.id() + "']}");
      s2.send("{'msg':'result','id':'1'}");
      assertThat(h.client.isResyncing()).as("the re-sent call is not updated yet").isTrue();
      assertThat(items.isCurrent()).isFalse();
      assertThat(h.client.collection("items").snapshot().get("a").get("v").asInt())
          .as("the stale value still shows")
          .isEqualTo(1);

      s2.send("{'msg':'updated','methods':['1']}");

      assertThat(h.client.isResyncing()).isFalse();
      assertThat(items.isCurrent()).isTrue();
      assertThat(events)
          .as("told after the collection listeners saw the swap")
          .containsExactly("resyncing true", "changed a", "resyncing false");
    }
  }

  @Test
  void aReconnectWithNothingToResyncIsCurrentAtOnce() {
    try (Harness h = new Harness()) {
      List<Boolean> told = new CopyOnWriteArrayList<>();
      h.client.addResyncListener(told::add);
      ServerEnd s1 = h.connect("s1");

      h.dropAndReconnect(s1, "s1", "s2");

      assertThat(h.client.isResyncing()).isFalse();
      assertThat(told).containsExactly(true, false);
    }
  }

  @Test
  void aLossDuringTheResyncTellsOnceAndTheNextResyncEndsIt() {
    try (Harness h = new Harness()) {
      List<Boolean> told = new CopyOnWriteArrayList<>();
      h.client.addResyncListener(told::add);
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      s1.drain();
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.drain();
      ServerEnd s3 = h.dropAndReconnect(s2, "s2", "s3");
      assertThat(told).containsExactly(true);
      s3.drain();
      s3.send("{'msg':'ready','subs':['" + items.id() + "']}");

      assertThat(told).containsExactly(true, false);
      assertThat(items.isCurrent()).isTrue();
    }
  }

  @Test
  void aSubscriptionRefusedWhenRevivedIsNotCurrentAndTheResyncStillEnds() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription kept = h.client.subscribe("kept");
      Subscription refused = h.client.subscribe("refused");
      s1.drain();
      s1.send("{'msg':'ready','subs':['" + kept.id() + "','" + refused.id() + "']}");

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.drain();
      s2.send("{'msg':'nosub','id':'" + refused.id() + "','error':{'error':403,'reason':'no'}}");
      assertThat(h.client.isResyncing()).as("the other one is not ready yet").isTrue();
      s2.send("{'msg':'ready','subs':['" + kept.id() + "']}");

      assertThat(h.client.isResyncing()).isFalse();
      assertThat(kept.isCurrent()).isTrue();
      assertThat(refused.isCurrent()).isFalse();
      assertThat(refused.ended()).isCompletedExceptionally();
    }
  }

  @Test
  void aCallNeverUpdatedEndsTheResyncAtTheTimeoutWithTheDataReceived() {
    try (Harness h = new Harness()) {
      List<Boolean> told = new CopyOnWriteArrayList<>();
      h.client.addResyncListener(told::add);
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      h.client.call("touch");
      s1.drain();
      s1.send("{'msg':'added','collection':'items','id':'a','fields':{'v':1}}");
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.drain();
      s2.send("{'msg':'added','collection':'items','id':'a','fields':{'v':2}}");
      s2.send("{'msg':'ready','subs':['" + items.id() + "']}");
      s2.send("{'msg':'result','id':'1'}"); // and never 'updated'

      h.time.advance(Duration.ofSeconds(29));
      assertThat(h.client.isResyncing()).as("still waiting before the timeout").isTrue();
      assertThat(h.client.collection("items").snapshot().get("a").get("v").asInt()).isEqualTo(1);

      h.time.advance(Duration.ofSeconds(1));
      assertThat(h.client.isResyncing()).as("given up waiting at 30 s").isFalse();
      assertThat(items.isCurrent()).isTrue();
      assertThat(h.client.collection("items").snapshot().get("a").get("v").asInt()).isEqualTo(2);
      assertThat(told).containsExactly(true, false);
      assertThat(h.client.status().connected()).as("the connection is kept").isTrue();
    }
  }

  @Test
  void aSubscriptionStillNotReadyAtTheTimeoutBecomesCurrentWhenItsReadyComes() {
    try (Harness h = new Harness(b -> b.resyncTimeout(Duration.ofSeconds(5)))) {
      ServerEnd s1 = h.connect("s1");
      Subscription fast = h.client.subscribe("fast");
      Subscription slow = h.client.subscribe("slow");
      s1.drain();
      s1.send("{'msg':'ready','subs':['" + fast.id() + "','" + slow.id() + "']}");

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.drain();
      s2.send("{'msg':'ready','subs':['" + fast.id() + "']}");
      assertThat(h.client.isResyncing()).isTrue();

      h.time.advance(Duration.ofSeconds(5));
      assertThat(h.client.isResyncing()).isFalse();
      assertThat(fast.isCurrent()).isTrue();
      assertThat(slow.isCurrent()).as("its data has not come yet").isFalse();

      s2.send("{'msg':'ready','subs':['" + slow.id() + "']}");
      assertThat(slow.isCurrent()).isTrue();
    }
  }

  @Test
  void aResyncThatFinishesInTimeLeavesNoTimerBehind() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      s1.drain();
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");
      int before = h.time.pendingTasks();

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.drain();
      s2.send("{'msg':'ready','subs':['" + items.id() + "']}");

      assertThat(h.client.isResyncing()).isFalse();
      assertThat(h.time.pendingTasks()).as("the resync timer was cancelled").isEqualTo(before);
    }
  }

  @Test
  void aFailureForGoodLeavesTheDataMarkedStale() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription items = h.client.subscribe("items");
      s1.drain();
      s1.send("{'msg':'ready','subs':['" + items.id() + "']}");

      s1.closeFromServer(1006, "");
      h.manager.stop();

      assertThat(h.client.isResyncing()).isTrue();
      assertThat(items.isCurrent()).isFalse();
    }
  }
}
