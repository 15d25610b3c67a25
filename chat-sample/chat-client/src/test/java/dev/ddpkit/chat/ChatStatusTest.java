package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.chat.ChatStatus.State;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChatStatusTest {
  @Test
  void statusLinesReadAsAUserExpects() {
    assertThat(ChatStatus.of(State.CONNECTING).text()).isEqualTo("connecting");
    assertThat(new ChatStatus(State.CONNECTING, 2, Duration.ZERO, "").text())
        .isEqualTo("connecting (attempt 2)");
    assertThat(ChatStatus.of(State.CONNECTED).text()).isEqualTo("connected");
    assertThat(new ChatStatus(State.WAITING, 4, Duration.ofMillis(2_001), "closed 1006").text())
        .isEqualTo("reconnecting in 3 s (attempt 4)");
    assertThat(new ChatStatus(State.WAITING, 1, Duration.ofMillis(3_000), "").text())
        .isEqualTo("reconnecting in 3 s (attempt 1)");
    assertThat(new ChatStatus(State.WAITING, 1, Duration.ofMillis(450), "").text())
        .isEqualTo("reconnecting in 450 ms (attempt 1)");
    assertThat(new ChatStatus(State.SIGNED_OUT, 0, Duration.ZERO, "token refused").text())
        .isEqualTo("signed out: token refused");
    assertThat(ChatStatus.of(State.STOPPED).text()).isEqualTo("stopped");
  }

  @Test
  void syncingSaysHowManyRoomsAreCatchingUp() {
    assertThat(ChatStatus.syncing(1).text()).isEqualTo("catching up (1 room)");
    assertThat(ChatStatus.syncing(2).text()).isEqualTo("catching up (2 rooms)");
    assertThat(ChatStatus.syncing(2).terminal()).isFalse();
    assertThat(ChatStatus.syncing(2)).isNotEqualTo(ChatStatus.syncing(1));
    assertThat(ChatStatus.of(State.CONNECTED).roomsBehind()).isZero();
  }

  @Test
  void onlySignedOutAndStoppedAreTerminal() {
    assertThat(ChatStatus.of(State.SIGNED_OUT).terminal()).isTrue();
    assertThat(ChatStatus.of(State.STOPPED).terminal()).isTrue();
    assertThat(ChatStatus.of(State.WAITING).terminal()).isFalse();
    assertThat(ChatStatus.of(State.CONNECTED).terminal()).isFalse();
  }

  @Test
  void componentsAreValidated() {
    assertThatThrownBy(() -> new ChatStatus(State.WAITING, -1, Duration.ZERO, ""))
        .hasMessageContaining("attempt");
    assertThatThrownBy(() -> new ChatStatus(State.WAITING, 1, Duration.ofMillis(-1), ""))
        .hasMessageContaining("retryIn");
    assertThatThrownBy(() -> ChatStatus.syncing(0)).hasMessageContaining("roomsBehind");
    assertThatThrownBy(() -> ChatStatus.of(State.SYNCING)).hasMessageContaining("roomsBehind");
    assertThatThrownBy(() -> new ChatStatus(State.CONNECTED, 0, Duration.ZERO, "", 1))
        .hasMessageContaining("roomsBehind");
  }
}
