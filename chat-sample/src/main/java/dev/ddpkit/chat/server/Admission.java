package dev.ddpkit.chat.server;

/**
 * Admission control: at most {@code rate} new connections per wall-clock second. A connection
 * past the limit is told when to come back, and the hints handed out are spaced {@code 1/rate}
 * seconds apart from the start of the next second, so that a herd turned away at once returns
 * at the rate the server accepts instead of all together. Time is passed in, so the answers can
 * be checked exactly.
 */
final class Admission {
  private final int rate;
  private final double spacingMillis;
  private long windowSecond = Long.MIN_VALUE;
  private int acceptedInWindow;
  private double nextSlotMillis = Double.NEGATIVE_INFINITY;

  /** @param rate connections per second; 0 means unlimited */
  Admission(int rate) {
    if (rate < 0) {
      throw new IllegalArgumentException("rate must be >= 0: " + rate);
    }
    this.rate = rate;
    this.spacingMillis = rate == 0 ? 0 : 1000.0 / rate;
  }

  /**
   * Decides on a connection arriving at {@code nowMillis}.
   *
   * @return 0 to accept it, or the number of milliseconds (at least 1) after which it should retry
   */
  synchronized long admit(long nowMillis) {
    if (rate == 0) {
      return 0;
    }
    long second = Math.floorDiv(nowMillis, 1000L);
    if (second != windowSecond) {
      windowSecond = second;
      acceptedInWindow = 0;
    }
    if (acceptedInWindow < rate) {
      acceptedInWindow++;
      return 0;
    }
    double slot = Math.max(nextSlotMillis, (second + 1) * 1000.0);
    nextSlotMillis = slot + spacingMillis;
    return Math.max(1L, (long) Math.ceil(slot - nowMillis));
  }
}
