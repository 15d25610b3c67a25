package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.DdpMethodException;
import org.junit.jupiter.api.Test;

class SendRetryPolicyTest {
  private static boolean retryable(String code) {
    return !Refusal.of(new DdpMethodException(code, "", null), /* loggedIn= */ true).permanent();
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

  @Test
  void refusalsForWantOfALoginAreRecognised() {
    assertThat(notAllowed("error-not-allowed")).isTrue();
    assertThat(notAllowed("not-allowed")).isTrue();
    assertThat(notAllowed("error-invalid-user")).isTrue();
    assertThat(notAllowed("403")).isTrue();
    assertThat(notAllowed("too-many-requests")).isFalse();
    assertThat(notAllowed("error-invalid-msg")).isFalse();
    assertThat(notAllowed("404")).isFalse();
  }

  private static boolean notAllowed(String code) {
    return Refusal.notAllowed(code);
  }
}
