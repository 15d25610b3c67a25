package dev.ddpkit.reconnect;

/**
 * Dials a new connection when the {@link ReconnectionManager} says it is time. Implemented by the
 * socket owner, which reports the outcome on the {@link Attempt} it is handed ({@link
 * Attempt#opened()}, {@link Attempt#closed(int, String)}, {@link Attempt#failed(Throwable)}), so
 * that a late report from an earlier socket is never taken for the current one.
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
   * @param attempt the attempt to report on; its {@link Attempt#number()} is 0 for the first
   *     connection, then the number of the retry (1, 2, ...)
   */
  void connect(Attempt attempt) throws Exception;
}
