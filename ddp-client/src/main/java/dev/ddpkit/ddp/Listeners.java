package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.Cancellable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's listeners and hooks of one client. Added and removed from any thread; called on the
 * event loop, one that throws logged and the others still called.
 */
final class Listeners {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final String name;
  final CopyOnWriteArrayList<StatusListener> status = new CopyOnWriteArrayList<>();
  final CopyOnWriteArrayList<ConnectionListener> connection = new CopyOnWriteArrayList<>();
  final CopyOnWriteArrayList<ResyncListener> resync = new CopyOnWriteArrayList<>();
  final CopyOnWriteArrayList<ReconnectHook> hooks = new CopyOnWriteArrayList<>();

  Listeners(String name) {
    this.name = name;
  }

  /** Adds {@code l} to {@code list}; returns a handle that removes it. */
  static <L> Cancellable add(List<L> list, L l) {
    list.add(l);
    return () -> list.remove(l);
  }

  /** Calls {@code call} on each listener in order; one that throws is logged as {@code what}. */
  <L> void tellEach(Iterable<L> listeners, String what, Consumer<? super L> call) {
    for (L l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        log.warn("{}: {} failed", name, what, e);
      }
    }
  }
}
