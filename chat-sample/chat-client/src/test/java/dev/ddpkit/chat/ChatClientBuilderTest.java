package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChatClientBuilderTest {
  private static final String URL = "ws://127.0.0.1:3000/websocket";

  @Test
  void settersNameTheBadField() {
    ChatClientBuilder b = ChatClient.builder();
    assertThatThrownBy(() -> b.url("http://x/websocket")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("url");
    assertThatThrownBy(() -> b.url("ws:///nohost")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("url");
    assertThatThrownBy(() -> b.username(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("username");
    assertThatThrownBy(() -> b.password("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("password");
    assertThatThrownBy(() -> b.room(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("room");
    assertThatThrownBy(() -> b.outboxCapacity(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outboxCapacity");
    assertThatThrownBy(() -> b.historyLimit(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("historyLimit");
    assertThatThrownBy(() -> b.heartbeatInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heartbeatInterval");
    assertThatThrownBy(() -> b.catchUpOverlap(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("catchUpOverlap");
    assertThatThrownBy(() -> b.maxAttempts(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
  }

  @Test
  void conflictingOrMissingSettingsFailAtBuild() {
    assertThatThrownBy(() -> ChatClient.builder().username("a").password("p").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("url");
    assertThatThrownBy(() -> ChatClient.builder().url(URL).username("a").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("password or a token");
    assertThatThrownBy(() -> ChatClient.builder().url(URL).username("a").password("p").token("t").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not both");
    assertThatThrownBy(() -> ChatClient.builder().url(URL).password("p").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("username");
    assertThatThrownBy(
            () -> ChatClient.builder().url(URL).token("t")
                .reconnection(ReconnectPolicy.defaults())
                .backoff(Backoff.rfc())
                .build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("reconnection conflicts");
  }
}
