package dev.ddpkit.ddp;

/**
 * Observes {@link DdpClient#isResyncing()}: whether the local collections may be out of date
 * because the connection was lost. Called in order, on the client's event loop.
 */
@FunctionalInterface
public interface ResyncListener {
  /** A listener that does nothing. */
  ResyncListener NONE = resyncing -> {};

  /**
   * Called with {@code true} when an established connection is lost (the collections keep what
   * they showed, which may now be stale), and with {@code false} once, after the reconnect, every
   * revived subscription is ready, every re-sent call updated, and the collections were replaced by
   * the server's data in one step. A resync listener is told after the collection listeners.
   */
  void onResyncChanged(boolean resyncing);
}
