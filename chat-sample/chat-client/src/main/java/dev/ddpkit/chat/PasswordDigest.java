package dev.ddpkit.chat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/**
 * The password digest Meteor's accounts expect: lowercase hex SHA-256 of the UTF-8 password. The
 * same as ddp-client's {@link dev.ddpkit.ddp.PasswordDigest}, which an app that depends only on
 * ddp-client uses.
 */
public final class PasswordDigest {
  private PasswordDigest() {}

  /** Returns the lowercase hex SHA-256 of {@code password}. */
  public static String sha256Hex(String password) {
    Objects.requireNonNull(password, "password");
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder(hash.length * 2);
      for (byte b : hash) {
        hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
