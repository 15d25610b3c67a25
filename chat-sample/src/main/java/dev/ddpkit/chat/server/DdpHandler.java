package dev.ddpkit.chat.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Ticker;
import dev.ddpkit.reconnect.admission.Admission;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DDP side of the server: one instance per running {@link ChatServer}. Frames of one
 * connection arrive on one socket worker thread at a time; {@code sendMessage} answers arrive
 * later from the store's writer thread once the message is durable, right after the writer has
 * broadcast it. Every peer input is validated; nothing a peer sends can throw out of here.
 */
final class DdpHandler {
  private static final Logger log = LoggerFactory.getLogger(DdpHandler.class);

  /** DDP versions we speak, preferred first. */
  static final List<String> VERSIONS = List.of("1", "pre2", "pre1");
  static final String STREAM = "stream-room-messages";
  static final int MAX_PROTOCOL_ERRORS = 20;
  static final int MAX_ID_CHARS = 256;
  /** Frames longer than this are not echoed back in {@code offendingMessage}. */
  static final int MAX_ECHO_CHARS = 16 * 1024;
  static final String LOGGED_OUT = "You've been logged out by the server. Please log in again.";
  /**
   * The one answer to a failed password login, whether the user exists or not: two different
   * texts would tell a guesser which usernames are real (and undo the dummy hash in Secrets).
   */
  static final String BAD_CREDENTIALS = "Incorrect username or password";
  /** Usernames and room ids. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

  /** Whether new connections are served, turned away for a drain, or dropped (killed). */
  enum Mode { OPEN, DRAINING, KILLED }

  private final ChatStore store;
  private final Secrets secrets;
  private final Counters counters;
  /** Null when every connection is accepted (no accept rate). */
  private final Admission admission;
  private final LoginLimiter limiter;
  private final DdpRateLimiter rateLimiter;
  private final ChatMethods chat;
  /** Failed logins per remote address, whatever the connection or username. */
  private final LoginLimiter addressLimiter;
  private final Clock clock;
  private final Duration tokenTtl;
  private final long heartbeatIntervalNanos;
  private final long heartbeatTimeoutNanos;
  private final ConnectionListener listener;
  private final boolean retryAfterHints;
  private final ScheduledExecutorService timer;
  private final Set<Session> sessions = ConcurrentHashMap.newKeySet();
  private final Map<String, Set<Session>> roomSubscribers = new ConcurrentHashMap<>();
  /** Orders "ready" against broadcasts, so a subscriber sees every event after its ready. */
  private final ReentrantLock streamLock = new ReentrantLock();
  private final AtomicLong seq = new AtomicLong();
  private final AtomicBoolean loseNext = new AtomicBoolean();
  private volatile Predicate<JsonNode> loseWhere;
  /** Test hook: {@code loadMissedMessages} answers wait for this, if set. */
  private volatile CompletableFuture<Void> missedGate;
  private volatile Mode mode = Mode.OPEN;
  /** The close reason of a connection turned away while draining. */
  private volatile java.util.function.Supplier<String> drainReason = () -> "service restart";
  private volatile Endpoint endpoint;

  DdpHandler(ChatStore store, Secrets secrets, Counters counters, ChatServer.Builder cfg,
      ScheduledExecutorService timer) {
    this.store = store;
    this.secrets = secrets;
    this.counters = counters;
    // Built with the handler, when the server starts: its bucket is empty then.
    this.admission = cfg.acceptRate == 0 ? null : Admission.builder()
        .capacity(cfg.acceptRate)
        .burst(cfg.acceptBurst == 0 ? cfg.acceptRate : cfg.acceptBurst)
        .appointments(cfg.retryAfterHints)
        .warmUp(cfg.warmUp)
        .ticker(cfg.ticker)
        .build();
    this.limiter = new LoginLimiter(cfg.loginFailures, cfg.loginWindow.toMillis(), 100_000);
    Ticker ticker = cfg.ticker;
    this.rateLimiter = new DdpRateLimiter(cfg.rateLimits, () -> ticker.read() / 1_000_000L);
    this.chat = new ChatMethods(store, counters, cfg.clock);
    this.addressLimiter = new LoginLimiter(
        cfg.addressLoginFailures, cfg.addressLoginWindow.toMillis(), 100_000);
    this.clock = cfg.clock;
    this.tokenTtl = cfg.tokenTtl;
    this.heartbeatIntervalNanos = cfg.heartbeatInterval.toNanos();
    this.heartbeatTimeoutNanos = cfg.heartbeatTimeout.toNanos();
    this.listener = cfg.connectionListener;
    this.retryAfterHints = cfg.retryAfterHints;
    this.timer = timer;
  }

