package dev.ddpkit.chat;

import java.security.SecureRandom;
import java.util.Objects;
import java.util.Random;

/** Message ids in the shape of Meteor's {@code Random.id()}: 17 characters, no look-alikes. */
public final class RandomIds {
  /** The alphabet Meteor uses for ids (no 0/O, 1/l/I). */
  public static final String ALPHABET = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";

  /** The length of an id. */
  public static final int LENGTH = 17;

  private static final RandomIds SECURE = new RandomIds(new SecureRandom());

  private final Random random;

  /** Creates a generator drawing from {@code random} (seed it in tests). */
  public RandomIds(Random random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /** Returns the shared generator backed by a {@link SecureRandom}. */
  public static RandomIds secure() {
    return SECURE;
  }

  /** Returns a new id. */
  public String next() {
    char[] id = new char[LENGTH];
    for (int i = 0; i < LENGTH; i++) {
      id[i] = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
    }
    return new String(id);
  }
}
