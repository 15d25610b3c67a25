package dev.ddpkit.chat;

import java.time.Duration;
import java.util.Objects;

/**
 * What the status line shows. Immutable.
 *
 * @param state the state
 * @param attempt the reconnection attempt (0 for the first connection)
 * @param retryIn how long until the next attempt, in {@link State#WAITING}; zero otherwise
 * @param reason why the client is not connected ("closed 1006", "token refused"), or empty
 */
public record ChatStatus(State state, int attempt, Duration retryIn, String reason) {

  /** The states a user can see. */
  public enum State {
    /** Dialing, or logged out of the DDP session and logging in. */
    CONNECTING,
    /** Logged in, rooms joined: messages flow. */
    CONNECTED,
    /** Disconnected; the next attempt is scheduled. */
    WAITING,
    /** The server refused the credentials: the client stopped and needs new ones. */
    SIGNED_OUT,
    /** Closed, or reconnection gave up. */
    STOPPED
  }

  /** Validates the components. */
  public ChatStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(retryIn, "retryIn");
    Objects.requireNonNull(reason, "reason");
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must not be negative: " + attempt);
    }
    if (retryIn.isNegative()) {
      throw new IllegalArgumentException("retryIn must not be negative: " + retryIn);
    }
  }

  /** A status with no attempt, no delay and no reason. */
  public static ChatStatus of(State state) {
    return new ChatStatus(state, 0, Duration.ZERO, "");
  }

  /** Returns whether the client has stopped for good (signed out or stopped). */
  public boolean terminal() {
    return state == State.SIGNED_OUT || state == State.STOPPED;
  }

  /**
   * The status line: "connecting", "connected", "reconnecting in 3 s (attempt 4)", "signed out:
   * token refused", "stopped".
   */
  public String text() {
    String suffix = reason.isEmpty() ? "" : ": " + reason;
    switch (state) {
      case CONNECTING:
        return attempt == 0 ? "connecting" : "connecting (attempt " + attempt + ")";
      case CONNECTED:
        return "connected";
      case WAITING:
        return "reconnecting in " + humanDelay(retryIn) + " (attempt " + attempt + ")";
      case SIGNED_OUT:
        return "signed out" + suffix;
      case STOPPED:
        return "stopped" + suffix;
      default:
        throw new AssertionError("Unexpected state: " + state);
    }
  }

  /** Whole seconds rounded up from one second on ("3 s"), milliseconds below ("450 ms"). */
  static String humanDelay(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    return ((ms + 999) / 1000) + " s";
  }

  @Override
  public String toString() {
    return text();
  }
}
