package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.PATIENCE;
import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.ddpkit.ddp.DdpMethodException;
import dev.ddpkit.ddp.testserver.MethodCall;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that bends the spec the way third-party DDP servers do: it answers every call with
 * {@code {"msg":"updated","id":...}} instead of a {@code methods} list, sends method errors as a
 * frame without {@code msg}, and throws in an unknown message and extra fields. Before the client
 * read frames tolerantly, each call cost a reconnect, and a call answered with such an error was
 * re-sent on every reconnect, for ever.
 */
@Timeout(value = 60, unit = SECONDS)
class SpecBendingServerTest {

  /** Odd call numbers fail, even ones succeed; every answer bends the spec. */
  private static void answerLikeAThirdPartyServer(MethodCall call) {
    int n = call.params().get(0).asInt();
    if (n % 2 == 1) {
      call.connection().send(
          "{\"id\":\"" + call.id() + "\",\"error\":{\"error\":500,\"reason\":\"odd " + n + "\"}}");
    } else {
      call.connection().send(
          "{\"msg\":\"result\",\"id\":\"" + call.id() + "\",\"result\":" + n + ",\"at\":1}");
    }
    call.connection().send("{\"msg\":\"updated\",\"id\":\"" + call.id() + "\"}");
    call.connection().send("{\"msg\":\"serverStats\",\"load\":0.5}");
  }

  @Test
  void tenCallsInARowAllCompleteWithNoReconnect() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.fallbackMethod(SpecBendingServerTest::answerLikeAThirdPartyServer);
      Loopback.Client c = lb.client(server.uri()).connected();

      for (int n = 1; n <= 10; n++) {
        CompletableFuture<JsonNode> call = c.ddp.call("work", n);
        if (n % 2 == 1) {
          try {
            call.get(PATIENCE.toSeconds(), SECONDS);
            throw new AssertionError("call " + n + " should have failed");
          } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(DdpMethodException.class);
            assertThat(((DdpMethodException) e.getCause()).reason()).isEqualTo("odd " + n);
          }
        } else {
          assertThat(call.get(PATIENCE.toSeconds(), SECONDS)).isEqualTo(IntNode.valueOf(n));
        }
      }

      // 5 errors without 'msg' and 10 'updated' with 'id' read as meant; the 10 unknown 'serverStats' dropped.
      eventually().untilAsserted(() -> {
        assertThat(c.ddp.stats().deviations()).as("%s", c.ddp.stats()).isEqualTo(15);
        assertThat(c.ddp.stats().protocolErrors()).as("%s", c.ddp.stats()).isEqualTo(10);
      });
      assertThat(c.ddp.stats().reconnects()).isZero();
      assertThat(c.ddp.stats().protocolDrops()).isZero();
      assertThat(server.connections()).hasSize(1);
      assertThat(c.ddp.status().connected()).isTrue();
    }
  }

  @Test
  void inStrictModeTheSameServerCostsAReconnect() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.fallbackMethod(SpecBendingServerTest::answerLikeAThirdPartyServer);
      Loopback.Client c = lb.client(server.uri(), b -> b.strictProtocol(true)).connected();

      assertThat(c.ddp.call("work", 2).get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(IntNode.valueOf(2));

      eventually().until(() -> c.ddp.stats().protocolDrops() >= 1);
      eventually().until(() -> c.ddp.stats().reconnects() >= 1);
      assertThat(c.ddp.stats().deviations()).isZero();
    }
  }
}
