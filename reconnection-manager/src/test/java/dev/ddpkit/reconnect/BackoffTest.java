package dev.ddpkit.reconnect;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(value = 10, unit = SECONDS)
class BackoffTest {

  @ParameterizedTest(name = "rfc attempt {0} sample {1} -> {2} ms")
  @CsvSource({
    "1,          0.0,  1000",
    "1,          0.5,  1250",
    "2,          0.0,  2000",
    "2,          0.5,  2500",
    "3,          0.0,  4000",
    "4,          0.5,  10000",
    "5,          0.0,  16000",
    "6,          0.5,  40000",
    // 2^6 s = 64 s is over the cap: from attempt 7 on it is 60-90 s.
    "7,          0.0,  60000",
    "7,          0.5,  75000",
    "20,         0.5,  75000",
    "63,         0.0,  60000",
    "64,         0.5,  75000",
    "1000,       0.0,  60000",
    "2147483647, 0.5,  75000",
  })
  void rfcTable(int attempt, double sample, long millis) {
    assertThat(Backoff.rfc().delay(attempt, sample)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest(name = "rfc(250 ms, 5 s) attempt {0} sample {1} -> {2} ms")
  @CsvSource({
    "1,          0.0,  250",
    "1,          0.5,  313",
    "2,          0.0,  500",
    "3,          0.5,  1250",
    "4,          0.9,  2900",
    "5,          0.0,  4000",
    // 250 ms * 2^5 = 8 s is over the 5 s cap: from attempt 6 on it is 5-7.5 s.
    "6,          0.0,  5000",
    "6,          0.5,  6250",
    "1000,       0.5,  6250",
    "2147483647, 0.0,  5000",
  })
  void scaledRfcTable(int attempt, double sample, long millis) {
    Backoff b = Backoff.rfc(Duration.ofMillis(250), Duration.ofSeconds(5));
    assertThat(b.delay(attempt, sample)).isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void rfcWithTheRfcBaseAndCapIsTheRfcCurveValueForValue() {
    Backoff scaled = Backoff.rfc(Duration.ofSeconds(1), Duration.ofSeconds(60));
    for (int attempt : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 20, 63, 64, 1000, Integer.MAX_VALUE}) {
      for (double sample : new double[] {0.0, 0.1, 0.25, 0.5, 0.75, 0.999, Math.nextDown(1.0)}) {
        assertThat(scaled.delay(attempt, sample))
            .as("attempt %d sample %s", attempt, sample)
            .isEqualTo(Backoff.rfc().delay(attempt, sample));
      }
    }
    assertThat(scaled).isEqualTo(Backoff.rfc()).hasToString("rfc");
  }

  @Test
  void rfcStaysBelowOneAndAHalfTimesTheCeiling() {
    double justUnderOne = Math.nextDown(1.0);
    assertThat(Backoff.rfc().delay(1, justUnderOne)).isEqualTo(Duration.ofMillis(1500));
    assertThat(Backoff.rfc().delay(7, justUnderOne)).isEqualTo(Duration.ofSeconds(90));
    assertThat(Backoff.rfc().delay(1000, justUnderOne)).isEqualTo(Duration.ofSeconds(90));
  }

  @ParameterizedTest(name = "fullJitter attempt {0} sample {1} -> {2} ms")
  @CsvSource({
    "1,    0.0,  0",
    "1,    0.5,  250",
    "2,    0.5,  500",
    "3,    0.5,  1000",
    "6,    0.5,  8000",
    "6,    0.75, 12000",
    // 500 ms * 2^6 = 32 s is over the 30 s cap.
    "7,    0.5,  15000",
    "1000, 0.25, 7500",
  })
  void fullJitterTable(int attempt, double sample, long millis) {
    Duration expected = Duration.ofMillis(millis);
    assertThat(Backoff.fullJitter().delay(attempt, sample)).isEqualTo(expected);
    assertThat(Backoff.fullJitter(Duration.ofMillis(500), Duration.ofSeconds(30)).delay(attempt, sample))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "proportional(1 s, 60 s, 0.25) attempt {0} sample {1} -> {2} ms")
  @CsvSource({
    "1,   0.0,  750",
    "1,   0.5,  1000",
    "1,   0.75, 1125",
    "3,   0.0,  3000",
    "3,   0.5,  4000",
    "7,   0.5,  60000",
    "8,   0.0,  45000",
    "20,  0.75, 67500",
    "999, 0.5,  60000",
  })
  void proportionalTable(int attempt, double sample, long millis) {
    Backoff b = Backoff.proportional(Duration.ofSeconds(1), Duration.ofSeconds(60), 0.25);
    assertThat(b.delay(attempt, sample)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest(name = "fixed(5 s) attempt {0} sample {1}")
  @CsvSource({"1, 0.0", "2, 0.5", "50, 0.99", "2147483647, 0.0"})
  void fixedIgnoresAttemptAndSample(int attempt, double sample) {
    assertThat(Backoff.fixed(Duration.ofSeconds(5)).delay(attempt, sample))
        .isEqualTo(Duration.ofSeconds(5));
  }

  @ParameterizedTest(name = "meteor attempt {0} sample {1} -> {2} ms")
  @CsvSource({
    "1,    0.0,  10",
    "1,    0.99, 10",
    "2,    0.5,  10",
    // 1 s * 2.2^2 = 4,840 ms, times [0.75, 1.25).
    "3,    0.0,  3630",
    "3,    0.5,  4840",
    "4,    0.5,  10648",
    "5,    0.5,  23426",
    "8,    0.5,  249436",
    // 1 s * 2.2^8 = 548,758 ms is over the 5 min cap.
    "9,    0.0,  225000",
    "9,    0.5,  300000",
    "1000, 0.5,  300000",
  })
  void meteorTable(int attempt, double sample, long millis) {
    assertThat(Backoff.meteor().delay(attempt, sample)).isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void withFloorNeverWaitsLessThanTheFloor() {
    Backoff b = Backoff.fullJitter().withFloor(Duration.ofSeconds(2));
    assertThat(b.delay(1, 0.0)).isEqualTo(Duration.ofSeconds(2));
    assertThat(b.delay(7, 0.5)).isEqualTo(Duration.ofSeconds(15));
  }

  @Test
  void presetsDescribeThemselves() {
    assertThat(Backoff.rfc()).hasToString("rfc");
    assertThat(Backoff.rfc(Duration.ofMillis(250), Duration.ofSeconds(5)))
        .hasToString("rfc(250ms..5000ms)");
    assertThat(Backoff.meteor()).hasToString("meteor");
    assertThat(Backoff.fullJitter()).hasToString("full-jitter(500ms..30000ms)");
    assertThat(Backoff.fixed(Duration.ofSeconds(5))).hasToString("fixed(5000ms)");
    assertThat(Backoff.rfc().withFloor(Duration.ofSeconds(2))).hasToString("rfc, floor 2000ms");
  }

  static Stream<Arguments> presets() {
    return Stream.of(
        Arguments.of(Backoff.rfc()),
        Arguments.of(Backoff.rfc(Duration.ofMillis(100), Duration.ofSeconds(2))),
        Arguments.of(Backoff.fullJitter()),
        Arguments.of(Backoff.proportional(Duration.ofSeconds(1), Duration.ofMinutes(1), 0.25)),
        Arguments.of(Backoff.fixed(Duration.ofSeconds(5))),
        Arguments.of(Backoff.meteor()),
        Arguments.of(Backoff.rfc().withFloor(Duration.ofSeconds(1))));
  }

  @ParameterizedTest(name = "{0} rejects bad attempts and samples")
  @MethodSource("presets")
  void badAttemptOrSampleThrowsNamingTheField(Backoff b) {
    assertThrowsNaming("attempt", () -> b.delay(0, 0.5));
    assertThrowsNaming("attempt", () -> b.delay(-1, 0.5));
    assertThrowsNaming("attempt", () -> b.delay(Integer.MIN_VALUE, 0.5));
    assertThrowsNaming("sample", () -> b.delay(1, 1.0));
    assertThrowsNaming("sample", () -> b.delay(1, -0.1));
    assertThrowsNaming("sample", () -> b.delay(1, Double.NaN));
    assertThrowsNaming("sample", () -> b.delay(1, Double.POSITIVE_INFINITY));
  }

  @Test
  void badDurationsAndJitterThrowNamingTheField() {
    Duration minus = Duration.ofMillis(-1);
    Duration second = Duration.ofSeconds(1);
    assertThrowsNaming("interval", () -> Backoff.fixed(minus));
    assertThrowsNaming("interval", () -> Backoff.fixed(null));
    assertThrowsNaming("base", () -> Backoff.fullJitter(minus, second));
    assertThrowsNaming("base", () -> Backoff.fullJitter(Duration.ZERO, second));
    assertThrowsNaming("cap", () -> Backoff.fullJitter(second, minus));
    assertThrowsNaming("base", () -> Backoff.proportional(minus, second, 0.25));
    assertThrowsNaming("cap", () -> Backoff.proportional(second, null, 0.25));
    assertThrowsNaming("jitter", () -> Backoff.proportional(second, second, 1.0));
    assertThrowsNaming("jitter", () -> Backoff.proportional(second, second, -0.1));
    assertThrowsNaming("jitter", () -> Backoff.proportional(second, second, Double.NaN));
    assertThrowsNaming("floor", () -> Backoff.rfc().withFloor(minus));
    assertThrowsNaming("base", () -> Backoff.rfc(Duration.ZERO, second));
    assertThrowsNaming("base", () -> Backoff.rfc(null, second));
    assertThrowsNaming("cap", () -> Backoff.rfc(second, minus));
    assertThrowsNaming("base", () -> Backoff.fullJitter(Duration.ofSeconds(Long.MAX_VALUE), second));
  }

  private static void assertThrowsNaming(String field, Executable call) {
    assertThatThrownBy(call::execute)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(field + " ");
  }
}
