package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's {@link DdpStatus}: computed from the reconnection manager's latest snapshot and the
 * engine's state, and told to the status listeners when it changes. Written on the event loop;
 * {@link #current()} from any thread.
 */
final class StatusTracker {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final String name;
  private final ReconnectionManager manager;
  private final WallClock wall;
  private final Listeners listeners;
  private volatile DdpStatus status;
  private ReconnectStatus lastManager;
  private Instant lastRetryTime;
  /** Whether the current connection resumed its session (shown while connected). */
  private boolean resumed;

  StatusTracker(String name, ReconnectionManager manager, WallClock wall, Listeners listeners) {
    this.name = name;
    this.manager = manager;
    this.wall = wall;
    this.listeners = listeners;
    this.lastManager = manager.status();
    this.status = StatusMapping.map(lastManager, null, false, false, null);
  }

  DdpStatus current() {
    return status;
  }

  /** The wall-clock time of the retry a manager's snapshot announces (any thread, at once). */
  Instant retryTimeOf(ReconnectStatus s) {
    return s.state() == ReconnectionManager.State.WAITING
        ? wall.now().plusNanos(s.nextAttemptAtNanos() - manager.ticker().read())
        : null;
  }

  /**
   * Notes a snapshot of the manager; returns {@code false} if it is stale: a STOPPED from before
   * the manager was started again ({@code connect()} from a status listener on FAILED, while
   * this STOPPED was still queued), whose newer snapshots follow. Acting on it would fail the
   * client for good with the manager running and no dial.
   */
  boolean note(ReconnectStatus s, Instant retry) {
    if (s.state() == ReconnectionManager.State.STOPPED
        && manager.status().state() != ReconnectionManager.State.STOPPED) {
      log.debug("{}: stale manager snapshot ignored: {}", name, s.state());
      return false;
    }
    lastManager = s;
    lastRetryTime = retry;
    return true;
  }

  /** The current connection resumed its session, or began a new one. */
  void sessionResumed(boolean resumedNow) {
    this.resumed = resumedNow;
  }

  /** Recomputes the status; {@code failure} is the reason of a failure for good, or null. */
  void refresh(boolean connected, String failure) {
    DdpStatus next = StatusMapping.map(lastManager, lastRetryTime, connected, false, failure);
    set(next.withResumed(resumed && next.state() == DdpStatus.State.CONNECTED));
  }

  /** The client was closed: the last status. */
  void closed() {
    set(StatusMapping.map(manager.status(), null, false, true, null));
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
