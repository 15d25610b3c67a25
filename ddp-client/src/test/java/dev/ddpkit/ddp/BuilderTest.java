package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Builder validation: bad arguments at the setter, conflicts at build(). */
@Timeout(value = 30, unit = SECONDS)
class BuilderTest {

  @Test
  void urlMustBeWebSocketWithAHost() {
    assertThatThrownBy(() -> DdpClient.builder().url("http://example.com/websocket"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url");
    assertThatThrownBy(() -> DdpClient.builder().url("ws:///websocket"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url");
    assertThatThrownBy(() -> DdpClient.builder().url("ws://bad host"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url");
    assertThatThrownBy(() -> DdpClient.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("url");
  }

  @Test
  void settersNameTheFieldTheyReject() {
    DdpClient.Builder b = DdpClient.builder();
    assertThatThrownBy(() -> b.heartbeatTimeout(Duration.ZERO)).hasMessageContaining(
        "heartbeatTimeout");
    assertThatThrownBy(() -> b.heartbeatInterval(Duration.ofSeconds(-1))).hasMessageContaining(
        "heartbeatInterval");
    assertThatThrownBy(() -> b.connectTimeout(Duration.ofMillis(-5))).hasMessageContaining(
        "connectTimeout");
    assertThatThrownBy(() -> b.reopen(Duration.ZERO)).hasMessageContaining("reopen");
    assertThatThrownBy(() -> b.maxQueuedCalls(-1)).hasMessageContaining("maxQueuedCalls");
    assertThatThrownBy(() -> b.maxFrameBytes(0)).hasMessageContaining("maxFrameBytes");
    assertThatThrownBy(() -> b.name(" ")).hasMessageContaining("name");
  }

  @Test
  void reconnectionAndReopenTogetherAreAConflict() {
    DdpClient.Builder b =
        DdpClient.builder()
            .url(Harness.URL)
            .reconnection(ReconnectionManager.builder().build())
            .reopen(Duration.ofSeconds(5));
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("reopen");
  }

  @Test
  void executorAndDirectExecutionTogetherAreAConflict() {
    assertThatThrownBy(() -> DdpClient.builder().url("ws://localhost/websocket")
            .executor(Runnable::run).directExecution().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("executor").hasMessageContaining("directExecution");
    try (DdpClient c = DdpClient.builder().url("ws://localhost/websocket").directExecution()
        .build()) {
      assertThat(c.name()).isNotBlank();
    }
  }

  @Test
  void sslContextAndTransportFactoryTogetherAreAConflict() throws Exception {
    DdpClient.Builder b =
        DdpClient.builder()
            .url("wss://example.com/websocket")
            .sslContext(SSLContext.getDefault())
            .transportFactory(new InMemoryTransportFactory());
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void toStringCarriesNoQueryOrUserInfo() {
    try (DdpClient c =
        DdpClient.builder()
            .url("wss://user:secret@example.com/websocket?token=abc123")
            .transportFactory(new InMemoryTransportFactory())
            .executor(Runnable::run)
            .build()) {
      assertThat(c.toString())
          .contains("wss://example.com/websocket")
          .doesNotContain("secret")
          .doesNotContain("abc123");
      assertThat(c.name()).startsWith("ddp-client-");
    }
  }
}
