package dev.ddpkit.ddp;

/**
 * The states of a client's connection. The engine is in exactly one at a time and moves between
 * them only through {@link ClientEngine#transitionTo}.
 *
 * <pre>
 * IDLE --connect()--> WAITING --dial--> DIALING --open--> HANDSHAKE --connected--> CONNECTED
 *                                                                   (a reconnect) RESYNCING --ready--> CONNECTED
 * any state with a socket --lost--> WAITING;  any --give up--> FAILED --connect()--> WAITING
 * any --close()--> CLOSED (final)
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

  /** Whether a socket belongs to this state (a {@link Connection} exists). */
  boolean hasConnection() {
    return this == DIALING || this == HANDSHAKE || this == CONNECTED || this == RESYNCING;
  }

  /** Whether DDP {@code connected} was received on the current socket. */
  boolean isConnected() {
    return this == CONNECTED || this == RESYNCING;
  }
}
