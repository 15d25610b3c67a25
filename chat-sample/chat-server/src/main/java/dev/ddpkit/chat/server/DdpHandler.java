package dev.ddpkit.chat.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.java_websocket.WebSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DDP side of the server: one instance per running {@link ChatServer}. Frames of one
 * connection arrive on one thread at a time (its socket worker, or the selector for a first read
 * that is the whole upgrade or a lone {@code connect}: see {@link SelectorDecodes}); {@code
 * sendMessage} answers arrive
 * later from the store's writer thread once the message is durable, right after the writer has
 * broadcast it. Every peer input is validated; nothing a peer sends can throw out of here.
 *
 * <p>This class takes the socket events (what becomes of a new one is {@link Arrivals}'), and checks each DDP
 * frame's shape; what a well-formed frame asks for is done by {@link MethodCalls} (with {@link
 * Logins}), {@link Subscriptions} and {@link Liveness}.
 */
final class DdpHandler {
  private static final Logger log = LoggerFactory.getLogger(DdpHandler.class);

  /** DDP versions we speak, preferred first. */
  static final List<String> VERSIONS = List.of("1", "pre2", "pre1");
  static final int MAX_PROTOCOL_ERRORS = 20;
  static final int MAX_ID_CHARS = 256;
  /** Frames longer than this are not echoed back in {@code offendingMessage}. */
  static final int MAX_ECHO_CHARS = 16 * 1024;
  /** Usernames and room ids. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private final Secrets secrets;
  private final Counters counters;
  private final Subscriptions subscriptions;
  private final Logins logins;
  private final MethodCalls methods;
  private final Liveness liveness;
  private final SendQueues sendQueues;
  private final Set<Session> sessions = ConcurrentHashMap.newKeySet();
  private final Arrivals arrivals;
  private final HeldSessions held;
  private final Ticker ticker;
  /** The socket server, once attached (null in tests that drive the handler without one). */
  private volatile Endpoint endpoint;

  DdpHandler(ChatStore store, Secrets secrets, Counters counters, ServerConfig cfg,
      Scheduler scheduler) {
    this.secrets = secrets;
    this.counters = counters;
    Ticker ticker = cfg.ticker;
    DdpRateLimiter rateLimiter =
        new DdpRateLimiter(cfg.rateLimits, () -> ticker.read() / 1_000_000L);
    this.subscriptions = new Subscriptions(store, counters, rateLimiter, sessions);
    this.logins = new Logins(store, secrets, counters, cfg, subscriptions);
    ChatMethods chat = new ChatMethods(store, counters, cfg.clock);
    this.methods = new MethodCalls(logins, chat, new MessageEdits(store), new MessagesGet(store),
        cfg.compatibility, rateLimiter, counters, cfg.faults);
    this.liveness = new Liveness(sessions, counters, cfg, scheduler);
    this.sendQueues = new SendQueues(counters, cfg.maxSendQueueBytes);
    // Built with the handler, when the server starts: the admission's bucket is empty then.
    this.arrivals = new Arrivals(cfg, counters, sessions, scheduler, this::handle);
    this.held = new HeldSessions(cfg.sessionGrace, cfg.sessionQueueLimit, scheduler, counters,
        this::destroy);
    this.ticker = ticker;
  }

  void attach(Endpoint endpoint) {
    this.endpoint = endpoint;
    subscriptions.attach(endpoint);
  }

  /** Sets what becomes of new connections ({@link Arrivals#mode}); past OPEN no session is held. */
  void mode(Arrivals.Mode mode, java.util.function.Supplier<String> drainReason) {
    arrivals.mode(mode, drainReason);
    if (mode != Arrivals.Mode.OPEN) {
      held.expireAll(); // a drain or kill ends every session for good
    }
  }

  /** The accepted connections open now. */
  List<Session> sessions() {
    return new ArrayList<>(sessions);
  }

  // ------------------------------------------------------------------ socket events

  /** Counts a WebSocket the endpoint closed at once for its address's socket cap. */
  void refusedOverAddressCap() {
    counters.socketsRefusedPerAddress.incrementAndGet();
  }

  void opened(WebSocket conn) {
    arrivals.opened(conn);
  }

