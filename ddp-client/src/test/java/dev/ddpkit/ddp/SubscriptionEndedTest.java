package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.memory.ServerEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Subscription#ended()}: the signal that a subscription is gone, which {@link
 * Subscription#ready()} cannot give once it has completed (a revived subscription refused after a
 * reconnect, a publication ended by the server). In-memory transport, virtual time.
 */
@Timeout(value = 30, unit = SECONDS)
class SubscriptionEndedTest {

  private static String sub(Subscription s, String params) {
    return "{'msg':'sub','id':'" + s.id() + "','name':'room','params':" + params + "}";
  }

  private static String ready(Subscription s) {
    return "{'msg':'ready','subs':['" + s.id() + "']}";
  }

  @Test
  void plainNosubAfterReadyEndsTheSubscriptionWithADdpException() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription room = h.client.subscribe("room", "r1");
      s1.expect(sub(room, "['r1']")).send(ready(room));
      assertThat(room.ready()).isCompleted();
      assertThat(room.ended()).isNotDone();

      s1.send("{'msg':'nosub','id':'" + room.id() + "'}");

      DdpException e = failure(room.ended(), DdpException.class);
      assertThat(e).isNotInstanceOf(DdpMethodException.class);
      assertThat(e.getMessage()).contains("room").contains("stopped by the server");
      assertThat(room.isReady()).isFalse();
      assertThat(room.ready()).as("the first ready stays as it was").isCompleted()
          .isNotCompletedExceptionally();
      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.expectNothing(); // an ended subscription is not revived
    }
  }

  @Test
  void nosubWithAnErrorAfterReadyEndsItWithTheServersError() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription room = h.client.subscribe("room", "r1");
      s1.expect(sub(room, "['r1']")).send(ready(room));

      s1.send("{'msg':'nosub','id':'" + room.id() + "','error':{'error':'too-busy',"
          + "'reason':'Try later'}}");

      DdpMethodException e = failure(room.ended(), DdpMethodException.class);
      assertThat(e.error()).isEqualTo("too-busy");
      assertThat(e.reason()).isEqualTo("Try later");
    }
  }

  @Test
  void revivedSubscriptionRefusedAfterAReconnectEndsWithTheServersErrorAndIsNotSentAgain() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription room = h.client.subscribe("room", "r1");
      s1.expect(sub(room, "['r1']")).send(ready(room));

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.expect(sub(room, "['r1']"));
      assertThat(room.ended()).as("alive across the reconnect until the server answers")
          .isNotDone();
      s2.send("{'msg':'nosub','id':'" + room.id() + "','error':{'error':403,"
          + "'reason':'Not a member'}}");

      DdpMethodException e = failure(room.ended(), DdpMethodException.class);
      assertThat(e.error()).isEqualTo("403");
      assertThat(room.ready()).as("ready() cannot tell: it completed long ago").isCompleted()
          .isNotCompletedExceptionally();
      assertThat(room.isReady()).isFalse();
      h.dropAndReconnect(s2, "s2", "s3").expectNothing();
    }
  }

  @Test
  void subscriptionRevivedAndReadyAgainHasNotEnded() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription room = h.client.subscribe("room", "r1");
      s1.expect(sub(room, "['r1']")).send(ready(room));

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.expect(sub(room, "['r1']")).send(ready(room));

      assertThat(room.ended()).isNotDone();
      assertThat(room.isReady()).isTrue();
    }
  }

  @Test
  void stopEndsItNormally() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription room = h.client.subscribe("room", "r1");
      s1.expect(sub(room, "['r1']")).send(ready(room));

      room.stop();

      s1.expect("{'msg':'unsub','id':'" + room.id() + "'}");
      assertThat(room.ended()).isCompleted().isNotCompletedExceptionally();
      s1.send("{'msg':'nosub','id':'" + room.id() + "'}"); // the server's answer changes nothing
      assertThat(room.ended()).isNotCompletedExceptionally();
    }
  }

  @Test
  void stopBeforeReadyEndsItNormallyAndFailsReady() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Subscription room = h.client.subscribe("room", "r1");
      s1.drain();

      room.stop();

      assertThat(room.ended()).isCompleted().isNotCompletedExceptionally();
      failure(room.ready(), DdpException.class);
    }
  }

  @Test
  void closeEndsItWithADdpException() {
    Subscription room;
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      room = h.client.subscribe("room", "r1");
      s1.expect(sub(room, "['r1']")).send(ready(room));
    }

    assertThat(failure(room.ended(), DdpException.class)).hasMessageContaining("client closed");
  }

  @Test
  void subscribingAfterCloseReturnsAnEndedSubscription() {
    Harness h = new Harness();
    h.close();

    Subscription room = h.client.subscribe("room", "r1");

    assertThat(failure(room.ended(), DdpException.class)).hasMessageContaining("client closed");
  }

  @Test
  void failingForGoodEndsItWithADdpException() {
    try (Harness h = new Harness()) {
      Subscription room = h.client.subscribe("room", "r1");
      h.client.connect();
      ServerEnd s1 = h.net.last();
      s1.open().drain();

      s1.send("{'msg':'failed','version':'42'}"); // a version this client does not speak

      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.FAILED);
      assertThat(failure(room.ended(), DdpException.class))
          .hasMessageContaining("connection failed");
    }
  }
}
