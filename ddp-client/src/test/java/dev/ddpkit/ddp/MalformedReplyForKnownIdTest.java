package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static dev.ddpkit.ddp.memory.ServerEnd.json;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression: a reply for a known id with a malformed field used to drop the connection; the call
 * or subscription went out again on the next one, the same reply came back, and so on forever
 * while the future never completed. Now only that target fails and the connection stays.
 */
@Timeout(value = 30, unit = SECONDS)
class MalformedReplyForKnownIdTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{'msg':'result','id':'1','error':'boom'}",
        "{'msg':'result','id':'1','error':{'error':true}}",
        "{'msg':'result','id':'1','error':{'error':'x','reason':7}}"
      })
  void malformedResultFailsOnlyThatCallAndKeepsTheConnection(String frame) {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      CompletableFuture<JsonNode> bad = h.client.call("bad");
      s.drain();

      s.send(frame);

      DdpException e = failure(bad, DdpException.class);
      assertThat(e).isNotInstanceOf(DdpMethodException.class);
      assertThat(e.getMessage()).contains("protocol error", "bad", "'error");
      assertThat(h.client.stats().protocolErrors()).isEqualTo(1);
      assertThat(s.closedByClient()).isFalse();

      h.time.advance(Duration.ofSeconds(5));
      assertThat(h.net.count()).as("no redial").isEqualTo(1);
      s.expectNothing(); // the call is not sent again
      CompletableFuture<JsonNode> later = h.client.call("later");
      s.expect("{'msg':'method','method':'later','params':[],'id':'2'}");
      s.send("{'msg':'result','id':'2','result':42}");
      assertThat(later).isCompletedWithValue(json("42"));
      assertThat(h.client.stats().reconnects()).isZero();
    }
  }

  @Test
  void malformedNosubEndsOnlyThatSubscriptionWithAProtocolError() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      Subscription bad = h.client.subscribe("bad");
      Subscription good = h.client.subscribe("good");
      s.drain();

      s.send("{'msg':'nosub','id':'" + bad.id() + "','error':'denied'}");

      assertThat(failure(bad.ended(), DdpException.class).getMessage())
          .contains("protocol error", "bad", "'error'");
      assertThat(failure(bad.ready(), DdpException.class)).isNotInstanceOf(DdpMethodException.class);
      assertThat(s.closedByClient()).isFalse();
      assertThat(h.client.stats().protocolErrors()).isEqualTo(1);
      s.send("{'msg':'ready','subs':['" + good.id() + "']}");
      assertThat(good.ready()).isCompleted();
      h.time.advance(Duration.ofSeconds(5));
      assertThat(h.net.count()).as("no redial").isEqualTo(1);
      s.expectNothing(); // the subscription is not sent again
    }
  }

  @Test
  void readyAndUpdatedWithANonStringIdKeepTheReadableIdsAndTheConnection() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      Subscription sub = h.client.subscribe("feed");
      CompletableFuture<JsonNode> call = h.client.call("m");
      s.drain();

      s.send("{'msg':'ready','subs':['" + sub.id() + "',7]}");
      s.send("{'msg':'result','id':'1','result':1}");
      s.send("{'msg':'updated','methods':[{},'1']}");

      assertThat(sub.ready()).isCompleted();
      assertThat(call).isCompletedWithValue(json("1"));
      assertThat(h.client.stats().protocolErrors()).isEqualTo(2);
      assertThat(h.client.stats().lastProtocolError()).contains("methods[]");
      assertThat(s.closedByClient()).isFalse();
      assertThat(h.net.count()).isEqualTo(1);
    }
  }
}
