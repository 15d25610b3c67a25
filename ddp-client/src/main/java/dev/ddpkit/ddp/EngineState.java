package dev.ddpkit.ddp;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a client's connection. The engine is in exactly one at a time and moves between
 * them only through {@link ClientEngine#transitionTo}, along the moves of {@link #next()}; any
 * other move is a bug and throws ({@link #checkMove}), so a test that makes one fails.
 *
 * <pre>
 * IDLE --connect()--> WAITING --dial--> DIALING --open--> HANDSHAKE --connected--> CONNECTED
 *                                                                   (a reconnect) RESYNCING --ready--> CONNECTED
 * HANDSHAKE or DIALING --version negotiation--> DIALING (the same attempt, a new socket)
 * DIALING --connected (before its open was seen)--> CONNECTED or RESYNCING
 * any state with a socket --lost--> WAITING;  any but CLOSED --give up--> FAILED --connect()--> WAITING
 * any but CLOSED --close()--> CLOSED (final: no move out)
 * </pre>
 */
enum EngineState {
  /** Built; {@link DdpClient#connect()} not called yet. */
  IDLE,
  /** A socket is being opened for an attempt of the reconnection manager. */
  DIALING,
  /** The socket is open and DDP {@code connect} sent; waiting for {@code connected}. */
  HANDSHAKE,
  /** DDP {@code connected}, and the collections are in sync. */
  CONNECTED,
  /**
   * DDP {@code connected} again after a loss: hooks, subscriptions and calls re-sent; data held
   * until the revived subscriptions are ready and the re-sent calls updated.
   */
  RESYNCING,
  /** No socket; the reconnection manager decides when to dial (or holds while offline). */
  WAITING,
  /** Given up for good (version refused, close code that stops, retries exhausted). */
  FAILED,
  /** Closed by the user; final. */
  CLOSED;

  /** Returns the states this one may move to; empty for {@link #CLOSED}. */
  Set<EngineState> next() {
    return switch (this) {
      case IDLE -> EnumSet.of(WAITING, FAILED, CLOSED);
      case WAITING -> EnumSet.of(DIALING, FAILED, CLOSED);
      case DIALING -> EnumSet.of(DIALING, HANDSHAKE, CONNECTED, RESYNCING, WAITING, FAILED, CLOSED);
      case HANDSHAKE -> EnumSet.of(DIALING, CONNECTED, RESYNCING, WAITING, FAILED, CLOSED);
      case CONNECTED -> EnumSet.of(WAITING, FAILED, CLOSED);
      case RESYNCING -> EnumSet.of(CONNECTED, WAITING, FAILED, CLOSED);
      case FAILED -> EnumSet.of(WAITING, CLOSED);
      case CLOSED -> EnumSet.noneOf(EngineState.class);
    };
  }

  /**
   * Checks the move to {@code target}.
   *
   * @throws IllegalStateException if the table does not have it (a bug of the engine)
   */
  void checkMove(EngineState target) {
    if (!next().contains(target)) {
      throw new IllegalStateException("illegal move " + this + " -> " + target);
    }
  }

  /** Whether a socket belongs to this state (a {@link Connection} exists). */
  boolean hasConnection() {
    return this == DIALING || this == HANDSHAKE || this == CONNECTED || this == RESYNCING;
  }

  /** Whether DDP {@code connected} was received on the current socket. */
  boolean isConnected() {
    return this == CONNECTED || this == RESYNCING;
  }
}
