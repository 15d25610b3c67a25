package dev.ddpkit.chat.protocol;

import java.time.Duration;

/**
 * At most {@code calls} calls per {@code window}: one of Rocket.Chat's DDP rate limits, as the
 * server enforces it ({@code dev.ddpkit.chat.server.RateLimits}) and as the client budgets for it
 * ({@code dev.ddpkit.chat.ChatLimits}).
 *
 * @param calls calls allowed in one window, at least 1
 * @param window the window, at least 1 ms
 */
public record CallLimit(int calls, Duration window) {
  /** Validates both values. */
  public CallLimit {
    if (calls < 1) {
      throw new IllegalArgumentException("calls must be >= 1: " + calls);
    }
    if (window == null || window.toMillis() < 1) {
      throw new IllegalArgumentException("window must be >= 1 ms: " + window);
    }
  }

  @Override
  public String toString() {
    return calls + "/" + window.toMillis() + "ms";
  }
}