  void attach(Endpoint endpoint) {
    this.endpoint = endpoint;
  }

  void mode(Mode mode, java.util.function.Supplier<String> drainReason) {
    this.drainReason = drainReason;
    this.mode = mode;
  }

  /** The accepted connections open now. */
  List<Session> sessions() {
    return new ArrayList<>(sessions);
  }

  // ------------------------------------------------------------------ socket events

  void opened(WebSocket conn) {
    long now = clock.millis();
    counters.connectionsTotal.incrementAndGet();
    Mode m = mode;
    if (m == Mode.KILLED) {
      dropAbruptly(conn);
      return;
    }
    if (m == Mode.DRAINING) {
      String reason = drainReason.get();
      conn.close(1012, reason);
      long hint = retryAfter(reason);
      notify(() -> listener.rejected(now, 1012, hint));
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
    Session s = new Session(seq.incrementAndGet(), conn, System.nanoTime());
    conn.setAttachment(s);
    sessions.add(s);
    counters.connectionsOpened.incrementAndGet();
    counters.accepted(now);
    ObjectNode hello = Frames.object();
    hello.put("server_id", "0");
    send(s, hello);
    notify(() -> listener.accepted(now));
  }

  /** The {@code retry-after} of a close reason this server made, or 0. */
  static long retryAfter(String reason) {
    int i = reason.lastIndexOf("retry-after=");
    return i < 0 ? 0 : Long.parseLong(reason.substring(i + "retry-after=".length()));
  }

  void closed(WebSocket conn, int code, boolean remote) {
    Session s = conn.getAttachment();
    if (s == null || !sessions.remove(s)) {
      return;
    }
    streamLock.lock();
    try {
      for (String rid : s.subs.values()) {
        Set<Session> set = roomSubscribers.get(rid);
        if (set != null) {
          set.remove(s);
        }
      }
      s.subs.clear();
    } finally {
      streamLock.unlock();
    }
    limiter.forget(connKey(s));
    if (!remote && !s.protocolClose && (code == 1002 || code == 1007 || code == 1009)) {
      counters.protocolErrors.incrementAndGet(); // found by the WebSocket layer (bad/huge frame)
    }
    long now = clock.millis();
    notify(() -> listener.closed(now, code, remote));
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
    s.touch(System.nanoTime());
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
      case "method":
        onMethod(s, m);
        break;
      case "sub":
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
      s.version = version;
      s.ddpSessionId = secrets.newId();
      s.connected = true;
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

  // ------------------------------------------------------------------ methods

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
    switch (s.beginMethod(id)) {
      case RUNNING:
        log.debug("{}: method id {} repeated while running; ignored", s, id);
        return;
      case DONE:
        s.resultOf(id).forEach(f -> send(s, f));
        return;
      case FORGOTTEN:
        answer(s, id, name, null, new MethodError(400, "Method id " + id + " was already used"));
        return;
      case NEW:
        break;
      default:
        throw new AssertionError("Unexpected state");
    }
    ArrayNode p = params == null ? JsonNodeFactory.instance.arrayNode() : (ArrayNode) params;
    ObjectNode user = s.user;
    long wait = rateLimiter.method(name, connKey(s), user == null ? null : Frames.text(user, "_id"));
    if (wait > 0) {
      counters.rateLimited.incrementAndGet();
      answer(s, id, name, null, MethodError.tooManyRequests(wait));
      return;
    }
    CompletableFuture<JsonNode> f;
    try {
      f = invoke(s, name, p);
    } catch (MethodError | RuntimeException e) {
      f = CompletableFuture.failedFuture(e); // a RuntimeException is answered as a 500
    }
    f.whenComplete((r, err) -> answer(s, id, name, r, err));
  }

  private CompletableFuture<JsonNode> invoke(Session s, String name, ArrayNode p)
      throws MethodError {
    if (name.equals("login")) {
      return CompletableFuture.completedFuture(login(s, p));
    }
    if (s.user == null) {
      throw MethodError.notAllowed("Not allowed: log in first");
    }
    switch (name) {
      case "logout":
        logout(s);
        return CompletableFuture.completedFuture(null);
      case "sendMessage":
        return chat.sendMessage(s, p);
      case "loadHistory":
        return CompletableFuture.completedFuture(chat.loadHistory(s, p));
      case "rooms/get":
        return CompletableFuture.completedFuture(chat.roomsGet(s, p));
      case "loadMissedMessages":
        return loadMissedWhenReleased(s, p);
      default:
        throw new MethodError(404, "Method '" + clip(name) + "' not found");
    }
  }

  private void answer(Session s, String id, String name, JsonNode result, Throwable err) {
    ObjectNode res = Frames.frame("result");
    res.put("id", id);
    if (err != null) {
      res.set("error", toMethodError(s, name, err).toJson());
    } else if (result != null) {
      res.set("result", result);
    }
    ObjectNode updated = Frames.frame("updated");
    updated.putArray("methods").add(id);
    s.finishMethod(id, List.of(res, updated));
    if (err == null && name.equals("sendMessage") && loseThisAck(result)) {
      counters.acknowledgementsLost.incrementAndGet();
      log.info("{}: dropping the answer to method {} (test hook)", s, id);
      return;
    }
    send(s, res);
    send(s, updated);
  }

  private MethodError toMethodError(Session s, String name, Throwable err) {
    Throwable c = err;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof MethodError) {
      return (MethodError) c;
    }
    log.warn("{}: method {} failed", s, clip(name), c);
    return new MethodError(500, "Internal server error");
  }

