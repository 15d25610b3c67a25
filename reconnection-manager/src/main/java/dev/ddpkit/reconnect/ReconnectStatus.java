package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.Objects;

/**
 * An immutable snapshot of a {@link ReconnectionManager}: enough for a status line such as
 * "Reconnecting in 3 s (attempt 4)".
 *
 * @param state the state
 * @param attempt the current attempt number: 0 while the first connection is made or after the
 *     connection became stable, then 1, 2, ... for each retry
 * @param delay the delay chosen before the pending or current attempt ({@link Duration#ZERO} if
 *     none)
 * @param nextAttemptAtNanos the {@link Ticker} time of the next attempt, meaningful in {@link
 *     ReconnectionManager.State#WAITING}
 * @param lastCloseCode the last close code reported, or 0 if none yet
 * @param reason a short human-readable reason for the state ("closed 1006", "gave up after 10
 *     attempts", "stopped by client"), empty if none
 * @param networkLost whether dials are held because the network is reported lost
 * @param suspended whether dials are held because the application is suspended
 */
public record ReconnectStatus(
    ReconnectionManager.State state,
    int attempt,
    Duration delay,
    long nextAttemptAtNanos,
    int lastCloseCode,
    String reason,
    boolean networkLost,
    boolean suspended) {

  /** Validates the components. */
  public ReconnectStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(reason, "reason");
  }

  /** Returns the time left until the next attempt at {@code nowNanos}, never negative. */
  public Duration retryIn(long nowNanos) {
    if (state != ReconnectionManager.State.WAITING) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.max(0, nextAttemptAtNanos - nowNanos));
  }
}
