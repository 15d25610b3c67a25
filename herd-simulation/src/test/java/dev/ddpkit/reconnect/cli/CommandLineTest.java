package dev.ddpkit.reconnect.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = SECONDS)
class CommandLineTest {

  /** A small command: the transcript "name=value" of what it read, in order. */
  private static List<String> parse(CommandLine c) {
    List<String> read = new ArrayList<>();
    while (c.hasNext()) {
      String name = c.next();
      switch (name) {
        case "--json" -> read.add(name + "=" + c.flag());
        case "--url" -> read.add(name + "=" + c.value());
        case "--seed" -> read.add(name + "=" + c.longValue());
        case "--clients" -> read.add(name + "=" + c.intValue(1, 5_000));
        case "--port" -> read.add(name + "=" + c.intValue(1, Integer.MAX_VALUE));
        case "--offset" -> read.add(name + "=" + c.intValue());
        default -> throw c.unknown();
      }
    }
    return read;
  }

  @Test
  void readsEachOptionWithTheArgumentAfterIt() {
    assertThat(parse(CommandLine.of("--url", "ws://h/websocket", "--json", "--seed", " -7 ",
            "--clients", "5000", "--url", "--json")))
        .containsExactly("--url=ws://h/websocket", "--json=true", "--seed=-7", "--clients=5000",
            "--url=--json");
    assertThat(parse(CommandLine.of())).isEmpty();
  }

  @Test
  void aMissingValueNamesTheOption() {
    assertThatThrownBy(() -> parse(CommandLine.of("--json", "--url")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--url needs a value");
  }

  @Test
  void anUnknownOptionIsNamed() {
    assertThatThrownBy(() -> parse(CommandLine.of("--json", "--bogus", "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown argument: --bogus");
    assertThatThrownBy(() -> parse(CommandLine.of("extra")))
        .hasMessage("unknown argument: extra");
  }

  @Test
  void aBadNumberIsNamedWithWhatWasGiven() {
    assertThatThrownBy(() -> parse(CommandLine.of("--seed", "1.5")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--seed must be a number: 1.5");
    assertThatThrownBy(() -> parse(CommandLine.of("--clients", "x")))
        .hasMessage("--clients must be a number: x");
    assertThatThrownBy(() -> parse(CommandLine.of("--clients", "")))
        .hasMessage("--clients must be a number: ");
  }

  @Test
  void aNumberOutOfRangeStatesTheRange() {
    assertThatThrownBy(() -> parse(CommandLine.of("--clients", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--clients must be in 1..5000: 0");
    assertThatThrownBy(() -> parse(CommandLine.of("--clients", "5001")))
        .hasMessage("--clients must be in 1..5000: 5001");
    assertThatThrownBy(() -> parse(CommandLine.of("--port", "-1")))
        .hasMessage("--port must be 1 or more: -1");
    assertThatThrownBy(() -> parse(CommandLine.of("--port", "3000000000")))
        .hasMessage("--port must be in 1..2147483647: 3000000000");
    assertThat(parse(CommandLine.of("--offset", "-2147483648")))
        .containsExactly("--offset=-2147483648");
    assertThatThrownBy(() -> parse(CommandLine.of("--offset", "-2147483649")))
        .hasMessage("--offset must be -2147483648 or more: -2147483649");
  }

  @Test
  void inlineValuesOnlyWhereAccepted() {
    assertThat(parse(CommandLine.withInlineValues("--url=ws://h/?a=b", "--seed=3", "--json")))
        .containsExactly("--url=ws://h/?a=b", "--seed=3", "--json=true");
    assertThatThrownBy(() -> parse(CommandLine.withInlineValues("--json=yes")))
        .hasMessage("--json takes no value");
    assertThatThrownBy(() -> parse(CommandLine.withInlineValues("--bogus=1")))
        .hasMessage("unknown argument: --bogus");
    assertThatThrownBy(() -> parse(CommandLine.of("--seed=3")))
        .hasMessage("unknown argument: --seed=3");
  }

  @Test
  void skipsALeadingCommandNameOnly() {
    assertThat(parse(CommandLine.of("herd", "--json").skip("herd"))).containsExactly("--json=true");
    assertThatThrownBy(() -> parse(CommandLine.of("--json", "herd").skip("herd")))
        .hasMessage("unknown argument: herd");
  }

  @Test
  void misuseByTheCommandIsAnIllegalState() {
    CommandLine c = CommandLine.of("--url", "x");
    assertThatThrownBy(c::value).isInstanceOf(IllegalStateException.class);
    c.next();
    c.value();
    assertThatThrownBy(c::next).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> CommandLine.of((String[]) null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anOptionalValueIsTakenOnlyWhenItIsOneOfTheWordsOrInline() {
    CommandLine c =
        CommandLine.withInlineValues("--hints", "off", "--hints", "--json", "--hints=x");
    c.next();
    assertThat(c.optionalValue("on", "off")).hasValue("off");
    c.next();
    assertThat(c.optionalValue("on", "off")).isEmpty();
    assertThat(c.next()).isEqualTo("--json");
    c.next();
    assertThat(c.optionalValue("on", "off")).hasValue("x"); // inline: the caller validates it
    assertThat(c.hasNext()).isFalse();
    assertThatThrownBy(() -> CommandLine.of("--a").optionalValue("on"))
        .isInstanceOf(IllegalStateException.class);
  }
}
