package dev.ddpkit.chat.server;

import dev.ddpkit.ddp.PasswordDigest;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Password hashes, resume tokens and random ids. Passwords arrive as the client's SHA-256 hex
 * digest; the store keeps only a salted PBKDF2 of that digest. Tokens are kept only as SHA-256.
 */
final class Secrets {
  static final int PBKDF2_ITERATIONS = 10_000;
  private static final String SCHEME = "pbkdf2-sha256";
  private static final Pattern HEX64 = Pattern.compile("[0-9a-fA-F]{64}");
  private static final String ID_CHARS = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";

  private final SecureRandom random = new SecureRandom();
  /** Hash compared against when the user does not exist, so both failures cost the same. */
  private final String dummyHash;

  Secrets() {
    this.dummyHash = hashDigest(sha256Hex("not-a-password"));
  }

  /** True when {@code s} looks like a SHA-256 hex digest. */
  static boolean isDigest(String s) {
    return s != null && HEX64.matcher(s).matches();
  }

  /** The lowercase SHA-256 hex of a UTF-8 string (what a client sends as its password digest). */
  static String sha256Hex(String s) {
    return PasswordDigest.sha256Hex(s);
  }

  /** The key a token is stored under: base64url(SHA-256(token)). */
  static String tokenKey(String token) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString(sha256(token.getBytes(StandardCharsets.US_ASCII)));
  }

  private static byte[] sha256(byte[] in) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(in);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** A new resume token: 256 random bits, base64url without padding. */
  String newToken() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** A Meteor-style random id of 17 characters. */
  String newId() {
    StringBuilder sb = new StringBuilder(17);
    for (int i = 0; i < 17; i++) {
      sb.append(ID_CHARS.charAt(random.nextInt(ID_CHARS.length())));
    }
    return sb.toString();
  }

  /** A salted hash of a client digest, in the form {@code pbkdf2-sha256$iterations$salt$hash}. */
  String hashDigest(String digestHex) {
    byte[] salt = new byte[16];
    random.nextBytes(salt);
    byte[] hash = pbkdf2(digestHex.toLowerCase(java.util.Locale.ROOT), salt, PBKDF2_ITERATIONS);
    Base64.Encoder enc = Base64.getEncoder().withoutPadding();
    return SCHEME + "$" + PBKDF2_ITERATIONS + "$" + enc.encodeToString(salt) + "$"
        + enc.encodeToString(hash);
  }

  /**
   * Checks a client digest against a stored hash in constant time; a null stored hash (unknown
   * user) is compared against a dummy so that the time taken does not tell the two apart.
   */
  boolean verify(String digestHex, String stored) {
    boolean known = stored != null;
    String[] parts = (known ? stored : dummyHash).split("\\$");
    if (parts.length != 4 || !SCHEME.equals(parts[0])) {
      return false;
    }
    int iterations;
    try {
      iterations = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      return false;
    }
    Base64.Decoder dec = Base64.getDecoder();
    byte[] expected = dec.decode(parts[3]);
    byte[] actual = pbkdf2(digestHex.toLowerCase(java.util.Locale.ROOT), dec.decode(parts[2]),
        iterations);
    return MessageDigest.isEqual(expected, actual) && known;
  }

  private static byte[] pbkdf2(String digestHex, byte[] salt, int iterations) {
    try {
      PBEKeySpec spec = new PBEKeySpec(digestHex.toCharArray(), salt, iterations, 256);
      try {
        return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec)
            .getEncoded();
      } finally {
        spec.clearPassword();
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("PBKDF2WithHmacSHA256 is missing from this JVM", e);
    }
  }
}
