package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.io.IOException;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether each connection is still alive, and the end of those that are not: the DDP heartbeat
 * (pings to quiet connections, a close for those that do not answer or never connect), graceful
 * closes that fall back to a drop when the peer is gone, and drops. {@link #heartbeat} runs on the
 * server's scheduler (every {@link #tick}); {@link #closeGracefully} on whichever thread closes (a
 * socket worker, the scheduler, or a caller of the server's drain and test hooks), and its fallback
 * drop on the scheduler. Every time it reads is its ticker's.
 */
final class Liveness {
  private static final Logger log = LoggerFactory.getLogger(Liveness.class);
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

  /** The handler's open connections (a live view). */
  private final Set<Session> sessions;
  private final Counters counters;
  private final long heartbeatIntervalNanos;
  private final long heartbeatTimeoutNanos;
  private final Scheduler scheduler;
  private final Ticker ticker;
  /** How often {@link #heartbeat} runs once {@link #start}ed. */
  final Duration tick;

  Liveness(Set<Session> sessions, Counters counters, ServerConfig cfg, Scheduler scheduler) {
    this.sessions = sessions;
    this.counters = counters;
    this.heartbeatIntervalNanos = cfg.heartbeatInterval.toNanos();
    this.heartbeatTimeoutNanos = cfg.heartbeatTimeout.toNanos();
    this.scheduler = scheduler;
    this.ticker = cfg.ticker;
    this.tick = Duration.ofMillis(Math.max(5, Math.min(1000,
        Math.min(cfg.heartbeatInterval.toMillis(), cfg.heartbeatTimeout.toMillis()) / 4)));
  }

  /** Runs {@link #heartbeat} every {@link #tick} on the scheduler until it refuses a task. */
  void start() {
    try {
      scheduler.schedule(tick, () -> {
        heartbeat();
        start();
      });
    } catch (RejectedExecutionException e) {
      // the server is stopping: no more heartbeats
    }
  }

  /** Sends pings to quiet connections and closes those that did not answer in time. */
  void heartbeat() {
    long now = ticker.read();
    for (Session s : sessions) {
      try {
        heartbeat(s, now);
      } catch (RuntimeException e) {
        log.warn("heartbeat of {} failed", s, e);
      }
    }
  }

  private void heartbeat(Session s, long now) {
    if (!s.connected) {
      if (now - s.openedNanos >= heartbeatIntervalNanos + heartbeatTimeoutNanos) {
        closeGracefully(s, 1000, "no connect message");
      }
      return;
    }
    if ("pre1".equals(s.version)) {
      return; // pre1 has no ping
    }
    long ping = s.pingSentNanos;
    if (ping == 0) {
      if (now - s.lastInboundNanos >= heartbeatIntervalNanos) {
        s.pingSentNanos = now;
        DdpHandler.send(s, Frames.frame("ping"));
      }
    } else if (s.lastInboundNanos < ping && now - ping >= heartbeatTimeoutNanos) {
      counters.heartbeatTimeouts.incrementAndGet();
      log.debug("{}: heartbeat timeout", s);
      s.heartbeatDead = true; // a dead socket, not a decision: the session may be resumed
      closeGracefully(s, 1000, "heartbeat timeout");
    }
  }

  /**
   * Closes with a close frame; if the peer is gone and the close cannot complete, drops the TCP
   * connection after a grace period so a dead socket does not linger.
   */
  void closeGracefully(Session s, int code, String reason) {
    s.serverClosed = true;
    s.conn.close(code, reason);
    try {
      scheduler.schedule(CLOSE_GRACE, () -> {
        if (!s.conn.isClosed()) {
          dropAbruptly(s.conn);
        }
      });
    } catch (RejectedExecutionException e) {
      // shutting down: the server's stop closes what is left
    }
  }

  /** Drops a connection at the TCP level: no close frame, a reset instead of a FIN. */
  static void dropAbruptly(WebSocket conn) {
    dropAbruptly(conn, 1006, "dropped by the server");
  }

  /**
   * Drops a connection at the TCP level, reporting {@code code} and {@code reason} as its close
   * (to the server's listeners and logs: the peer gets a reset).
   */
  static void dropAbruptly(WebSocket conn, int code, String reason) {
    if (conn instanceof WebSocketImpl) {
      WebSocketImpl impl = (WebSocketImpl) conn;
      ByteChannel ch = impl.getChannel();
      if (ch instanceof GatheringChannel g) {
        ch = g.socket();
      }
      if (ch instanceof SocketChannel) {
        try {
          ((SocketChannel) ch).socket().setSoLinger(true, 0);
        } catch (IOException | RuntimeException e) {
          log.debug("could not set SO_LINGER before a drop", e);
        }
      }
      impl.closeConnection(code, reason);
    } else {
      conn.closeConnection(code, reason);
    }
  }
}