  private boolean loseThisAck(JsonNode storedMessage) {
    Predicate<JsonNode> where = loseWhere;
    if (where != null && storedMessage != null) {
      try {
        if (where.test(storedMessage)) {
          return true;
        }
      } catch (RuntimeException e) {
        log.warn("lost-acknowledgement predicate threw", e);
      }
    }
    return loseNext.compareAndSet(true, false);
  }

  // ------------------------------------------------------------------ login

  private JsonNode login(Session s, ArrayNode p) throws MethodError {
    JsonNode arg = p.get(0);
    if (!(arg instanceof ObjectNode) || p.size() != 1) {
      throw MethodError.invalid("error-invalid-params", "login takes one object");
    }
    long now = clock.millis();
    String token = Frames.text(arg, "resume");
    if (token != null) {
      return resume(s, token, now);
    }
    JsonNode user = arg.get("user");
    JsonNode password = arg.get("password");
    String username = Frames.text(user, "username");
    // Meteor's accounts take a plain-text password from clients that cannot hash it.
    String plain = password != null && password.isTextual() ? password.textValue() : null;
    String digest = plain != null ? Secrets.sha256Hex(plain) : Frames.text(password, "digest");
    String algorithm = Frames.text(password, "algorithm");
    if (username == null || username.length() > 64 || digest == null
        || (algorithm != null && !algorithm.equals("sha-256"))) {
      throw MethodError.invalid("error-invalid-params",
          "login takes {user: {username}, password: {digest, algorithm: \"sha-256\"} or a"
              + " string} or {resume: token}");
    }
    String userKey = "u:" + username;
    refuseIfLimited(now, s, connKey(s), userKey);
    ObjectNode stored = store.reads().user(username);
    boolean ok = Secrets.isDigest(digest)
        && secrets.verify(digest, stored == null ? null : Frames.text(stored, "password"));
    if (!ok) {
      counters.loginsFailed.incrementAndGet();
      recordFailure(now, s, connKey(s), userKey);
      throw new MethodError(403, BAD_CREDENTIALS);
    }
    String newToken = secrets.newToken();
    String key = Secrets.tokenKey(newToken);
    long expires = now + tokenTtl.toMillis();
    ObjectNode record = tokenRecord(stored, now, expires);
    await(store.putToken(key, record));
    becomeUser(s, publicUser(stored), key);
    counters.loginsOk.incrementAndGet();
    return loginResult(stored, newToken, expires, "password");
  }

