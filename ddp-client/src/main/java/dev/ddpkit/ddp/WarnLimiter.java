package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.Ticker;
import java.time.Duration;

/**
 * Lets at most {@link #BURST} warnings through per {@link #WINDOW} and counts the rest, so that a
 * server sending a bad frame a thousand times a second costs a few log lines a minute. Not
 * thread-safe: one per client, used on its event loop.
 */
final class WarnLimiter {
  /** Warnings let through per window. */
  static final int BURST = 10;

  /** The window. */
  static final Duration WINDOW = Duration.ofMinutes(1);

  private final Ticker ticker;
  private boolean started;
  private long windowStart;
  private int inWindow;
  private long suppressed;

  WarnLimiter(Ticker ticker) {
    this.ticker = ticker;
  }

  /**
   * Returns -1 if this warning is to be held back, else how many were held back since the last
   * one let through (to say so in this one).
   */
  long admit() {
    long now = ticker.read();
    if (!started || now - windowStart >= WINDOW.toNanos()) {
      started = true;
      windowStart = now;
      inWindow = 0;
    }
    if (inWindow >= BURST) {
      suppressed++;
      return -1;
    }
    inWindow++;
    long held = suppressed;
    suppressed = 0;
    return held;
  }
}
