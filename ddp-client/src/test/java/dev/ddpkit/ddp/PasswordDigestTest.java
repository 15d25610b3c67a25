package dev.ddpkit.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PasswordDigestTest {
  @Test
  void isTheLowercaseHexSha256OfTheUtf8Password() {
    // FIPS 180-2's test vector for "abc", and the empty string's digest.
    assertThat(PasswordDigest.sha256Hex("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(PasswordDigest.sha256Hex(""))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  @Test
  void hashesTheUtf8BytesOfNonAsciiPasswords() {
    // "\u00e9" is two UTF-8 bytes, C3 A9 (sha256sum of them); a Latin-1 digest would differ.
    assertThat(PasswordDigest.sha256Hex("\u00e9"))
        .isEqualTo("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  }

  @Test
  void aNullPasswordIsRefusedByName() {
    assertThatThrownBy(() -> PasswordDigest.sha256Hex(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("password");
  }
}
