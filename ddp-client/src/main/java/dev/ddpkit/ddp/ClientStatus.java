package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one producer of the {@link DdpStatus} a user sees: {@link DdpClient#status()} and every
 * {@link StatusListener} call come from here, computed on the event loop from what arrives there
 * in order: the engine's moves (its {@link EngineState} and, when it gave up, why) and the
 * reconnection manager's changes, which the manager hands to the loop as they happen ({@link
 * ReconnectionManager.Builder#executor}), after the task that caused them and before anything
 * that task queued. Nothing here is read from another thread's state, so no change can arrive
 * stale. Written on the event loop; {@link #current()} from any thread.
 */
final class ClientStatus {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final String name;
  private final ReconnectionManager manager;
  private final WallClock wall;
  private final Listeners listeners;
  private volatile DdpStatus status;
  /** The manager's latest change, as it arrived on the loop. */
  private ReconnectStatus lastManager;
  /** The wall-clock time of the retry {@link #lastManager} announces, or null. */
  private Instant lastRetryTime;
  /** Whether the current connection resumed its session (shown while connected). */
  private boolean resumed;

  ClientStatus(String name, ReconnectionManager manager, WallClock wall, Listeners listeners) {
    this.name = name;
    this.manager = manager;
    this.wall = wall;
    this.listeners = listeners;
    this.lastManager = manager.status(); // IDLE: nothing runs yet
    this.status = compute(EngineState.IDLE, null);
  }

  DdpStatus current() {
    return status;
  }

  /** A change of the manager's, arrived on the loop: noted with the wall-clock time of its retry. */
  void managerChanged(ReconnectStatus s) {
    lastManager = s;
    lastRetryTime = s.state() == ReconnectionManager.State.WAITING
        ? wall.now().plusNanos(s.nextAttemptAtNanos() - manager.ticker().read())
        : null;
  }

  /** The current connection resumed its session, or began a new one. */
  void sessionResumed(boolean resumedNow) {
    this.resumed = resumedNow;
  }

  /**
   * Recomputes the status for the engine in {@code state}; {@code failure} is why it gave up
   * (FAILED only). Listeners are told if it changed.
   */
  void refresh(EngineState state, String failure) {
    DdpStatus next = compute(state, failure);
    set(next.withResumed(resumed && next.state() == DdpStatus.State.CONNECTED));
  }

  /** Meteor's {@code status()} from the engine's state and the manager's latest change. */
  private DdpStatus compute(EngineState state, String failure) {
    ReconnectStatus m = lastManager;
    switch (state) {
      case CLOSED:
        return new DdpStatus(DdpStatus.State.OFFLINE, m.attempt(), null, "closed by client");
      case FAILED:
        return new DdpStatus(DdpStatus.State.FAILED, m.attempt(), null, failure);
      case IDLE, WAITING, DIALING, HANDSHAKE, CONNECTED, RESYNCING:
        break;
      default:
        throw new AssertionError("Unexpected state: " + state);
    }
    DdpStatus.State shown =
        switch (m.state()) {
          case IDLE, CONNECTING -> DdpStatus.State.CONNECTING;
          // The socket may be open while the DDP handshake is still under way.
          case CONNECTED ->
              state.isConnected() ? DdpStatus.State.CONNECTED : DdpStatus.State.CONNECTING;
          case WAITING -> DdpStatus.State.WAITING;
          case HELD -> DdpStatus.State.OFFLINE;
          case STOPPED -> DdpStatus.State.FAILED;
        };
    Instant retry = shown == DdpStatus.State.WAITING ? lastRetryTime : null;
    String reason = shown == DdpStatus.State.CONNECTED ? "" : m.reason();
    return new DdpStatus(shown, m.attempt(), retry, reason);
  }

  private void set(DdpStatus next) {
    if (next.equals(status)) {
      return;
    }
    status = next;
    log.debug("{}: status {}", name, next);
    for (StatusListener l : listeners.status) {
      if (status != next) {
        return; // a listener changed it again (closed the client): do not deliver a stale one
      }
      try {
        l.onStatus(next);
      } catch (RuntimeException e) {
        log.warn("{}: status listener failed", name, e);
      }
    }
  }
}
