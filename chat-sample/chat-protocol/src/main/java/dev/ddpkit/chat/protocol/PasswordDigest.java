package dev.ddpkit.chat.protocol;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/**
 * The password digest Meteor's accounts expect, written once for both sides: lowercase hex SHA-256
 * of the UTF-8 password. The client sends it ({@code {"digest": ..., "algorithm": "sha-256"}}); the
 * server checks it. (ddp-client has its own, {@code dev.ddpkit.ddp.PasswordDigest}, for apps that
 * depend on nothing else; it cannot depend on this module.)
 */
public final class PasswordDigest {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private PasswordDigest() {}

  /** Returns the lowercase hex SHA-256 of {@code password}'s UTF-8 bytes. */
  public static String sha256Hex(String password) {
    Objects.requireNonNull(password, "password");
    byte[] hash;
    try {
      hash = MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
    char[] hex = new char[hash.length * 2];
    for (int i = 0; i < hash.length; i++) {
      hex[2 * i] = HEX[(hash[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX[hash[i] & 0xf];
    }
    return new String(hex);
  }
}
