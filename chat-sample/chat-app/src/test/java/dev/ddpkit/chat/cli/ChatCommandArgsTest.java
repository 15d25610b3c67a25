package dev.ddpkit.chat.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChatCommandArgsTest {
  private static final String[] GOOD = {
    "--url", "ws://127.0.0.1:3000/websocket", "--user", "alice", "--password", "alice-pw",
    "--room", "general", "--room", "random", "--json"
  };

  @Test
  void parsesTheDocumentedOptions() {
    ChatCommand.Options o = ChatCommand.Options.parse(GOOD);
    assertThat(o.rooms).containsExactly("general", "random");
    assertThat(o.json).isTrue();
    assertThat(o.backoffCurve().toString()).isEqualTo("rfc");
    ChatCommand.Options fj =
        ChatCommand.Options.parse(
            new String[] {"--user", "a", "--password", "p", "--room", "r", "--backoff",
              "full-jitter", "--base-ms", "200", "--max-ms", "5000", "--stable-ms", "2000"});
    assertThat(fj.backoffCurve().delay(10, 0.5)).isEqualTo(Duration.ofMillis(2_500));
    ChatCommand.Options fixed =
        ChatCommand.Options.parse(
            new String[] {"--user", "a", "--password", "p", "--room", "r", "--backoff", "fixed",
              "--base-ms", "700"});
    assertThat(fixed.backoffCurve().delay(3, 0.9)).isEqualTo(Duration.ofMillis(700));
  }

  @Test
  void everyCurveTakesBaseAndMax() {
    ChatCommand.Options rfc =
        ChatCommand.Options.parse(
            new String[] {"--room", "r", "--token", "t", "--backoff", "rfc", "--base-ms", "250",
              "--max-ms", "5000"});
    assertThat(rfc.backoffCurve()).hasToString("rfc(250ms..5000ms)");
    assertThat(rfc.backoffCurve().delay(1, 0.5)).isEqualTo(Duration.ofMillis(313));
    assertThat(rfc.backoffCurve().delay(6, 0.5)).isEqualTo(Duration.ofMillis(6_250));
    ChatCommand.Options rfcBase =
        ChatCommand.Options.parse(new String[] {"--room", "r", "--token", "t", "--base-ms", "100"});
    assertThat(rfcBase.backoffCurve()).hasToString("rfc(100ms..60000ms)");
    assertThat(rfcBase.backoffCurve().delay(20, 0.0)).isEqualTo(Duration.ofSeconds(60));
    ChatCommand.Options rfcMax =
        ChatCommand.Options.parse(new String[] {"--room", "r", "--token", "t", "--max-ms", "8000"});
    assertThat(rfcMax.backoffCurve().delay(4, 0.0)).isEqualTo(Duration.ofMillis(8_000));
    assertThat(rfcMax.backoffCurve().delay(3, 0.0)).isEqualTo(Duration.ofMillis(4_000));
    ChatCommand.Options fj =
        ChatCommand.Options.parse(
            new String[] {"--room", "r", "--token", "t", "--backoff", "full-jitter", "--max-ms",
              "1000"});
    assertThat(fj.backoffCurve()).hasToString("full-jitter(500ms..1000ms)");
    ChatCommand.Options fixedCapped =
        ChatCommand.Options.parse(
            new String[] {"--room", "r", "--token", "t", "--backoff", "fixed", "--max-ms", "3000"});
    assertThat(fixedCapped.backoffCurve()).hasToString("fixed(3000ms)");
    ChatCommand.Options fixedBoth =
        ChatCommand.Options.parse(
            new String[] {"--room", "r", "--token", "t", "--backoff", "fixed", "--base-ms", "700",
              "--max-ms", "3000"});
    assertThat(fixedBoth.backoffCurve()).hasToString("fixed(700ms)");
  }

  @Test
  void badArgumentsAreExplained() {
    assertThatThrownBy(() -> ChatCommand.Options.parse(new String[] {"--user", "a", "--password", "p"}))
        .hasMessageContaining("--room");
    assertThatThrownBy(() -> ChatCommand.Options.parse(new String[] {"--room", "r", "--user", "a"}))
        .hasMessageContaining("--password or --token");
    assertThatThrownBy(() -> ChatCommand.Options.parse(new String[] {"--room", "r", "--password", "p"}))
        .hasMessageContaining("--user");
    assertThatThrownBy(
            () -> ChatCommand.Options.parse(
                new String[] {"--room", "r", "--token", "t", "--backoff", "linear"}))
        .hasMessageContaining("--backoff");
    // --base-ms/--max-ms were refused for rfc until issue 9; they are refused only when crossed.
    assertThatThrownBy(
            () -> ChatCommand.Options.parse(
                new String[] {"--room", "r", "--token", "t", "--base-ms", "100", "--max-ms", "50"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--base-ms must not exceed --max-ms: 100 > 50");
    assertThatThrownBy(
            () -> ChatCommand.Options.parse(new String[] {"--room", "r", "--token", "t", "--max-ms", "x"}))
        .hasMessageContaining("--max-ms must be a number");
    assertThatThrownBy(() -> ChatCommand.Options.parse(new String[] {"--room"}))
        .hasMessageContaining("--room needs a value");
    assertThatThrownBy(() -> ChatCommand.Options.parse(new String[] {"--bogus"}))
        .hasMessageContaining("unknown argument: --bogus");
  }

  @Test
  void badUsageExitsTwoWithTheUsage() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"chat", "--user", "a"},
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage: chat");
    assertThat(out.size()).isZero();
    assertThat(Main.run(new String[] {"nope"}, System.in, new PrintStream(out), new PrintStream(err)))
        .isEqualTo(2);
    assertThat(Main.run(new String[0], System.in, new PrintStream(out), new PrintStream(err)))
        .isEqualTo(2);
  }
}
