package dev.ddpkit.reconnect;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 10, unit = SECONDS)
class ClosePolicyTest {
  private static final ClosePolicy WEBSOCKET = ClosePolicy.websocket();
  private static final ClosePolicy DDP = ClosePolicy.ddp();

  @ParameterizedTest(name = "websocket {0} -> {1} floor {2} ms")
  @CsvSource({
    "1000, STOP,         0",
    "1001, RETRY,        0",
    "1003, STOP,         0",
    "1006, RETRY,        0",
    "1008, STOP,         0",
    "1011, RETRY,        0",
    "1012, RETRY,        0",
    "1013, RETRY_SLOW,   5000",
    "1015, STOP,         0",
    "4000, RETRY,        0",
    "4401, REFRESH_AUTH, 0",
    "4403, STOP,         0",
    "4999, RETRY,        0",
  })
  void websocketProfile(int code, CloseAction action, long floorMillis) {
    assertThat(WEBSOCKET.classify(code, ""))
        .isEqualTo(new CloseDecision(action, Duration.ofMillis(floorMillis), "closed " + code));
  }

  @ParameterizedTest(name = "ddp {0} -> {1} floor {2} ms")
  @CsvSource({
    "1000, RETRY,        0",
    "1001, RETRY,        0",
    "1003, STOP,         0",
    "1006, RETRY,        0",
    "1008, STOP,         0",
    "1011, RETRY,        0",
    "1012, RETRY,        0",
    "1013, RETRY_SLOW,   5000",
    "4000, RETRY,        0",
    "4401, REFRESH_AUTH, 0",
    "4403, STOP,         0",
  })
  void ddpProfile(int code, CloseAction action, long floorMillis) {
    assertThat(DDP.classify(code, null))
        .isEqualTo(new CloseDecision(action, Duration.ofMillis(floorMillis), "closed " + code));
  }

