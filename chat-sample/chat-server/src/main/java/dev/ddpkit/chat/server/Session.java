package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.java_websocket.WebSocket;

/**
 * State of one accepted connection. Its frames are decoded on one worker thread at a time;
 * method completions and the heartbeat touch it from other threads, hence the volatile fields
 * and the synchronized method book.
 */
final class Session {
  /** Method ids remembered per connection, to refuse running one twice. */
  static final int REMEMBERED_METHOD_IDS = 256;
  /** Of those, how many keep their answer to send it again. */
  static final int REMEMBERED_RESULTS = 16;

  /** What a method id has been seen as. */
  enum MethodState { NEW, RUNNING, DONE, FORGOTTEN }

  final long seq;
  final WebSocket conn;
  final long openedNanos;
  /** While the admission holds this connection, its frames wait here; null if never held. */
  final Hold hold;

  volatile boolean connected;
  volatile String version;
  volatile String ddpSessionId;
  /** {@code {"_id", "username"}} of the logged-in user, or null. */
  volatile ObjectNode user;
  /** Hash of the token this connection logged in with, or null. */
  volatile String tokenKey;
  volatile long lastInboundNanos;
  /** When the server's ping went out, 0 when none is outstanding. */
  volatile long pingSentNanos;
  /** The server closed this connection for a protocol error it already counted. */
  volatile boolean protocolClose;
  /** Whether the frame being handled is small enough to echo in an error; worker thread only. */
  boolean echoOffending = true;
  /** Protocol errors of this connection; worker thread only. */
  int protocolErrors;

  /** Active subscriptions: sub id to room id. */
  final Map<String, String> subs = new ConcurrentHashMap<>();

  /** Active {@code stream-notify-room} subscriptions: sub id to event name ({@code rid/event}). */
  final Map<String, String> notifySubs = new ConcurrentHashMap<>();

  private final LinkedHashMap<String, List<ObjectNode>> methods = new LinkedHashMap<>();
  private final ArrayDeque<String> withResults = new ArrayDeque<>();
  private static final List<ObjectNode> RUNNING = List.of();

  Session(long seq, WebSocket conn, long nowNanos, Hold hold) {
    this.seq = seq;
    this.conn = conn;
    this.hold = hold;
    this.openedNanos = nowNanos;
    this.lastInboundNanos = nowNanos;
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

  /** Registers a method id; answers what it was already, NEW meaning "run it now". */
  synchronized MethodState beginMethod(String id) {
    if (methods.containsKey(id)) {
      List<ObjectNode> v = methods.get(id);
      if (v == RUNNING) {
        return MethodState.RUNNING;
      }
      return v == null ? MethodState.FORGOTTEN : MethodState.DONE;
    }
    methods.put(id, RUNNING);
    if (methods.size() > REMEMBERED_METHOD_IDS) {
      Iterator<Map.Entry<String, List<ObjectNode>>> it = methods.entrySet().iterator();
      while (it.hasNext() && methods.size() > REMEMBERED_METHOD_IDS) {
        Map.Entry<String, List<ObjectNode>> e = it.next();
        if (e.getValue() != RUNNING) {
          it.remove();
        }
      }
    }
    return MethodState.NEW;
  }

  /** Stores a finished method's frames so that a repeat of its id gets them again. */
  synchronized void finishMethod(String id, List<ObjectNode> frames) {
    if (!methods.containsKey(id)) {
      return;
    }
    methods.put(id, List.copyOf(frames));
    withResults.addLast(id);
    while (withResults.size() > REMEMBERED_RESULTS) {
      String old = withResults.removeFirst();
      if (methods.containsKey(old) && methods.get(old) != RUNNING) {
        methods.put(old, null);
      }
    }
  }

  /** The stored frames of a finished method, or an empty list. */
  synchronized List<ObjectNode> resultOf(String id) {
    List<ObjectNode> v = methods.get(id);
    return v == null ? List.of() : v;
  }

  @Override
  public String toString() {
    return "Session{" + seq + (user == null ? "" : ", user=" + username()) + "}";
  }
}
