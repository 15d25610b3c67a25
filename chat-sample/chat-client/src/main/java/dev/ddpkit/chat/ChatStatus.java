package dev.ddpkit.chat;

import java.time.Duration;
import java.util.Objects;

/**
 * What the status line shows. Immutable.
 *
 * <p>After every login (the first and one per reconnect) the client is {@link State#SYNCING} until
 * each room it follows has its stream ready and its history or missed messages shown, and only
 * then {@link State#CONNECTED}: "connected" never stands over a timeline with a gap in it.
 *
 * @param state the state
 * @param attempt the reconnection attempt (0 for the first connection)
 * @param retryIn how long until the next attempt, in {@link State#WAITING}; zero otherwise
 * @param reason why the client is not connected ("closed 1006", "token refused"), or empty
 * @param roomsBehind in {@link State#SYNCING}, how many rooms are still catching up (at least
 *     one); zero in every other state
 * @param waiting how many of the user's messages wait to be sent or acknowledged ("2 waiting")
 * @param resumed in {@link State#CONNECTED}, whether the server resumed the session of the
 *     connection before (no login, no rejoin, no catch-up: what was missed was replayed); false
 *     in every other state
 */
public record ChatStatus(
    State state, int attempt, Duration retryIn, String reason, int roomsBehind, int waiting,
    boolean resumed) {

  /** The states a user can see. */
  public enum State {
    /** Dialing, or logged out of the DDP session and logging in. */
    CONNECTING,
    /**
     * Logged in, but some room may be missing messages: its stream is being (re)joined, or its
     * history or what was sent while offline is being fetched. Messages are shown as they come in;
     * {@link #CONNECTED} follows once every room caught up. A catch-up that fails is reported
     * through {@link ChatListener#onError} and no longer holds the room in this state.
     */
    SYNCING,
    /** Logged in, every room joined and caught up: messages flow, nothing is missing. */
    CONNECTED,
    /** Disconnected; the next attempt is scheduled. */
    WAITING,
    /** The server refused the credentials: the client stopped and needs new ones. */
    SIGNED_OUT,
    /** Closed, or reconnection gave up. */
    STOPPED
  }

  /**
   * Validates the components.
   *
   * @throws IllegalArgumentException if a count or the delay is negative, or if {@code roomsBehind}
   *     is zero in {@link State#SYNCING} or not zero in another state
   */
  public ChatStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(retryIn, "retryIn");
    Objects.requireNonNull(reason, "reason");
    if (waiting < 0) {
      throw new IllegalArgumentException("waiting must not be negative: " + waiting);
    }
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must not be negative: " + attempt);
    }
    if (retryIn.isNegative()) {
      throw new IllegalArgumentException("retryIn must not be negative: " + retryIn);
    }
    if (resumed && state != State.CONNECTED) {
      throw new IllegalArgumentException("only a connected status can be resumed: " + state);
    }
    if (state == State.SYNCING ? roomsBehind < 1 : roomsBehind != 0) {
      throw new IllegalArgumentException(
          "roomsBehind must be positive in SYNCING and zero otherwise: " + roomsBehind + " in "
              + state);
    }
  }

  /** A status of a connection that did not resume a session (or of no connection). */
  public ChatStatus(
      State state, int attempt, Duration retryIn, String reason, int roomsBehind, int waiting) {
    this(state, attempt, retryIn, reason, roomsBehind, waiting, false);
  }

  /** A status with no message waiting. */
  public ChatStatus(State state, int attempt, Duration retryIn, String reason, int roomsBehind) {
    this(state, attempt, retryIn, reason, roomsBehind, 0);
  }

  /** A status with no room behind: any state but {@link State#SYNCING}. */
  public ChatStatus(State state, int attempt, Duration retryIn, String reason) {
    this(state, attempt, retryIn, reason, 0);
  }

  /** This status with {@code waiting} messages waiting to be sent. */
  public ChatStatus withWaiting(int waiting) {
    return waiting == this.waiting
        ? this
        : new ChatStatus(state, attempt, retryIn, reason, roomsBehind, waiting, resumed);
  }

  /** This status, saying whether the connection resumed its session. */
  public ChatStatus withResumed(boolean resumed) {
    return resumed == this.resumed
        ? this
        : new ChatStatus(state, attempt, retryIn, reason, roomsBehind, waiting, resumed);
  }

  /** A status with no attempt, no delay and no reason: any state but {@link State#SYNCING}. */
  public static ChatStatus of(State state) {
    return new ChatStatus(state, 0, Duration.ZERO, "");
  }

  /** {@link State#SYNCING} with {@code roomsBehind} rooms (at least one) still catching up. */
  public static ChatStatus syncing(int roomsBehind) {
    return new ChatStatus(State.SYNCING, 0, Duration.ZERO, "", roomsBehind);
  }

  /** Returns whether the client has stopped for good (signed out or stopped). */
  public boolean terminal() {
    return state == State.SIGNED_OUT || state == State.STOPPED;
  }

  /**
   * The status line: "connecting", "catching up (2 rooms)", "connected", "reconnecting in 3 s
   * (attempt 4)", "signed out: token refused", "stopped"; followed by ", 2 waiting" while messages
   * wait to be sent (except when signed out or stopped: they are dropped).
   */
  public String text() {
    String line = line();
    return waiting == 0 || terminal() ? line : line + ", " + waiting + " waiting";
  }

  private String line() {
    String suffix = reason.isEmpty() ? "" : ": " + reason;
    switch (state) {
      case CONNECTING:
        return attempt == 0 ? "connecting" : "connecting (attempt " + attempt + ")";
      case SYNCING:
        return "catching up (" + roomsBehind + (roomsBehind == 1 ? " room)" : " rooms)");
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
