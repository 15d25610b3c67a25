package dev.ddpkit.ddp;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What Meteor's {@code Meteor.status()} gives: the connection state, the attempt (Meteor's retry
 * count), the time of the next attempt and the reason of the last failure. Immutable.
 *
 * <p>As in {@link dev.ddpkit.reconnect.ReconnectStatus}, the count is {@code attempt} and the next
 * attempt is a point in time, with {@link #retryIn(Instant)} for "reconnecting in 3 s": here on the
 * wall clock (the client's {@link DdpClientBuilder#clock clock}), there on the manager's ticker.
 *
 * @param state the connection state
 * @param attempt the number of the retry the client is on (0 when connected and stable), Meteor's
 *     {@code retryCount}
 * @param retryTime when the next retry is due (wall clock), or {@code null} if none is scheduled
 * @param reason why the client is not connected ("closed 1006", "heartbeat timeout", ...), empty
 *     when connected
 * @param resumed whether the current connection resumed the session of the one before (DDP
 *     session resumption: nothing was sent again, the collections were kept); {@code false} when
 *     not connected, on the first connection and after a reconnect that began a new session
 */
public record DdpStatus(State state, int attempt, Instant retryTime, String reason,
    boolean resumed) {

  /** Connection states, as in Meteor's {@code status()}. */
  public enum State {
    /** Dialing, or the DDP handshake is under way. */
    CONNECTING,
    /** DDP {@code connected} was received. */
    CONNECTED,
    /** Disconnected; a retry is scheduled at {@link DdpStatus#retryTime()}. */
    WAITING,
    /** Disconnected on purpose (closed, or held while the network is lost); no retry scheduled. */
    OFFLINE,
    /** Disconnected for good: version mismatch, a close code that stops, or retries given up. */
    FAILED
  }

  /** Validates the components. */
  public DdpStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reason, "reason");
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must not be negative: " + attempt);
    }
    if (resumed && state != State.CONNECTED) {
      throw new IllegalArgumentException("only a connected status can be resumed: " + state);
    }
  }

  /** A status of a connection that did not resume a session (or of no connection). */
  public DdpStatus(State state, int attempt, Instant retryTime, String reason) {
    this(state, attempt, retryTime, reason, false);
  }

  /** This status, saying whether the connection resumed its session. */
  public DdpStatus withResumed(boolean resumed) {
    return resumed == this.resumed
        ? this
        : new DdpStatus(state, attempt, retryTime, reason, resumed);
  }

  /**
   * Returns the time left until the next attempt at {@code now} (the client's clock), never
   * negative; zero if no attempt is scheduled.
   */
  public Duration retryIn(Instant now) {
    Objects.requireNonNull(now, "now");
    if (retryTime == null || !retryTime.isAfter(now)) {
      return Duration.ZERO;
    }
    return Duration.between(now, retryTime);
  }

  /** Returns whether the state is {@link State#CONNECTED}. */
  public boolean connected() {
    return state == State.CONNECTED;
  }
}
