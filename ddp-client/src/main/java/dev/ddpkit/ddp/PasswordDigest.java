package dev.ddpkit.ddp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/**
 * The password digest Meteor's accounts (and Rocket.Chat's) expect in a {@code login} call: the
 * lowercase hex SHA-256 of the UTF-8 password, sent as {@code {"digest": ..., "algorithm":
 * "sha-256"}} so that the plain password never goes over the wire.
 */
public final class PasswordDigest {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private PasswordDigest() {}

  /** Returns the lowercase hex SHA-256 of {@code password}. */
  public static String sha256Hex(String password) {
    Objects.requireNonNull(password, "password");
    byte[] hash;
    try {
      hash = MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
    // By hand, not java.util.HexFormat: Android has HexFormat only from API 34.
    char[] hex = new char[hash.length * 2];
    for (int i = 0; i < hash.length; i++) {
      hex[2 * i] = HEX[(hash[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX[hash[i] & 0xf];
    }
    return new String(hex);
  }
}
