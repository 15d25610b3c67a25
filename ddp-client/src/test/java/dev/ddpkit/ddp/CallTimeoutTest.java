package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static dev.ddpkit.ddp.memory.ServerEnd.json;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** CallOptions.withTimeout: a call that gets no answer cannot stay pending for ever. */
@Timeout(value = 30, unit = SECONDS)
class CallTimeoutTest {
  private static final CallOptions FIVE_SECONDS =
      CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(5));

  @Test
  void anUnansweredCallFailsAtItsTimeoutAndALateResultIsIgnored() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      CompletableFuture<JsonNode> call = h.client.call("slow", List.of(), FIVE_SECONDS);
      s.drain();
      h.time.advance(Duration.ofMillis(4_999));
      assertThat(call).isNotDone();

      h.time.advance(Duration.ofMillis(1));

      assertThat(failure(call, DdpTimeoutException.class)).hasMessageContaining("slow")
          .hasMessageContaining("5000 ms");
      s.send("{'msg':'result','id':'1','result':1}");
      assertThat(h.client.stats().lastProtocolError()).contains("unknown method id");
      assertThat(s.closedByClient()).isFalse();
    }
  }

  @Test
  void anAnsweredCallLeavesNoTimerBehind() {
    try (Harness h = new Harness(b -> b.heartbeatInterval(Duration.ZERO))) {
      ServerEnd s = h.connect("s1");
      int before = h.time.pendingTasks();
      CompletableFuture<JsonNode> call = h.client.call("a", List.of(), FIVE_SECONDS);
      assertThat(h.time.pendingTasks()).isEqualTo(before + 1);
      s.send("{'msg':'result','id':'1','result':1}");
      assertThat(call).isCompletedWithValue(json("1"));
      assertThat(h.time.pendingTasks()).isEqualTo(before);
    }
  }

  @Test
  void aCallQueuedOfflineThatTimesOutIsNeverSent() {
    try (Harness h = new Harness()) {
      CompletableFuture<JsonNode> call = h.client.call("queued", List.of(), FIVE_SECONDS);
      CompletableFuture<JsonNode> patient = h.client.call("patient");
      h.time.advance(Duration.ofSeconds(5));
      failure(call, DdpTimeoutException.class);

      ServerEnd s = h.connect("s1");

      s.expect("{'msg':'method','method':'patient','params':[],'id':'2'}");
      assertThat(patient).isNotDone();
    }
  }

  @Test
  void aWaitCallThatTimesOutReleasesTheCallsHeldBehindIt() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      CompletableFuture<JsonNode> login =
          h.client.call("login", List.of(), CallOptions.WAIT.withTimeout(Duration.ofSeconds(5)));
      CompletableFuture<JsonNode> after = h.client.call("after");
      s.expect("{'msg':'method','method':'login','params':[],'id':'1'}");

      h.time.advance(Duration.ofSeconds(5));

      failure(login, DdpTimeoutException.class);
      s.expect("{'msg':'method','method':'after','params':[],'id':'2'}");
      s.send("{'msg':'result','id':'2','result':0}");
      assertThat(after).isCompletedWithValue(json("0"));
    }
  }

  @Test
  void aTimedOutCallIsNotResentAfterAReconnect() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      CompletableFuture<JsonNode> call = h.client.call("a", List.of(), FIVE_SECONDS);
      s1.drain();
      s1.closeFromServer(1006, "");
      h.time.advance(Duration.ofSeconds(5)); // the redial is due at 1 s but not opened yet
      failure(call, DdpTimeoutException.class);

      h.handshake(h.connectWithSession("s1"), "s2").expectNothing();

      assertThat(h.client.isResyncing()).isFalse();
    }
  }

  @Test
  void aTimeoutMustBePositive() {
    assertThatThrownBy(() -> CallOptions.DEFAULT.withTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
  }
}
