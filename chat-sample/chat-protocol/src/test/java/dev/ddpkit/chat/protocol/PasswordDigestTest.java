package dev.ddpkit.chat.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PasswordDigestTest {
  @Test
  void isTheLowercaseHexSha256OfTheUtf8Password() {
    // printf 'alice-pw' | sha256sum; printf 'p\xc3\xa4ssw\xc3\xb6rd' | sha256sum
    assertThat(PasswordDigest.sha256Hex("alice-pw"))
        .isEqualTo("cefd4bcd86ca3d6d9d1064593870b4cd4fdb3fef0136b1c43684cb7f58a29036");
    assertThat(PasswordDigest.sha256Hex("p\u00e4ssw\u00f6rd"))
        .isEqualTo("46970bef70aced8123f0d5d094717e2a5cd412041e03b26376049fe65b2834a4");
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> PasswordDigest.sha256Hex(null)).isInstanceOf(NullPointerException.class);
  }
}