  void closed(WebSocket conn, int code, boolean remote) {
    Session s = conn.getAttachment();
    if (s != null && s.hold != null) {
      s.hold.closed();
    }
    if (s == null || !sessions.remove(s)) {
      return;
    }
    if (!(resumable(s, code, remote, arrivals.mode()) && held.hold(s))) {
      destroy(s);
    }
    if (!remote && !s.protocolClose && (code == 1002 || code == 1007 || code == 1009)) {
      counters.protocolErrors.incrementAndGet(); // found by the WebSocket layer (bad/huge frame)
    }
    arrivals.closed(code, remote);
  }

  /**
   * Whether a session whose socket closed may be resumed: it said {@code connected}, did not say
   * {@code disconnect} or log out, and the close was a drop (the peer's close, a dead socket, a
   * heartbeat timeout), not one the server made (a drain, a protocol error, a policy close).
   */
  static boolean resumable(Session s, int code, boolean remote, Arrivals.Mode mode) {
    if (!s.connected || !s.resumable || s.protocolClose || mode != Arrivals.Mode.OPEN) {
      return false;
    }
    if (s.heartbeatDead) {
      return true;
    }
    // A reset reports 1006 as a local close; a close frame the server sent reports its own code.
    return !s.serverClosed && (remote || code == 1006);
  }

  /** Ends a session for good: its subscriptions and its login go. */
  private void destroy(Session s) {
    subscriptions.closed(s);
    logins.closed(s);
  }

  void binary(WebSocket conn) {
    Session s = conn.getAttachment();
    if (s != null) {
      fatal(s, "Binary frames are not part of DDP", null, 1003);
    }
  }

  void text(WebSocket conn, String text) {
    Session s = conn.getAttachment();
    if (s == null) {
      return; // a connection we turned away; its close is under way
    }
    Hold.Offer offer = s.hold == null ? Hold.Offer.HANDLE : s.hold.offer(text);
    if (offer == Hold.Offer.HANDLE) {
      handle(s, text);
    } else if (offer == Hold.Offer.OVERFLOW) {
      counters.protocolErrors.incrementAndGet();
      conn.close(1008, "too many frames before the connection was served");
    }
  }

  private void handle(Session s, String text) {
    try {
      onText(s, text);
    } catch (RuntimeException e) {
      log.error("internal error on {}; closing it with 1011", s, e);
      counters.protocolErrors.incrementAndGet();
      closeGracefully(s, 1011, "internal error");
    }
  }

  // ------------------------------------------------------------------ DDP framing

  private void onText(Session s, String text) {
    counters.framesIn.incrementAndGet();
    s.touch(ticker.read());
    s.echoOffending = text.length() <= MAX_ECHO_CHARS;
    JsonNode n;
    try {
      n = Frames.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      fatal(s, "Parse error: not JSON", null, 1002);
      return;
    }
    if (!(n instanceof ObjectNode)) {
      fatal(s, "Bad request: a DDP message is a JSON object", n, 1002);
      return;
    }
    ObjectNode m = (ObjectNode) n;
    String type = Frames.text(m, "msg");
    if (type == null) {
      protocolError(s, "Bad request: no msg", m);
      return;
    }
    if (type.equals("connect")) {
      onConnect(s, m);
      return;
    }
    if (!s.connected) {
      protocolError(s, "Must connect first", m);
      return;
    }
    switch (type) {
      case "ping":
        ObjectNode pong = Frames.frame("pong");
        if (m.has("id")) {
          pong.set("id", m.get("id"));
        }
        send(s, pong);
        break;
      case "pong":
        break;
      case "disconnect":
        s.resumable = false; // the client is leaving on purpose; its close follows
        break;
      case "method":
        counters.methodCalls.incrementAndGet();
        onMethod(s, m);
        break;
      case "sub":
        counters.subscriptionRequests.incrementAndGet();
        onSub(s, m);
        break;
      case "unsub":
        onUnsub(s, m);
        break;
      default:
        protocolError(s, "Bad request: unknown msg", m);
    }
  }

