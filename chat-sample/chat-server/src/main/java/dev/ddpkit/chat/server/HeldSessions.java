package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DDP sessions whose socket dropped, kept for their grace period so the client can resume
 * them (Meteor 3.5's session resumption): in memory only, so a kill or restart loses them all. A
 * session leaves by being claimed by a resume, by its grace period running out, by its queue
 * overflowing, or by a drain; each way exactly once. Any thread.
 */
final class HeldSessions {
  private static final Logger log = LoggerFactory.getLogger(HeldSessions.class);

  private record Held(Session session, Cancellable expiry) {}

  private final Duration grace;
  private final int queueLimit;
  private final Scheduler timer;
  private final Consumer<Session> destroy;
  private final Counters counters;
  private final ConcurrentHashMap<String, Held> byId = new ConcurrentHashMap<>();

  /** {@code destroy} ends a session that leaves without being resumed. */
  HeldSessions(Duration grace, int queueLimit, Scheduler timer, Counters counters,
      Consumer<Session> destroy) {
    this.grace = grace;
    this.queueLimit = queueLimit;
    this.timer = timer;
    this.counters = counters;
    this.destroy = destroy;
  }

  /** Keeps {@code s} for its grace period; false if resumption is off (the caller ends it). */
  boolean hold(Session s) {
    if (grace.isZero() || s.ddpSessionId == null) {
      return false;
    }
    s.hold(queueLimit, () -> {
      log.debug("{}: over {} frames queued while held; session ended", s, queueLimit);
      expire(s);
    });
    Cancellable expiry;
    try {
      expiry = timer.schedule(grace, () -> expire(s));
    } catch (RejectedExecutionException e) {
      return false; // stopping
    }
    byId.put(s.ddpSessionId, new Held(s, expiry));
    counters.sessionsHeld.incrementAndGet();
    log.debug("{}: socket dropped; session held for {} ms", s, grace.toMillis());
    return true;
  }

  /** Takes the held session of that id out for a resume, or returns null if none is held. */
  Session claim(String id) {
    Held h = id == null ? null : byId.remove(id);
    if (h == null) {
      return null;
    }
    h.expiry().cancel();
    return h.session();
  }

  /** Ends a held session now (grace over, queue overflow, wrong count); a no-op if it left. */
  void expire(Session s) {
    Held h = byId.get(s.ddpSessionId);
    if (h != null && h.session() == s && byId.remove(s.ddpSessionId, h)) {
      h.expiry().cancel();
      counters.sessionsExpired.incrementAndGet();
      destroy.accept(s);
    }
  }

  /** Ends every held session (a drain: none is resumable after it). */
  void expireAll() {
    List<Held> all = new ArrayList<>(byId.values());
    for (Held h : all) {
      expire(h.session());
    }
  }

  /** Sessions held now. */
  int size() {
    return byId.size();
  }
}
