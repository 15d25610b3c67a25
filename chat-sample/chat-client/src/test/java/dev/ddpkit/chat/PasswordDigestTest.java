package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.ddp.PasswordDigest;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PasswordDigestTest {
  @Test
  void digestIsLowercaseHexSha256() {
    // Known SHA-256 test vectors.
    assertThat(PasswordDigest.sha256Hex("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(PasswordDigest.sha256Hex(""))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  @Test
  void nonAsciiPasswordsAreHashedAsUtf8() {
    // printf '\xc3\xa9' | sha256sum
    assertThat(PasswordDigest.sha256Hex("\u00e9"))
        .isEqualTo("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  }

  @Test
  void isTheDigestTheServerChecks() {
    // printf 'alice-pw' | sha256sum; printf 'p\xc3\xa4ssw\xc3\xb6rd' | sha256sum
    assertThat(PasswordDigest.sha256Hex("alice-pw"))
        .isEqualTo("cefd4bcd86ca3d6d9d1064593870b4cd4fdb3fef0136b1c43684cb7f58a29036");
    assertThat(PasswordDigest.sha256Hex("p\u00e4ssw\u00f6rd"))
        .isEqualTo("46970bef70aced8123f0d5d094717e2a5cd412041e03b26376049fe65b2834a4");
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> PasswordDigest.sha256Hex(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void randomIdsHaveMeteorsShape() {
    RandomIds ids = new RandomIds(new Random(42));
    String a = ids.next();
    String b = ids.next();
    assertThat(a).hasSize(17).matches("[23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz]+");
    assertThat(b).isNotEqualTo(a);
    assertThat(new RandomIds(new Random(42)).next()).as("reproducible with a seed").isEqualTo(a);
  }
}
