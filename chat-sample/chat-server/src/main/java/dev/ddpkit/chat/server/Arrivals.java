package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import dev.ddpkit.reconnect.admission.Admission;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.java_websocket.WebSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of a socket that opens: turned away if the server is killed (dropped) or draining
 * (1012 with the drain's appointment); otherwise judged by the server's {@link Admission}, built
 * with this object when the server starts (its bucket empty then): rejected with 1013 and an
 * appointment, served at once, or held under the admission's peak limit and served when the hold
 * is over (its frames kept meanwhile in its {@link Hold}). Serving adds the session to the open
 * ones and greets it with {@code server_id}. Every {@link ServerConnectionListener} event (accepted,
 * rejected, closed) is sent from here.
 */
final class Arrivals {
  private static final Logger log = LoggerFactory.getLogger(Arrivals.class);

  /** Whether new connections are served, turned away for a drain, or dropped (killed). */
  enum Mode { OPEN, DRAINING, KILLED }

  private final Counters counters;
  /** Null when every connection is accepted (no accept rate). */
  private final Admission admission;
  private final boolean retryAfterHints;
  private final Clock clock;
  private final ServerConnectionListener listener;
  private final Set<Session> sessions;
  private final Scheduler scheduler;
  private final Ticker ticker;
  /** Handles one frame of a served connection (the handler's). */
  private final BiConsumer<Session, String> handle;
  private final AtomicLong seq = new AtomicLong();
  /** Admitted connections still held. */
  private final Set<Session> pending = ConcurrentHashMap.newKeySet();
  private volatile Mode mode = Mode.OPEN;
  /** The close reason of a connection turned away while draining. */
  private volatile Supplier<String> drainReason = () -> "service restart";

  Arrivals(ServerConfig cfg, Counters counters, Set<Session> sessions,
      Scheduler scheduler, BiConsumer<Session, String> handle) {
    this.counters = counters;
    this.admission = cfg.acceptRate == 0 ? null : Admission.builder()
        .capacity(cfg.acceptRate)
        .burst(cfg.acceptBurst == 0 ? cfg.acceptRate : cfg.acceptBurst)
        .appointments(cfg.retryAfterHints)
        .warmUp(cfg.warmUp)
        .ticker(cfg.ticker::read)
        .build();
    this.retryAfterHints = cfg.retryAfterHints;
    this.clock = cfg.clock;
    this.listener = cfg.connectionListener;
    this.sessions = sessions;
    this.scheduler = scheduler;
    this.ticker = cfg.ticker;
    this.handle = handle;
  }

  /**
   * Sets what becomes of new connections from now on; draining or killed, the connections still
   * held are turned away at once, as a new dial would be (so a planned restart gives each its own
   * appointment and a kill drops it).
   */
  void mode(Mode mode, Supplier<String> drainReason) {
    this.drainReason = drainReason;
    this.mode = mode;
    if (mode != Mode.OPEN) {
      for (Session s : pending) {
        endHold(s);
      }
    }
  }

  void opened(WebSocket conn) {
    long now = clock.millis();
    counters.connectionsTotal.incrementAndGet();
    if (turnedAway(conn, now)) {
      return;
    }
    Admission.Verdict v = admission == null ? null : admission.admit();
    if (v != null && !v.admitted()) {
      counters.connectionsRejected.incrementAndGet();
      counters.rejected(now);
      // With hints the slot is reserved for whoever comes back in it; without, nothing is.
      conn.close(1013, retryAfterHints ? v.closeReason("try again later") : "try again later");
      long wait = v.retryAfterMillis();
      notify(() -> listener.rejected(now, 1013, wait));
      return;
    }
    boolean held = v != null && v.holdMillis() > 0;
    Session s = new Session(seq.incrementAndGet(), conn, ticker.read(), held ? new Hold() : null);
    conn.setAttachment(s);
    if (!held) {
      serve(s, now);
      return;
    }
    // Admitted, but one more would be over the accept rate in the last second: served later.
    pending.add(s);
    try {
      scheduler.schedule(Duration.ofMillis(v.holdMillis()), () -> endHold(s));
    } catch (RejectedExecutionException e) {
      // The timer is gone: the server is stopping.
      pending.remove(s);
      s.hold.drop();
      conn.close(1001, "server stopping");
    }
  }

  /**
   * Ends a hold: serves the connection and hands it the frames it sent meanwhile, or turns it
   * away if the server is draining or killed by now. On the timer when the hold is over, or at
   * once on the thread that drains or kills the server; only the first call does anything.
   */
  private void endHold(Session s) {
    pending.remove(s);
    Hold hold = s.hold;
    if (!hold.take()) {
      return;
    }
    try {
      long now = clock.millis();
      if (turnedAway(s.conn, now) || !serve(s, now)) {
        hold.drop();
        return;
      }
      for (List<String> batch = hold.nextBatch(); !batch.isEmpty(); batch = hold.nextBatch()) {
        batch.forEach(text -> handle.accept(s, text));
      }
    } catch (RuntimeException e) {
      hold.drop();
      log.error("internal error serving {} after its hold; closing it with 1011", s, e);
      s.conn.close(1011, "internal error");
    }
  }

  /** Turns a new connection away if the server is killed or draining; whether it did. */
  private boolean turnedAway(WebSocket conn, long now) {
    Mode m = mode;
    if (m == Mode.KILLED) {
      Liveness.dropAbruptly(conn);
      return true;
    }
    if (m == Mode.DRAINING) {
      String reason = drainReason.get();
      conn.close(1012, reason);
      long hint = retryAfter(reason);
      notify(() -> listener.rejected(now, 1012, hint));
      return true;
    }
    return false;
  }

  /** Starts serving an admitted connection; false if it closed before. */
  private boolean serve(Session s, long now) {
    if (!s.conn.isOpen() || (s.hold != null && s.hold.isClosed())) {
      return false;
    }
    sessions.add(s);
    if (s.hold != null && s.hold.isClosed()) {
      sessions.remove(s); // closed meanwhile: its close found no session to remove
      return false;
    }
    counters.connectionsOpened.incrementAndGet();
    counters.accepted(now);
    ObjectNode hello = Frames.object();
    hello.put("server_id", "0");
    DdpHandler.send(s, hello);
    notify(() -> listener.accepted(now));
    return true;
  }

  /** What becomes of new connections now. */
  Mode mode() {
    return mode;
  }

  /** Tells the listener that a served connection closed. */
  void closed(int code, boolean remote) {
    long now = clock.millis();
    notify(() -> listener.closed(now, code, remote));
  }

  /** The {@code retry-after} of a close reason this server made, or 0. */
  static long retryAfter(String reason) {
    int i = reason.lastIndexOf("retry-after=");
    return i < 0 ? 0 : Long.parseLong(reason.substring(i + "retry-after=".length()));
  }

  private void notify(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn("connection listener threw", e);
    }
  }
}
