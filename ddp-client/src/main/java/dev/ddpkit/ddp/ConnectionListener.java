package dev.ddpkit.ddp;

/**
 * Told of each connection's life: when a socket reaches DDP {@code connected}, and when a
 * connection that had reached it ends. It is the per-socket view behind the coarser {@link
 * StatusListener} (which also shows dialing and waiting): use it to count reconnects, log outages
 * or measure how long connections last. Called on the client's event loop, in order; it must not
 * block. An exception it throws is logged and ignored.
 */
public interface ConnectionListener {
  /**
   * A socket reached DDP {@code connected}. Runs before the {@link ReconnectHook}s and before
   * subscriptions and calls are re-sent.
   *
   * @param reconnect {@code false} for the client's first connection, {@code true} afterwards
   */
  default void onConnected(boolean reconnect) {}

  /**
   * A socket reached DDP {@code connected}, resuming the session of the one before or not. The
   * default calls {@link #onConnected(boolean)}. A resumed session runs no reconnect hook and
   * sends no subscription again.
   *
   * @param reconnect {@code false} for the client's first connection, {@code true} afterwards
   * @param resumed whether the server resumed the session (DDP session resumption)
   */
  default void onConnected(boolean reconnect, boolean resumed) {
    onConnected(reconnect);
  }

  /**
   * A connection that had reached {@code connected} is gone: lost, dropped by the heartbeat,
   * closed by the server, given up, or closed by {@link DdpClient#close()}.
   *
   * @param code the WebSocket close code (1006 when the socket died without one, 1000 when this
   *     client closed it)
   * @param reason the close reason, possibly empty; it never carries a credential
   */
  default void onDisconnected(int code, String reason) {}
}
