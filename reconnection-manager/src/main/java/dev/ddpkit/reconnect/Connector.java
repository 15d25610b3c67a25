package dev.ddpkit.reconnect;

/**
 * Dials a new connection when the {@link ReconnectionManager} says it is time. Implemented by the
 * socket owner, which later reports the outcome with {@link ReconnectionManager#opened()} or
 * {@link ReconnectionManager#closed(int, String)}.
 *
 * <p>Called outside any lock of the manager, possibly on the scheduler's thread: an implementation
 * should hand the work to its own executor and return quickly. An exception thrown here counts as a
 * failed attempt (close code 1006).
 */
@FunctionalInterface
public interface Connector {
  /**
   * Starts a connection attempt.
   *
   * @param attempt 0 for the first connection, then the number of the retry (1, 2, ...)
   */
  void connect(int attempt) throws Exception;
}