  private JsonNode resume(Session s, String token, long now) throws MethodError {
    refuseIfLimited(now, s, connKey(s));
    String key = token.length() > 512 ? null : Secrets.tokenKey(token);
    ObjectNode record = key == null ? null : store.reads().token(key);
    long expires = record == null ? 0 : record.path("expires").asLong(0);
    if (record == null || expires <= now) {
      counters.loginsFailed.incrementAndGet();
      recordFailure(now, s, connKey(s));
      if (record != null) {
        store.removeToken(key); // expired: forget it; nobody waits for this write
      }
      throw new MethodError(403, LOGGED_OUT);
    }
    ObjectNode stored = store.reads().user(record.path("username").asText());
    if (stored == null) {
      counters.loginsFailed.incrementAndGet();
      throw new MethodError(403, LOGGED_OUT);
    }
    becomeUser(s, publicUser(stored), key);
    counters.loginsOk.incrementAndGet();
    return loginResult(stored, token, expires, "resume");
  }

  /** Refuses the attempt when the connection's address or any of {@code keys} is limited. */
  private void refuseIfLimited(long now, Session s, String... keys) throws MethodError {
    long wait = addressLimiter.waitMillis(addressKey(s), now);
    for (String k : keys) {
      wait = Math.max(wait, limiter.waitMillis(k, now));
    }
    if (wait > 0) {
      counters.loginsFailed.incrementAndGet();
      long seconds = (wait + 999) / 1000;
      ObjectNode details = Frames.object();
      details.put("timeToReset", wait);
      throw new MethodError("too-many-requests",
          "Too many failed logins; try again in " + seconds + " seconds", details);
    }
  }

  /** Counts a failed login against the connection's address and each of {@code keys}. */
  private void recordFailure(long now, Session s, String... keys) {
    addressLimiter.failed(addressKey(s), now);
    for (String k : keys) {
      limiter.failed(k, now);
    }
  }

  private static ObjectNode tokenRecord(ObjectNode user, long now, long expires) {
    ObjectNode r = Frames.object();
    r.put("userId", Frames.text(user, "_id"));
    r.put("username", Frames.text(user, "username"));
    r.put("created", now);
    r.put("expires", expires);
    return r;
  }

  static ObjectNode publicUser(ObjectNode stored) {
    ObjectNode u = Frames.object();
    u.put("_id", Frames.text(stored, "_id"));
    u.put("username", Frames.text(stored, "username"));
    return u;
  }

  private static ObjectNode loginResult(ObjectNode user, String token, long expires,
      String type) {
    ObjectNode r = Frames.object();
    r.put("id", Frames.text(user, "_id"));
    r.put("token", token);
    r.set("tokenExpires", Frames.date(expires));
    r.put("type", type);
    return r;
  }

  private void becomeUser(Session s, ObjectNode user, String tokenKey) {
    ObjectNode before = s.user;
    if (before != null && !before.equals(user)) {
      dropSubscriptions(s);
    }
    s.user = user;
    s.tokenKey = tokenKey;
  }

  private void logout(Session s) throws MethodError {
    String key = s.tokenKey;
    s.user = null;
    s.tokenKey = null;
    dropSubscriptions(s);
    if (key != null) {
      await(store.removeToken(key));
    }
  }

  private static String connKey(Session s) {
    return "c:" + s.seq;
  }

  /** The remote IP address (no port), so fresh connections from one host share a key. */
  private static String addressKey(Session s) {
    InetSocketAddress remote = s.conn.getRemoteSocketAddress();
    InetAddress ip = remote == null ? null : remote.getAddress();
    return ip == null ? "a:unknown" : "a:" + ip.getHostAddress();
  }

