package dev.ddpkit.ddp;

import java.time.Instant;
import java.util.Objects;

/**
 * What Meteor's {@code Meteor.status()} gives: the connection state, the retry count, the time of
 * the next retry and the reason of the last failure. Immutable.
 *
 * @param state the connection state
 * @param retryCount the number of the retry the client is on (0 when connected and stable)
 * @param retryTime when the next retry is due (wall clock), or {@code null} if none is scheduled
 * @param reason why the client is not connected ("closed 1006", "heartbeat timeout", ...), empty
 *     when connected
 */
public record DdpStatus(State state, int retryCount, Instant retryTime, String reason) {

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
    if (retryCount < 0) {
      throw new IllegalArgumentException("retryCount must not be negative: " + retryCount);
    }
  }

  /** Returns whether the state is {@link State#CONNECTED}. */
  public boolean connected() {
    return state == State.CONNECTED;
  }
}
