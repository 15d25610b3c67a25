package dev.ddpkit.reconnect;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of a {@link ReconnectionManager} and how a status reaches them: each in turn,
 * outside the manager's lock (from its {@link DeferredActions}), one failing listener not stopping the
 * others.
 */
final class StatusFeed {
  private static final Logger log = LoggerFactory.getLogger(ReconnectionManager.class);

  private final CopyOnWriteArrayList<ReconnectListener> listeners;
  private final String name;

  StatusFeed(List<ReconnectListener> initial, String name) {
    this.listeners = new CopyOnWriteArrayList<>(initial);
    this.name = name;
  }

  /** Adds a listener; returns a handle that removes it. */
  Cancellable add(ReconnectListener listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Tells every listener; the caller holds no lock. */
  void publish(ReconnectStatus s) {
    if (log.isDebugEnabled()) {
      log.debug(
          "{}: {} attempt={} delay={}ms {}", name, s.state(), s.attempt(), s.delay().toMillis(),
          s.reason());
    }
    for (ReconnectListener l : listeners) {
      try {
        l.onStatus(s);
      } catch (RuntimeException e) {
        log.warn("{}: listener {} failed", name, l, e);
      }
    }
  }
}
