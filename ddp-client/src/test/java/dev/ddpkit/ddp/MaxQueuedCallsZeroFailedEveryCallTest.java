package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (review): {@code maxQueuedCalls(0)} was accepted, and then every call failed with
 * "too many calls waiting", even while connected. A limit below 1 is now refused at the setter.
 */
@Timeout(value = 30, unit = SECONDS)
class MaxQueuedCallsZeroFailedEveryCallTest {

  @Test
  void zeroIsRefusedAtTheSetterNamingTheField() {
    DdpClientBuilder b = DdpClient.builder();
    assertThatThrownBy(() -> b.maxQueuedCalls(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxQueuedCalls");
  }

  @Test
  void theSmallestLimitStillLetsEveryCallThroughWhileConnected() {
    try (Harness h = new Harness(b -> b.maxQueuedCalls(1))) {
      ServerEnd s = h.connect("s1");
      s.drain();

      CompletableFuture<JsonNode> a = h.client.call("a");
      CompletableFuture<JsonNode> b = h.client.call("b");

      assertThat(a).isNotDone();
      assertThat(b).isNotDone();
      s.expect(
          "{'msg':'method','method':'a','params':[],'id':'1'}",
          "{'msg':'method','method':'b','params':[],'id':'2'}");
    }
  }
}
