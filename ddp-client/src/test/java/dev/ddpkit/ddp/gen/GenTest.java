package dev.ddpkit.ddp.gen;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The helpers the fuzz tests rely on: failure reports, replay, lengths, escaping. */
@Timeout(value = 30, unit = SECONDS)
class GenTest {
  @Test
  void aFailureNamesTheCaseTheSeedsAndTheInputAbbreviated() {
    assertThatThrownBy(
            () -> Gen.forAll(42L, 100, g -> "x".repeat(5000) + "\u0001",
                s -> assertThat(s).isEmpty()))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("case 0 failed; replay with -Dgen.seed=42 (case seed ")
        .hasMessageContaining("input: xxx")
        .hasMessageEndingWith("... (5001 chars)")
        .hasCauseInstanceOf(AssertionError.class);
  }

  @Test
  void anExceptionOrAStackOverflowIsReportedWithTheSeedToo() {
    assertThatThrownBy(() -> Gen.forAll(1L, 10, g -> g.nextInt(10), i -> {
      throw new NullPointerException("boom");
    })).isInstanceOf(AssertionError.class).hasMessageContaining("case seed")
        .hasCauseInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Gen.forAll(1L, 10, g -> 0, i -> {
      throw new StackOverflowError();
    })).isInstanceOf(AssertionError.class).hasCauseInstanceOf(StackOverflowError.class);
  }

  @Test
  void theSameBaseSeedGivesTheSameInputs() {
    List<String> a = new ArrayList<>();
    List<String> b = new ArrayList<>();
    Gen.forAll(7L, 50, g -> g.unicode(30), a::add);
    Gen.forAll(7L, 50, g -> g.unicode(30), b::add);
    assertThat(a).hasSize(50).isEqualTo(b);
  }

  @Test
  void unicodeStaysWithinItsLengthsAndMixesKinds() {
    Gen g = new Gen(3L);
    boolean surrogate = false;
    boolean control = false;
    boolean ascii = false;
    for (int i = 0; i < 2000; i++) {
      String s = g.unicode(2, 9);
      assertThat(s.length()).isBetween(2, 9);
      for (char c : s.toCharArray()) {
        surrogate |= Character.isSurrogate(c);
        control |= c < 0x20;
        ascii |= c >= 0x20 && c < 0x7f;
      }
    }
    assertThat(surrogate && control && ascii).isTrue();
  }

  @Test
  void abbreviateEscapesWhatIsNotPrintableAscii() {
    assertThat(Gen.abbreviate("a\u0000\ud800\u00e9z", 100)).isEqualTo("a\\u0000\\ud800\\u00e9z");
    assertThat(Gen.abbreviate("abcdef", 3)).isEqualTo("abc... (6 chars)");
  }
}
