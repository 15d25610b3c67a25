package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static dev.ddpkit.ddp.memory.ServerEnd.json;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input from the server: counted, never a dead thread or a hanging future. The tolerant
 * default is in {@link TolerantProtocolTest}; here what holds in both modes, and strict mode.
 */
@Timeout(value = 30, unit = SECONDS)
class BadFramesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"msg\":\"result\",",
        "[1,2,3]",
        "\"just a string\"",
        "",
        "{\"msg\":42}",
        "{\"no\":\"msg\"}",
        "{\"msg\":\"result\",\"id\":1,\"result\":2}",
        "{\"msg\":\"ready\",\"subs\":\"abc\"}",
        "{\"msg\":\"added\",\"collection\":\"c\",\"id\":\"1\",\"fields\":\"x\"}",
        "{\"msg\":\"changed\",\"collection\":\"c\",\"id\":\"1\",\"cleared\":\"x\"}",
        "{\"msg\":\"nosub\",\"id\":{}}",
        "{\"msg\":\"nosub\",\"error\":\"boom\"}",
        "{\"msg\":\"updated\",\"methods\":{}}",
        "{\"msg\":\"ping\"} trailing"
      })
  void inStrictModeAnInvalidFrameDropsAndRedialsAndNoFutureHangs(String frame) {
    try (Harness h = new Harness(b -> b.strictProtocol(true))) {
      ServerEnd s1 = h.connect("s1");
      Subscription sub = h.client.subscribe("feed");
      CompletableFuture<JsonNode> retried = h.client.call("retried");
      CompletableFuture<JsonNode> once =
          h.client.call("once", List.of(), CallOptions.DEFAULT.withNoRetry(true));
      s1.drain();

      s1.sendRaw(frame);

      assertThat(h.client.stats().protocolErrors()).isEqualTo(1);
      assertThat(h.client.stats().lastProtocolError()).isNotEmpty().doesNotContain("trailing");
      assertThat(s1.closedByClient()).isTrue();
      assertThat(failure(once, DdpMethodException.class).error()).isEqualTo("invocation-failed");
      h.redial();
      ServerEnd s2 = h.handshake(Harness.connectNamingSession("s1") /* a protocol drop: no resume */, "s2");
      s2.expect(
          "{'msg':'sub','id':'" + sub.id() + "','name':'feed','params':[]}",
          "{'msg':'method','method':'retried','params':[],'id':'1'}");
      s2.send("{'msg':'result','id':'1','result':true}");
      s2.send("{'msg':'ready','subs':['" + sub.id() + "']}");
      s2.send("{'msg':'updated','methods':['1']}");
      assertThat(retried).isCompletedWithValue(json("true"));
      assertThat(sub.ready()).isCompleted();
    }
  }

  @Test
  void frameOverTheSizeLimitDropsTheConnection() {
    try (Harness h = new Harness(b -> b.maxFrameBytes(1024))) {
      ServerEnd s = h.connect("s1");
      s.sendRaw("{\"msg\":\"added\",\"collection\":\"c\",\"id\":\"1\",\"fields\":{\"x\":\""
          + "y".repeat(2000) + "\"}}");
      assertThat(h.client.stats().protocolErrors()).isEqualTo(1);
      assertThat(h.client.stats().lastProtocolError()).contains("limit of 1024 bytes");
      assertThat(s.closedByClient()).isTrue();
      assertThat(s.clientCloseCode()).isEqualTo(1009);
      assertThat(h.client.collection("c").size()).isZero();
    }
  }

  @Test
  void unknownMessageTypeAndResultForUnknownIdAreCountedAndIgnored() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      CompletableFuture<JsonNode> call = h.client.call("x");
      s.drain();

      s.send("{'msg':'teleport','id':'1'}");
      s.send("{'msg':'result','id':'999','result':1}");
      s.send("{'msg':'changed','collection':'c','id':'nope','fields':{'a':1}}");

      assertThat(h.client.stats().protocolErrors()).isEqualTo(3);
      assertThat(s.closedByClient()).isFalse();
      s.send("{'msg':'result','id':'1','result':1}");
      assertThat(call).isCompletedWithValue(json("1"));
    }
  }

  @Test
  void throwingListenersDoNotKillTheClient() {
    try (Harness h = new Harness()) {
      h.client.collection("c").addListener(new CollectionListener() {
        @Override
        public void onAdded(String collection, String id,
            com.fasterxml.jackson.databind.node.ObjectNode fields) {
          throw new IllegalStateException("listener bug");
        }
      });
      h.client.addStatusListener(st -> {
        throw new IllegalStateException("listener bug");
      });
      ServerEnd s = h.connect("s1");
      s.send("{'msg':'added','collection':'c','id':'1','fields':{}}");
      CompletableFuture<JsonNode> call = h.client.call("x");
      s.drain();
      s.send("{'msg':'result','id':'1','result':1}");
      assertThat(call).isCompletedWithValue(json("1"));
      assertThat(h.client.collection("c").size()).isEqualTo(1);
    }
  }
}
