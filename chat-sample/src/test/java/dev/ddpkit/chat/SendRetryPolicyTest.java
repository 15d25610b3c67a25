package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.DdpMethodException;
import org.junit.jupiter.api.Test;

class SendRetryPolicyTest {
  private static boolean retryable(String code) {
    return ChatClient.retryable(new DdpMethodException(code, "", null));
  }

  @Test
  void transientFailuresAreRetriedWithTheSameId() {
    assertThat(retryable(DdpMethodException.INVOCATION_FAILED)).isTrue();
    assertThat(retryable("500")).isTrue();
    assertThat(retryable("503")).isTrue();
    assertThat(retryable("error-too-busy")).isTrue();
    assertThat(retryable("too-many-requests")).isTrue();
  }

  @Test
  void finalRefusalsAreNot() {
    assertThat(retryable("403")).isFalse();
    assertThat(retryable("not-allowed")).isFalse();
    assertThat(retryable("error-invalid-msg")).isFalse();
    assertThat(retryable("404")).isFalse();
    assertThat(retryable("5000")).isFalse();
  }
}
