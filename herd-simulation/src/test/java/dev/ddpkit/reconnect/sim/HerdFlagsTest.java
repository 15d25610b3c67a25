package dev.ddpkit.reconnect.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.reconnect.cli.CommandLine;
import java.util.List;
import org.junit.jupiter.api.Test;

class HerdFlagsTest {
  /** Parses {@code args}, returning the hint modes of the last --hints and what came after it. */
  private static List<Boolean> hints(String... args) {
    CommandLine c = CommandLine.withInlineValues(args);
    assertThat(c.next()).isEqualTo("--hints");
    return HerdFlags.hints(c);
  }

  @Test
  void hintsAloneMeansOnAndAModePicksExplicitly() {
    assertThat(hints("--hints")).containsExactly(true);
    assertThat(hints("--hints", "on")).containsExactly(true);
    assertThat(hints("--hints", "off")).containsExactly(false);
    assertThat(hints("--hints", "both")).containsExactly(false, true);
    assertThat(hints("--hints=off")).containsExactly(false);
  }

  @Test
  void hintsLeavesTheNextOptionAlone() {
    CommandLine c = CommandLine.withInlineValues("--hints", "--json");
    c.next();
    assertThat(HerdFlags.hints(c)).containsExactly(true);
    assertThat(c.hasNext()).isTrue();
    assertThat(c.next()).isEqualTo("--json");
  }

  @Test
  void aBadModeOrAValueForPlannedFailsNamingTheOption() {
    assertThatThrownBy(() -> hints("--hints=maybe"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--hints must be on, off or both: maybe");
    CommandLine c = CommandLine.withInlineValues("--planned=yes");
    c.next();
    assertThatThrownBy(() -> HerdFlags.planned(c))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--planned");
  }
}
