package dev.ddpkit.reconnect;

/**
 * Observes every state change of a {@link ReconnectionManager}, in order. Called outside any lock;
 * an exception thrown here is logged and does not affect the manager or other listeners.
 */
@FunctionalInterface
public interface ReconnectListener {
  /** A listener that does nothing. */
  ReconnectListener NONE = status -> {};

  /** Called after each change with the new snapshot. */
  void onStatus(ReconnectStatus status);
}
