package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.java_websocket.WebSocket;
import org.java_websocket.drafts.Draft;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.java_websocket.framing.Framedata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * State of one accepted connection. Its frames are handled on one thread at a time (its socket
 * worker, or the selector for a first read that is the whole upgrade or a lone {@code connect}:
 * see {@link SelectorDecodes}), which writes its fields; method completions (the store's writer)
 * and the heartbeat (the scheduler) read them, hence volatile. What several threads update
 * together has its own monitor: the frames written out (the count, the queue while held, the
 * forward after a resume) this object's {@code out}, the method ids its {@link MethodBook}.
 */
final class Session {
  private static final Logger log = LoggerFactory.getLogger(Session.class);

  final long seq;
  final WebSocket conn;
  final long openedNanos;
  /** While the admission holds this connection, its frames wait here; null if never held. */
  final Hold hold;

  volatile boolean connected;
  volatile String version;
  /** The DDP session id: a capability (whoever names it may resume the session), never logged. */
  volatile String ddpSessionId;
  /**
   * Whether a drop of the socket now would keep the session for a resume: set at {@code
   * connected}, cleared for good by the client's {@code disconnect} or {@code logout}.
   */
  volatile boolean resumable;
  /** The server closed this connection (a drain, an error, a policy): not resumable. */
  volatile boolean serverClosed;
  /** The server closed it because it stopped answering pings: a drop, resumable. */
  volatile boolean heartbeatDead;
  /** {@code {"_id", "username"}} of the logged-in user, or null. */
  volatile ObjectNode user;
  /** Hash of the token this connection logged in with, or null. */
  volatile String tokenKey;
  volatile long lastInboundNanos;
  /** When the server's ping went out, 0 when none is outstanding. */
  volatile long pingSentNanos;
  /** The server closed this connection for a protocol error it already counted. */
  volatile boolean protocolClose;
  /** Whether the frame being handled is small enough to echo in an error; decoding thread only. */
  boolean echoOffending = true;
  /** Protocol errors of this connection; the decoding thread only. */
  int protocolErrors;

  /**
   * The DDP session's stream subscriptions: this connection's own, or, once it resumed a held
   * session, that session's (the same object: see {@link #resumeOn}).
   */
  volatile SessionStreams streams;

  /** Guards what a frame written out touches: the count, the hold, the forward. */
  private final Object out = new Object();
  /** Frames written to the socket but ping and pong (DDP session resumption's count). */
  private long sentCount;
  /** While the session is held (no socket, in its grace period), its frames; else null. */
  private ArrayDeque<String> held;
  private int heldLimit;
  /** The session that resumed this one: later frames go there. */
  private Session forward;
  private Runnable overflow = () -> { };

  /**
   * The method ids the DDP session has seen: this connection's own, or, once it resumed a held
   * session, that session's (the same object: see {@link #resumeOn}).
   */
  volatile MethodBook methods = new MethodBook();

  Session(long seq, WebSocket conn, long nowNanos, Hold hold) {
    this.seq = seq;
    this.conn = conn;
    this.hold = hold;
    this.openedNanos = nowNanos;
    this.lastInboundNanos = nowNanos;
    this.streams = new SessionStreams(this);
  }

  /** What became of a frame written out. */
  enum Write { SENT, HELD, OVERFLOW }

  /**
   * Writes a frame: to the socket, or while held to the queue (ping and pong, {@code counted}
   * false, are dropped then). Returns {@link Write#OVERFLOW} when the queue is over its limit:
   * the caller ends the session.
   */
  Write write(String text, boolean counted) {
    Session to;
    synchronized (out) {
      to = forward;
      if (to == null) {
        if (held != null) {
          if (!counted) {
            return Write.HELD;
          }
          held.add(text);
          return held.size() > heldLimit ? Write.OVERFLOW : Write.HELD;
        }
        if (counted) {
          sentCount++;
        }
      }
    }
    if (to != null) {
      return to.write(text, counted);
    }
    try {
      conn.send(text);
    } catch (WebsocketNotConnectedException e) {
      dropped();
    }
    return Write.SENT;
  }

  /**
   * For a broadcast: counts the frame and returns the socket to write it to, or returns null
   * having queued it (held) or forwarded it; {@code overflowed} is told of a held queue over its
   * limit.
   */
  WebSocket countForBroadcast(String text, Consumer<Session> overflowed) {
    Session to;
    synchronized (out) {
      to = forward;
      if (to == null) {
        if (held != null) {
          held.add(text);
          if (held.size() > heldLimit) {
            overflowed.accept(this);
          }
          return null;
        }
        sentCount++;
        return conn;
      }
    }
    if (to.write(text, true) == Write.OVERFLOW) {
      overflowed.accept(to);
    }
    return null;
  }

  /**
   * The socket dropped: from now on frames are kept, at most {@code limit} of them; one more runs
   * {@code onOverflow} (which ends the session).
   */
  void hold(int limit, Runnable onOverflow) {
    synchronized (out) {
      held = new ArrayDeque<>();
      heldLimit = limit;
      overflow = onOverflow;
    }
  }

  /**
   * A write found more frames queued than the held limit: ends the session whose queue is over
   * it now, this one or the one this one forwards to (its writes went there). Called after the
   * write, outside its lock: a session resumed meanwhile, its queue replayed, is not ended, nor is
   * the one that resumed it unless its own queue is over its limit.
   */
  void overflowed() {
    Runnable r;
    Session to;
    synchronized (out) {
      to = forward;
      if (to == null && (held == null || held.size() <= heldLimit)) {
        return;
      }
      r = overflow;
    }
    if (to != null) {
      to.overflowed();
      return;
    }
    r.run();
  }

  /**
   * Resumes this held session on {@code next}, the new connection: only if the client received
   * exactly what was written ({@code receivedCount}). Returns whether it did; if not, nothing
   * changed. In one step under this session's lock, so that no frame of it can come between:
   * {@code next} takes over the DDP session's method book and stream subscriptions (the same
   * objects, shared by its connections: a call still running finishes in that book, and a sub
   * still being registered on this connection lands in those streams), then the count, and
   * {@code connected} and the queue are written there in order; every later frame of this one is
   * forwarded there, and broadcasts go there directly from then on. Since {@code next} has every
   * piece before its first frame, a drop of it at any point holds a whole session.
   */
  boolean resumeOn(Session next, long receivedCount, String connectedFrame) {
    synchronized (out) {
      if (held == null || forward != null || sentCount != receivedCount) {
        return false;
      }
      ArrayDeque<String> queued = held;
      held = null;
      forward = next;
      next.methods = methods;
      next.streams = streams;
      next.takeOver(sentCount, connectedFrame, queued);
      streams.current = next; // after connected: a broadcast that read this one waits, forwarded
      return true;
    }
  }

  /**
   * Takes the count over and writes {@code connected} and the replay in one write: one enqueue
   * and one wake-up of the selector, one gathering write. If this connection dropped already
   * (its own close found it connected and held it), the replay waits in its queue for the next
   * resume, without this {@code connected}: the client never saw it, and that resume sends its
   * own.
   */
  private void takeOver(long count, String connectedFrame, ArrayDeque<String> queued) {
    List<String> frames = new ArrayList<>(queued.size() + 1);
    frames.add(connectedFrame);
    frames.addAll(queued);
    synchronized (out) {
      sentCount = count;
      if (held != null) {
        held.addAll(queued); // at most the limit: a queue over it had ended the session
        return;
      }
      sentCount += frames.size();
    }
    // A socket closing already drops them (see dropped()); the resume still completes, so that
    // the close of this connection ends, or holds, the session and what it took over.
    sendAll(frames);
  }

  /** Hands {@code texts} to the socket at once, in order (see {@link #takeOver}). */
  private void sendAll(List<String> texts) {
    try {
      if (conn instanceof ServerConnection own) {
        own.sendTexts(texts);
        return;
      }
      Draft draft = conn.getDraft();
      if (draft == null) { // not a Java-WebSocket connection (a test's): one by one
        texts.forEach(conn::send);
        return;
      }
      List<Framedata> frames = new ArrayList<>(texts.size());
      for (String text : texts) {
        frames.addAll(draft.createFrames(text, false)); // a server's frames are not masked
      }
      conn.sendFrame(frames);
    } catch (WebsocketNotConnectedException e) {
      dropped();
    }
  }

  /**
   * A frame met this connection's socket closed: it goes with the socket, as one written just
   * before the close would. It was counted, so the count runs ahead of what the client got and a
   * resume naming the client's count is refused (a new session). The caller goes on: a broadcast
   * to the room's other subscribers, a resume to its end.
   */
  private void dropped() {
    log.trace("{}: not connected, frame dropped", this);
  }

  /** Frames written to the socket but ping and pong, so far (for tests). */
  long sentCount() {
    synchronized (out) {
      return sentCount;
    }
  }

  /** Records inbound traffic: it answers any outstanding ping. */
  void touch(long nowNanos) {
    lastInboundNanos = nowNanos;
    pingSentNanos = 0;
  }

  /** The logged-in username, or null. */
  String username() {
    ObjectNode u = user;
    return u == null ? null : u.path("username").asText();
  }

  @Override
  public String toString() {
    return "Session{" + seq + (user == null ? "" : ", user=" + username()) + "}";
  }
}