  private void onConnect(Session s, ObjectNode m) {
    if (s.connected) {
      protocolError(s, "Already connected", m);
      return;
    }
    String version = Frames.text(m, "version");
    List<String> support = new ArrayList<>();
    JsonNode sup = m.get("support");
    // Meteor insists on "support"; we accept its absence as "support": [version].
    boolean wellFormed = version != null && (sup == null || sup.isArray());
    if (wellFormed && sup == null) {
      support.add(version);
    } else if (wellFormed) {
      for (JsonNode v : sup) {
        if (!v.isTextual()) {
          wellFormed = false;
          break;
        }
        support.add(v.textValue());
      }
    }
    if (wellFormed && support.contains(version) && VERSIONS.contains(version)) {
      if (resume(s, m, version)) {
        return;
      }
      s.version = version;
      s.ddpSessionId = secrets.newId();
      s.connected = true;
      s.resumable = true;
      ObjectNode ok = Frames.frame("connected");
      ok.put("session", s.ddpSessionId);
      send(s, ok);
      return;
    }
    String proposal = support.stream().filter(VERSIONS::contains).findFirst()
        .orElse(VERSIONS.get(0));
    ObjectNode failed = Frames.frame("failed");
    failed.put("version", proposal);
    send(s, failed);
    closeGracefully(s, 1000, "unsupported DDP version");
  }

  /**
   * A {@code connect} naming a held session and the count of frames its client received: resumes
   * it on this connection if the count is what the server wrote. The session's state (user,
   * subscriptions, method book, the frames queued meanwhile) moves to this connection's session
   * object ({@link Session#resumeOn}), and its later frames are forwarded here. A wrong count
   * ends the held session: the client gets a new one, never a state it did not follow. Returns
   * whether it resumed.
   */
  private boolean resume(Session s, ObjectNode m, String version) {
    String id = Frames.text(m, "session");
    JsonNode count = m.get("receivedCount");
    if (id == null || count == null || !count.canConvertToLong()) {
      return false;
    }
    Session old = held.claim(id);
    if (old == null) {
      return false;
    }
    ObjectNode ok = Frames.frame("connected");
    ok.put("session", old.ddpSessionId);
    if (!version.equals(old.version)) {
      return refuseResume(s, old);
    }
    // Set before the first frame goes out: the socket may drop at once, and its close must find
    // a connected, resumable session. Undone if the count does not match.
    s.version = version;
    s.ddpSessionId = old.ddpSessionId;
    s.user = old.user;
    s.tokenKey = old.tokenKey;
    s.connected = true;
    s.resumable = true;
    if (!old.resumeOn(s, count.longValue(), Frames.write(ok))) {
      s.connected = false;
      s.ddpSessionId = null;
      s.user = null;
      s.tokenKey = null;
      return refuseResume(s, old);
    }
    // The method book and the streams came with the resume, only once the count matched: a
    // wrong count never sees any of them.
    logins.closed(old);
    counters.sessionsResumed.incrementAndGet();
    log.debug("{}: session resumed", s);
    return true;
  }

  /** A resume refused: the held session ends; the caller begins a new one. */
  private boolean refuseResume(Session s, Session old) {
    counters.sessionsExpired.incrementAndGet();
    destroy(old);
    log.debug("{}: a resume with a count or version that does not match; a new session", s);
    return false;
  }

  private void protocolError(Session s, String reason, JsonNode offending) {
    counters.protocolErrors.incrementAndGet();
    sendError(s, reason, offending);
    if (++s.protocolErrors > MAX_PROTOCOL_ERRORS) {
      s.protocolClose = true;
      closeGracefully(s, 1002, "too many protocol errors");
    }
  }

  /** A frame we cannot use at all: say why, then close with {@code code}. */
  private void fatal(Session s, String reason, JsonNode offending, int code) {
    counters.protocolErrors.incrementAndGet();
    sendError(s, reason, offending);
    s.protocolClose = true;
    closeGracefully(s, code, reason);
  }

