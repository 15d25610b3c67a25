package dev.ddpkit.chat.demo;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = SECONDS)
class DemoCommandArgsTest {

  @Test
  void parsesTheDocumentedOptions() {
    DemoCommand.Options o = DemoCommand.Options.parse(new String[] {
      "--clients", "20", "--rooms", "2", "--accept-rate", "0", "--down-ms", "100", "--rate", "5",
      "--before-kill-ms", "10", "--after-restart-ms", "20", "--bucket-ms", "50", "--seed", "-3",
      "--backoff", "full-jitter"});
    assertThat(new Object[] {o.clients, o.rooms, o.acceptRate, o.downMs, o.ratePerSecond,
        o.beforeKillMs, o.afterRestartMs, o.bucketMs, o.seed, o.rfc})
        .containsExactly(20, 2, 0, 100L, 5.0, 10L, 20L, 50L, -3L, false);
    assertThat(DemoCommand.Options.parse(new String[0]).rfc).isTrue();
    assertThat(DemoCommand.Options.parse(new String[0]).restarts).as("default: both, planned first")
        .containsExactly(RestartPhase.Kind.PLANNED, RestartPhase.Kind.KILL);
    assertThat(DemoCommand.Options.parse(new String[] {"--restart", "kill"}).restarts)
        .containsExactly(RestartPhase.Kind.KILL);
    assertThat(DemoCommand.Options.parse(new String[] {"--restart", "planned"}).restarts)
        .containsExactly(RestartPhase.Kind.PLANNED);
    assertThat(DemoCommand.Options.parse(new String[] {"--restart", "warm"}).restarts)
        .containsExactly(RestartPhase.Kind.WARM);
    assertThat(DemoCommand.Options.parse(new String[] {"--restart", "all"}).restarts)
        .containsExactly(RestartPhase.Kind.PLANNED, RestartPhase.Kind.KILL, RestartPhase.Kind.WARM);
  }

  @Test
  void badArgumentsAreExplained() {
    assertThatThrownBy(() -> DemoCommand.Options.parse(new String[] {"--clients"}))
        .hasMessage("--clients needs a value");
    assertThatThrownBy(() -> DemoCommand.Options.parse(new String[] {"--clients", "x"}))
        .hasMessage("--clients must be a number: x");
    assertThatThrownBy(() -> DemoCommand.Options.parse(new String[] {"--clients", "5001"}))
        .hasMessage("--clients must be in 1..5000: 5001");
    assertThatThrownBy(() -> DemoCommand.Options.parse(new String[] {"--bogus", "1"}))
        .hasMessage("unknown argument: --bogus");
    assertThatThrownBy(() -> DemoCommand.Options.parse(new String[] {"--backoff", "fixed"}))
        .hasMessage("--backoff must be full-jitter or rfc: fixed");
    assertThatThrownBy(() -> DemoCommand.Options.parse(new String[] {"--restart", "crash"}))
        .hasMessage("--restart must be planned, kill, warm, both or all: crash");
    assertThatThrownBy(
            () -> DemoCommand.Options.parse(new String[] {"--clients", "2", "--rooms", "3"}))
        .hasMessage("--rooms must not exceed --clients");
    assertThatThrownBy(() -> DemoCommand.Options.parse(
            new String[] {"--restart", "all", "--accept-rate", "0"}))
        .hasMessageContaining("--restart warm needs an --accept-rate");
  }

  @Test
  void badUsageExitsTwoWithTheUsage() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    int code = DemoCommand.run(new String[] {"extra"}, out,
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("demo: unknown argument: extra").contains("usage: demo");
  }
}
