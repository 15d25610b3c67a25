package dev.ddpkit.chat.server;

/**
 * Hook for benchmarks and the demo: told about every WebSocket the server accepts or turns away.
 * Called on the server's socket threads (the selector itself for an upgrade it decodes), never
 * while the server holds a lock; keep it quick: the selector reads no socket meanwhile. An
 * exception it throws is logged and ignored.
 */
public interface ServerConnectionListener {
  /** A listener that does nothing. */
  ServerConnectionListener NONE = new ServerConnectionListener() {};

  /** A connection passed admission control at {@code epochMillis}. */
  default void accepted(long epochMillis) {}

  /**
   * A connection was turned away at {@code epochMillis} with close code {@code code} (1013 past
   * the accept rate, 1012 while draining) and told to retry after {@code retryAfterMillis}.
   */
  default void rejected(long epochMillis, int code, long retryAfterMillis) {}

  /** An accepted connection closed at {@code epochMillis} with {@code code}. */
  default void closed(long epochMillis, int code, boolean remote) {}
}