  /** Waits for a store write on a socket thread; writes are group-committed within ms. */
  private static <T> T await(CompletableFuture<T> f) throws MethodError {
    try {
      return f.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MethodError(503, "Server is stopping");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof MethodError) {
        throw (MethodError) e.getCause();
      }
      log.warn("store write failed", e.getCause());
      throw new MethodError(500, "Internal server error");
    } catch (TimeoutException e) {
      throw new MethodError(503, "Storage is too slow, try again");
    }
  }

  // ------------------------------------------------------------------ subscriptions

  private void onSub(Session s, ObjectNode m) {
    String id = Frames.text(m, "id");
    String name = Frames.text(m, "name");
    JsonNode params = m.get("params");
    if (id == null || id.isEmpty() || id.length() > MAX_ID_CHARS || name == null
        || (params != null && !params.isArray())) {
      protocolError(s, "Malformed subscription", m);
      return;
    }
    if (s.subs.containsKey(id)) {
      return; // DDP: a repeated sub id is ignored
    }
    long wait = rateLimiter.subscription(name, connKey(s));
    if (wait > 0) {
      counters.rateLimited.incrementAndGet();
      nosub(s, id, MethodError.tooManyRequests(wait));
      return;
    }
    if (s.user == null) {
      nosub(s, id, new MethodError("not-allowed", "Not allowed"));
      return;
    }
    if (!name.equals(STREAM)) {
      nosub(s, id, new MethodError(404, "Subscription '" + clip(name) + "' not found"));
      return;
    }
    JsonNode ridNode = params == null ? null : params.get(0);
    String rid = ridNode != null && ridNode.isTextual() ? ridNode.textValue() : null;
    if (rid == null || !store.reads().isMember(rid, s.username())) {
      nosub(s, id, new MethodError("not-allowed", "Not allowed"));
      return;
    }
    streamLock.lock();
    try {
      if (!sessions.contains(s)) {
        return; // closed meanwhile
      }
      s.subs.put(id, rid);
      roomSubscribers.computeIfAbsent(rid, r -> ConcurrentHashMap.newKeySet()).add(s);
      ObjectNode ready = Frames.frame("ready");
      ready.putArray("subs").add(id);
      send(s, ready);
    } finally {
      streamLock.unlock();
    }
  }

  private void onUnsub(Session s, ObjectNode m) {
    String id = Frames.text(m, "id");
    if (id == null) {
      protocolError(s, "Malformed unsubscription", m);
      return;
    }
    unsubscribe(s, id);
    ObjectNode nosub = Frames.frame("nosub");
    nosub.put("id", id);
    send(s, nosub);
  }

  private void unsubscribe(Session s, String id) {
    streamLock.lock();
    try {
      String rid = s.subs.remove(id);
      if (rid != null && !s.subs.containsValue(rid)) {
        Set<Session> set = roomSubscribers.get(rid);
        if (set != null) {
          set.remove(s);
        }
      }
    } finally {
      streamLock.unlock();
    }
  }

  private void dropSubscriptions(Session s) {
    for (String id : new ArrayList<>(s.subs.keySet())) {
      unsubscribe(s, id);
      ObjectNode nosub = Frames.frame("nosub");
      nosub.put("id", id);
      send(s, nosub);
    }
  }

  private void nosub(Session s, String id, MethodError error) {
    ObjectNode nosub = Frames.frame("nosub");
    nosub.put("id", id);
    nosub.set("error", error.toJson());
    send(s, nosub);
  }

  /** Sends durable messages to their rooms' subscribers; called by the store's writer. */
  void broadcast(List<ObjectNode> messages) {
    counters.messagesStored.addAndGet(messages.size());
    Endpoint ep = endpoint;
    for (ObjectNode msg : messages) {
      String rid = msg.path("rid").asText();
      ObjectNode changed = Frames.frame("changed");
      changed.put("collection", STREAM);
      changed.put("id", "id");
      ObjectNode fields = changed.putObject("fields");
      fields.put("eventName", rid);
      fields.putArray("args").add(msg);
      String text = Frames.write(changed);
      streamLock.lock();
      try {
        Set<Session> subs = roomSubscribers.get(rid);
        if (subs != null && !subs.isEmpty() && ep != null) {
          List<WebSocket> conns = new ArrayList<>(subs.size());
          subs.forEach(x -> conns.add(x.conn));
          ep.broadcast(text, conns);
        }
      } finally {
        streamLock.unlock();
      }
    }
  }

  /** Active subscriptions per room. */
  Map<String, Integer> subscriptionsByRoom() {
    Map<String, Integer> out = new HashMap<>();
    for (Session s : sessions) {
      for (String rid : s.subs.values()) {
        out.merge(rid, 1, Integer::sum);
      }
    }
    return out;
  }

  int authenticatedSessions() {
    int n = 0;
    for (Session s : sessions) {
      if (s.user != null) {
        n++;
      }
    }
    return n;
  }

  int currentConnections() {
    return sessions.size();
  }

  // ------------------------------------------------------------------ hooks

  void loseNextAcknowledgement(boolean lose) {
    loseNext.set(lose);
  }

  void loseAcknowledgementsWhere(Predicate<JsonNode> where) {
    loseWhere = where;
  }

  void holdMissedMessages(CompletableFuture<Void> gate) {
    missedGate = gate;
  }

  /**
   * {@code loadMissedMessages}, answered once the test hook's gate opens (at once if none): read
   * then, on the thread that opened it; refused with {@code error-test-hook} if the gate failed.
   */
  private CompletableFuture<JsonNode> loadMissedWhenReleased(Session s, ArrayNode p)
      throws MethodError {
    CompletableFuture<Void> gate = missedGate;
    if (gate == null) {
      return CompletableFuture.completedFuture(chat.loadMissed(s, p));
    }
    log.info("{}: holding a loadMissedMessages answer (test hook)", s);
    return gate.handle((v, e) -> {
      try {
        if (e != null) {
          throw new MethodError("error-test-hook", "catch-up refused by the test hook");
        }
        return chat.loadMissed(s, p);
      } catch (MethodError m) {
        throw new CompletionException(m);
      }
    });
  }

  // ------------------------------------------------------------------ heartbeat and closing

  /** Sends pings to quiet connections and closes those that did not answer in time. */
  void heartbeat() {
    long now = System.nanoTime();
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
        send(s, Frames.frame("ping"));
      }
    } else if (s.lastInboundNanos < ping && now - ping >= heartbeatTimeoutNanos) {
      counters.heartbeatTimeouts.incrementAndGet();
      log.debug("{}: heartbeat timeout", s);
      closeGracefully(s, 1000, "heartbeat timeout");
    }
  }

  /**
   * Closes with a close frame; if the peer is gone and the close cannot complete, drops the TCP
   * connection after a grace period so a dead socket does not linger.
   */
  void closeGracefully(Session s, int code, String reason) {
    s.conn.close(code, reason);
    try {
      timer.schedule(() -> {
        if (!s.conn.isClosed()) {
          dropAbruptly(s.conn);
        }
      }, CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // shutting down: the server's stop closes what is left
    }
  }

  /** Drops a connection at the TCP level: no close frame, a reset instead of a FIN. */
  static void dropAbruptly(WebSocket conn) {
    if (conn instanceof WebSocketImpl) {
      WebSocketImpl impl = (WebSocketImpl) conn;
      ByteChannel ch = impl.getChannel();
      if (ch instanceof SocketChannel) {
        try {
          ((SocketChannel) ch).socket().setSoLinger(true, 0);
        } catch (IOException | RuntimeException e) {
          log.debug("could not set SO_LINGER before a drop", e);
        }
      }
      impl.closeConnection(1006, "dropped by the server");
    } else {
      conn.closeConnection(1006, "dropped by the server");
    }
  }

  private void send(Session s, ObjectNode frame) {
    try {
      s.conn.send(Frames.write(frame));
    } catch (WebsocketNotConnectedException e) {
      log.trace("{}: not connected, frame dropped", s);
    }
  }

  private void notify(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn("connection listener threw", e);
    }
  }

  private static String clip(String s) {
    return s.length() <= 100 ? s : s.substring(0, 100) + "...";
  }
}