  // Until issue 9 a hint raised a floor (a hinted 1006 became RETRY_SLOW with the hint as its
  // floor, and a 1013 hint below 5 s was thrown away). A hint is now an appointment, reported
  // apart: the action and the no-hint floor are the code's own.
  @ParameterizedTest(name = "{0} \"{1}\" -> {2} floor {3} ms, appointment {4} ms")
  @CsvSource(
      delimiter = '|',
      value = {
        // A hint on a plain retry is an appointment; the action stays a plain retry.
        "1006 | retry-after=2500           | RETRY        | 0      | 2500",
        "1000 | draining, retry-after=2500 | RETRY        | 0      | 2500",
        // For 1013 the 5 s floor is for a close without a hint; any hint, smaller or larger, is
        // the appointment.
        "1013 | retry-after=100            | RETRY_SLOW   | 5000   | 100",
        "1013 | retry-after=2500           | RETRY_SLOW   | 5000   | 2500",
        "1013 | Retry-After: 12000         | RETRY_SLOW   | 5000   | 12000",
        "1013 | retry-after=0              | RETRY_SLOW   | 5000   | 0",
        // 4401 keeps its action; the hint is the appointment of its retry, the immediate one too.
        "4401 | retry-after=5000           | REFRESH_AUTH | 0      | 5000",
        // A stop is a stop, hint or not.
        "1008 | retry-after=2500           | STOP         | 0      | -1",
        // Malformed hints are ignored.
        "1006 | retry-after=abc            | RETRY        | 0      | -1",
        "1006 | retry-after=-5             | RETRY        | 0      | -1",
        "1013 | retry-after=               | RETRY_SLOW   | 5000   | -1",
        "1006 | retryafter=2500            | RETRY        | 0      | -1",
        // Silly hints are capped to MAX_RETRY_AFTER (10 minutes), not read as their first digits.
        "1006 | retry-after=10000000000    | RETRY        | 0      | 600000",
        "1006 | retry-after=99999999999999999999999999 | RETRY | 0 | 600000",
      })
  void retryAfterHintInTheReason(
      int code, String reason, CloseAction action, long floorMillis, long appointmentMillis) {
    CloseDecision d = DDP.classify(code, reason);
    assertThat(d.action()).isEqualTo(action);
    assertThat(d.floor()).isEqualTo(Duration.ofMillis(floorMillis));
    assertThat(d.retryAfter())
        .isEqualTo(
            appointmentMillis < 0
                ? Optional.empty()
                : Optional.of(Duration.ofMillis(appointmentMillis)));
    assertThat(d.description()).isEqualTo("closed " + code + " " + reason.strip());
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "retry-after=2500                 | 2500",
        "RETRY-AFTER = 0                  | 0",
        "overloaded; retry-after:750 then | 750",
        "retry-after=600000               | 600000",
        "retry-after=600001               | 600000",
        "retry-after=9999999999           | 600000",
        "retry-after=99999999999          | 600000",
        "retry-after=999999999999999999   | 600000",
        "retry-after=9999999999999999999  | 600000",
        "retry-after=0000000000000000000000002500 | 2500",
      })
  void retryAfterMillisIsCappedAndNeverOverflows(String reason, long expected) {
    assertThat(ClosePolicy.retryAfterMillis(reason)).isEqualTo(OptionalLong.of(expected));
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"retry-after=abc", "retry after 2500", "going away", "retry-after=-1"})
  void retryAfterMillisIgnoresMissingOrMalformedHints(String reason) {
    assertThat(ClosePolicy.retryAfterMillis(reason)).isEmpty();
  }

  @Test
  void maxRetryAfterIsTenMinutes() {
    assertThat(ClosePolicy.MAX_RETRY_AFTER).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void longReasonsAreAbbreviatedInTheDescription() {
    String reason = "x".repeat(200);
    String description = DDP.classify(1006, reason).description();
    assertThat(description).hasSize("closed 1006 ".length() + 120).endsWith("...");
  }

  @Test
  void builderStartsFromRetryEverythingAndCanBeCustomised() {
    ClosePolicy policy =
        ClosePolicy.builder()
            .on(4001, CloseAction.STOP)
            .slowFloor(Duration.ofSeconds(30))
            .defaultAction(CloseAction.RETRY_SLOW)
            .name("mine")
            .build();
    assertThat(policy.actionFor(4001)).isEqualTo(CloseAction.STOP);
    assertThat(policy.classify(1006, "").floor()).isEqualTo(Duration.ofSeconds(30));
    assertThat(policy).hasToString("ClosePolicy{mine}");
    assertThat(ClosePolicy.builder().build().actionFor(1008)).isEqualTo(CloseAction.RETRY);
  }

  @Test
  void toBuilderKeepsTheProfileAndLeavesTheOriginalAlone() {
    ClosePolicy strict = DDP.toBuilder().on(CloseCodes.NORMAL, CloseAction.STOP).build();
    assertThat(strict.actionFor(CloseCodes.NORMAL)).isEqualTo(CloseAction.STOP);
    assertThat(strict.actionFor(CloseCodes.ROCKETCHAT_TIMEOUT)).isEqualTo(CloseAction.RETRY);
    assertThat(DDP.actionFor(CloseCodes.NORMAL)).isEqualTo(CloseAction.RETRY);
    assertThat(strict).hasToString("ClosePolicy{ddp}");
  }

  @Test
  void builderRejectsBadArgumentsNamingTheField() {
    assertThatThrownBy(() -> ClosePolicy.builder().on(999, CloseAction.STOP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("close code");
    assertThatThrownBy(() -> ClosePolicy.builder().on(5000, CloseAction.STOP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("close code");
    assertThatThrownBy(() -> ClosePolicy.builder().slowFloor(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slowFloor");
    assertThatThrownBy(() -> ClosePolicy.builder().slowFloor(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slowFloor");
  }
}