  private void sendError(Session s, String reason, JsonNode offending) {
    ObjectNode e = Frames.frame("error");
    e.put("reason", reason);
    if (offending != null && s.echoOffending) {
      e.set("offendingMessage", offending);
      try {
        Frames.write(e);
      } catch (java.io.UncheckedIOException tooDeep) {
        // Nested just under the parser's depth limit, one level more is over the writer's: say
        // what was wrong without the echo, rather than failing the connection with 1011.
        e.remove("offendingMessage");
      }
    }
    send(s, e);
  }

  // ------------------------------------------------------------------ methods and subscriptions

  private void onMethod(Session s, ObjectNode m) {
    String id = Frames.text(m, "id");
    String name = Frames.text(m, "method");
    JsonNode params = m.get("params");
    JsonNode seed = m.get("randomSeed");
    if (id == null || id.isEmpty() || id.length() > MAX_ID_CHARS || name == null
        || (params != null && !params.isArray()) || (seed != null && !seed.isTextual())) {
      protocolError(s, "Malformed method invocation", m);
      return;
    }
    methods.call(s, id, name, params);
  }

  private void onSub(Session s, ObjectNode m) {
    String id = Frames.text(m, "id");
    String name = Frames.text(m, "name");
    JsonNode params = m.get("params");
    if (id == null || id.isEmpty() || id.length() > MAX_ID_CHARS || name == null
        || (params != null && !params.isArray())) {
      protocolError(s, "Malformed subscription", m);
      return;
    }
    subscriptions.subscribe(s, id, name, params);
  }

  private void onUnsub(Session s, ObjectNode m) {
    String id = Frames.text(m, "id");
    if (id == null) {
      protocolError(s, "Malformed unsubscription", m);
      return;
    }
    subscriptions.unsubscribeAndConfirm(s, id);
  }

  /** Sends durable messages to their rooms' subscribers; called by the store's writer. */
  void broadcast(List<ObjectNode> messages) {
    subscriptions.broadcast(messages);
  }

  /** Sends durable edits and deletions to their rooms' subscribers; called by the store's writer. */
  void broadcastChanges(List<ChatStore.Change> changes) {
    subscriptions.broadcastChanges(changes);
  }

  /** Entries in a room's subscriber set, held sessions' included (for tests). */
  int subscriberEntries(String rid) {
    return subscriptions.subscriberEntries(rid);
  }

  /** Active subscriptions per room. */
  Map<String, Integer> subscriptionsByRoom() {
    return subscriptions.subscriptionsByRoom();
  }

  /** Open connections with a logged-in user now. */
  int authenticatedSessions() {
    int n = 0;
    for (Session s : sessions) {
      if (s.user != null) {
        n++;
      }
    }
    return n;
  }

  /** Sessions held now for a resume. */
  int heldSessions() {
    return held.size();
  }

  /** Accepted connections open now. */
  int currentConnections() {
    return sessions.size();
  }

  // ------------------------------------------------------------------ heartbeat and closing

  /**
   * Drops the sockets whose send queue is over the limit (see {@link SendQueues}): of those with
   * bytes queued at all, which the endpoint knows.
   */
  void dropSlowReaders() {
    Endpoint ep = endpoint;
    if (ep != null) {
      sendQueues.dropSlowReaders(ep.queuedConnections());
    }
  }

  void heartbeat() {
    liveness.heartbeat();
  }

  /** Starts the heartbeat on the scheduler, every {@link Liveness#tick}. */
  void startHeartbeat() {
    liveness.start();
  }

  /** See {@link Liveness#closeGracefully}. */
  void closeGracefully(Session s, int code, String reason) {
    liveness.closeGracefully(s, code, reason);
  }

  /**
   * Sends one frame; one for a connection already closed is dropped. A frame with a {@code msg}
   * but ping and pong is counted for session resumption; while the session is held it is queued.
   */
  static void send(Session s, ObjectNode frame) {
    String type = Frames.text(frame, "msg");
    boolean counted = type != null && !type.equals("ping") && !type.equals("pong");
    if (s.write(Frames.write(frame), counted) == Session.Write.OVERFLOW) {
      s.overflowed(); // one for a connection already closed is dropped by the write
    }
  }

  /** A peer's name, cut to 100 characters for an error text or a log line. */
  static String clip(String s) {
    return s.length() <= 100 ? s : s.substring(0, 100) + "...";
  }
}
