package dev.ddpkit.ddp.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketAdapter;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.WebSocketServerFactory;
import org.java_websocket.drafts.Draft;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.framing.Framedata;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.handshake.ServerHandshakeBuilder;
import org.java_websocket.server.WebSocketServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scripted DDP server on loopback for real-socket tests. It speaks enough DDP: {@code connect} /
 * {@code connected} (a new session each time) or {@code failed} on a version it would not speak,
 * {@code ping} / {@code pong}, {@code method} through a {@link MethodHandler}, {@code sub} / {@code
 * unsub} through a {@link Publication}, and {@code error} for bad client frames. It records every
 * frame it receives, and has hooks to misbehave: drop connections with a code, drop them with no
 * close frame, turn into a blackhole (a half-open socket seen from the client), refuse handshakes,
 * go down and come back on the same port, send garbage.
 *
 * <p>Protocol work runs on one named worker thread ({@code ddp-testserver-N-worker}), so frames
 * are handled in arrival order; the test hooks may be called from any thread except that one (for
 * the life-cycle methods). {@link #stop()} ends every thread it started.
 */
public final class TestDdpServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TestDdpServer.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final AtomicInteger SERVERS = new AtomicInteger();
  private static final long STOP_TIMEOUT_MILLIS = 10_000;
  private static final int RECORDER_CAPACITY = 10_000;

  private final String name;
  private final List<String> versions;
  private final boolean sendServerId;
  private final BlockingQueue<ReceivedFrame> received = new ArrayBlockingQueue<>(RECORDER_CAPACITY);
  private final Map<Counter, AtomicLong> counters = new EnumMap<>(Counter.class);
  private final Map<WebSocket, TestConnection> connections = new ConcurrentHashMap<>();
  private final Map<String, MethodHandler> methods = new ConcurrentHashMap<>();
  private final Map<String, Publication> publications = new ConcurrentHashMap<>();
  private final AtomicInteger connectionIds = new AtomicInteger();
  private final AtomicInteger sessionIds = new AtomicInteger();
  private volatile MethodHandler fallbackMethod = TestDdpServer::methodNotFound;
  private volatile boolean blackholed;
  private volatile boolean refusing;

  private final Object lifecycle = new Object();
  // Guarded by lifecycle.
  private Inner inner;
  private int port;
  private boolean stopped;

  private TestDdpServer(Builder b) {
    this.name = b.name != null ? b.name : "ddp-testserver-" + SERVERS.incrementAndGet();
    this.versions = List.copyOf(b.versions);
    this.sendServerId = b.sendServerId;
    for (Counter c : Counter.values()) {
      counters.put(c, new AtomicLong());
    }
  }

  /** Starts a server with the defaults on a free loopback port. */
  public static TestDdpServer start() {
    return builder().start();
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  // ---- addresses and state ----

  /** Returns the name, the prefix of every thread the server runs. */
  public String name() {
    return name;
  }

  /** Returns the port (the same across {@link #restart()}). */
  public int port() {
    synchronized (lifecycle) {
      return port;
    }
  }

  /** Returns the DDP WebSocket URL, {@code ws://127.0.0.1:PORT/websocket}. */
  public URI uri() {
    return URI.create("ws://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port()
        + "/websocket");
  }

  /** Returns the open connections, oldest first. */
  public List<TestConnection> connections() {
    List<TestConnection> list = new ArrayList<>(connections.values());
    list.removeIf(c -> !c.isOpen());
    list.sort((a, b) -> Integer.compare(a.id(), b.id()));
    return list;
  }

  /** Returns the number of open connections. */
  public int openConnections() {
    return connections().size();
  }

  /** Returns the live subscriptions of every open connection. */
  public List<ServerSubscription> subscriptions() {
    List<ServerSubscription> list = new ArrayList<>();
    for (TestConnection c : connections()) {
      list.addAll(c.liveSubscriptions().values());
    }
    return list;
  }

  /** Returns a counter. */
  public long count(Counter counter) {
    return counters.get(counter).get();
  }

  // ---- behaviour ----

  /** Answers calls of {@code method} with {@code handler}. */
  public TestDdpServer onMethod(String method, MethodHandler handler) {
    Objects.requireNonNull(handler, "handler");
    methods.put(Objects.requireNonNull(method, "method"), handler);
    return this;
  }

  /**
   * Answers calls of {@code method} with the value of {@code function} applied to the params; a
   * {@link DdpServerError} it throws becomes an error result.
   */
  public TestDdpServer onMethodReturn(String method, Function<ArrayNode, JsonNode> function) {
    Objects.requireNonNull(function, "function");
    return onMethod(method, call -> call.reply(function.apply(call.params())));
  }

  /** Answers calls of methods with no handler of their own (default: 404 "method not found"). */
  public TestDdpServer fallbackMethod(MethodHandler handler) {
    this.fallbackMethod = Objects.requireNonNull(handler, "handler");
    return this;
  }

  /** Serves the publication {@code name}; unknown publications get a {@code nosub} with a 404. */
  public TestDdpServer publish(String name, Publication publication) {
    publications.put(
        Objects.requireNonNull(name, "name"), Objects.requireNonNull(publication, "publication"));
    return this;
  }

  /**
   * Turns the blackhole on or off. While on, the server reads and throws away everything it
   * receives and sends nothing, with every socket left open: a half-open connection as the client
   * sees it. New connections hang in the handshake. Bytes dropped while on can leave a connection
   * cut mid-frame: after turning it off, expect old connections to fail.
   */
  public void blackhole(boolean on) {
    blackholed = on;
  }

  /** While on, WebSocket handshakes are rejected (HTTP 404); open connections are kept. */
  public void refuse(boolean on) {
    refusing = on;
  }

  // ---- sending and dropping ----

  /** Sends a raw text frame to every open connection; returns how many it went to. */
  public int send(String frame) {
    int n = 0;
    for (TestConnection c : connections()) {
      if (c.send(frame)) {
        n++;
      }
    }
    return n;
  }

  /** Sends a JSON message to every open connection; returns how many it went to. */
  public int send(JsonNode message) {
    return send(message.toString());
  }

  /** Sends a raw text frame to one connection; returns {@code false} if it is not open. */
  public boolean send(int connectionId, String frame) {
    for (TestConnection c : connections()) {
      if (c.id() == connectionId) {
        return c.send(frame);
      }
    }
    return false;
  }

  /** Sends a bad frame of the given kind to every open connection. */
  public void sendGarbage(Garbage kind) {
    switch (kind) {
      case NOT_JSON -> send("{\"msg\": \"added\", oops");
      case NOT_AN_OBJECT -> send(NODES.arrayNode().add(1).add(2).add(3));
      case NO_MSG -> send(NODES.objectNode().put("hello", "world"));
      case UNKNOWN_MSG -> send(message("no-such-message").put("id", "1"));
      case WRONG_TYPES -> {
        ObjectNode msg = message("added").put("collection", 42).put("id", 7);
        msg.put("fields", "not an object");
        send(msg);
      }
      case UNKNOWN_METHOD_ID -> send(message("result").put("id", "no-such-call").put("result", 1));
      case BINARY_FRAME -> {
        for (TestConnection c : connections()) {
          sendBinary(c, new byte[] {0, 1, 2, (byte) 0xff});
        }
      }
      case HUGE_FRAME -> {
        ObjectNode msg = message("added").put("collection", "huge").put("id", "huge-1");
        msg.putObject("fields").put("blob", "x".repeat(2 * 1024 * 1024));
        send(msg);
      }
      default -> throw new AssertionError("Unexpected garbage: " + kind);
    }
  }

  /**
   * Sends raw WebSocket frames to every open connection, in order: a message in fragments, or a
   * text frame whose bytes are not UTF-8, which {@link #send(String)} cannot make.
   */
  public void sendFrames(Framedata... frames) {
    for (TestConnection c : connections()) {
      for (Framedata f : frames) {
        c.socket().sendFrame(f);
      }
    }
  }

  /** Closes every open connection with a close frame ({@code code} 1006: with none). */
  public void dropAll(int code, String reason) {
    for (TestConnection c : connections()) {
      c.close(code, reason);
    }
  }

  /** Drops every open connection with no close frame; the server keeps listening. */
  public void closeAbruptly() {
    for (TestConnection c : connections()) {
      c.closeAbruptly();
    }
  }

  // ---- recorder ----

  /** Returns the next received frame, waiting up to {@code timeout}, or {@code null}. */
  public ReceivedFrame pollFrame(Duration timeout) {
    try {
      return received.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for a frame", e);
    }
  }

  /** Returns the next received frame, or fails if none arrives within {@code timeout}. */
  public ReceivedFrame takeFrame(Duration timeout) {
    ReceivedFrame frame = pollFrame(timeout);
    if (frame == null) {
      throw new AssertionError("no frame received within " + timeout);
    }
    return frame;
  }

  /**
   * Returns the next received frame that matches, discarding the frames before it, or fails if
   * none arrives within {@code timeout}.
   */
  public ReceivedFrame awaitFrame(Predicate<ReceivedFrame> matcher, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      ReceivedFrame frame = pollFrame(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      if (frame == null) {
        throw new AssertionError("no matching frame received within " + timeout);
      }
      if (matcher.test(frame)) {
        return frame;
      }
    }
  }

  /** Returns the next frame whose {@code msg} is {@code msg}, discarding others before it. */
  public ReceivedFrame awaitMessage(String msg, Duration timeout) {
    return awaitFrame(f -> f.msg().equals(msg), timeout);
  }

  /** Removes and returns every frame recorded so far. */
  public List<ReceivedFrame> drainFrames() {
    List<ReceivedFrame> list = new ArrayList<>();
    received.drainTo(list);
    return list;
  }

  // ---- life cycle ----

  /**
   * Goes down hard: every connection dropped with no close frame, the listening socket closed (new
   * dials are refused). {@link #up()} brings it back on the same port.
   */
  public void down() {
    Inner current;
    synchronized (lifecycle) {
      checkNotOwnThread();
      current = inner;
      inner = null;
    }
    if (current != null) {
      current.stopAccepting();
      current.abortConnections();
      current.shutDown();
    }
  }

  /** Listens again on the same port after {@link #down()}; does nothing if it is up. */
  public void up() {
    synchronized (lifecycle) {
      checkNotOwnThread();
      if (stopped) {
        throw new IllegalStateException(name + " is stopped");
      }
      if (inner != null) {
        return;
      }
      inner = startInner(port);
    }
  }

  /** {@link #down()} then {@link #up()}: a crash and restart on the same port. */
  public void restart() {
    down();
    up();
  }

  /**
   * Stops for good: every connection closed with 1001 (those that do not answer are dropped), the
   * port released, every thread of the server ended. Idempotent.
   */
  public void stop() {
    Inner current;
    synchronized (lifecycle) {
      checkNotOwnThread();
      stopped = true;
      current = inner;
      inner = null;
    }
    if (current != null) {
      current.stopAccepting();
      current.shutDown();
    }
  }

  /** Same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return "TestDdpServer{" + name + " port=" + port() + "}";
  }

  private Inner startInner(int onPort) {
    Inner server = new Inner(onPort);
    server.launch();
    port = server.boundPort;
    counters.get(Counter.STARTS).incrementAndGet();
    log.debug("{}: listening on {}", name, port);
    return server;
  }

  private void checkNotOwnThread() {
    if (Thread.currentThread().getName().startsWith(name + "-")) {
      throw new IllegalStateException("life-cycle methods must not run on the server's threads");
    }
  }

  // ---- protocol (on the worker thread) ----

  private void onOpen(WebSocket socket) {
    TestConnection c = new TestConnection(this, socket, connectionIds.incrementAndGet());
    connections.put(socket, c);
    counters.get(Counter.OPENED).incrementAndGet();
    if (sendServerId) {
      // Meteor greets with a message that has no msg field; clients must ignore it.
      c.send(NODES.objectNode().put("server_id", "0"));
    }
  }

  private void onClose(WebSocket socket, int code, String reason) {
    TestConnection c = connections.remove(socket);
    if (c != null) {
      counters.get(Counter.CLOSED).incrementAndGet();
      c.liveSubscriptions().values().forEach(ServerSubscription::stop);
      log.debug("{}: connection {} closed {} {}", name, c.id(), code, reason);
    }
  }

  private void onText(WebSocket socket, String text) {
    TestConnection c = connections.get(socket);
    if (c == null || blackholed) {
      return;
    }
    JsonNode json = parse(text);
    record(new ReceivedFrame(c.id(), text, json));
    if (json.isMissingNode()) {
      sendError(c, "Parse error", null);
      return;
    }
    if (!json.isObject() || !json.path("msg").isTextual()) {
      sendError(c, "Bad request", json);
      return;
    }
    String msg = json.get("msg").textValue();
    if (c.session() == null) {
      if (msg.equals("connect")) {
        handleConnect(c, json);
      } else {
        sendError(c, "Must connect first", json);
      }
      return;
    }
    switch (msg) {
      case "ping" -> {
        ObjectNode pong = message("pong");
        if (json.has("id")) {
          pong.set("id", json.get("id"));
        }
        // Counted first: a client that has the pong may read the counter at once.
        counters.get(Counter.PINGS_ANSWERED).incrementAndGet();
        c.send(pong);
      }
      case "pong" -> {
        // Answers to pings a test sent; recorded above, nothing else to do.
      }
      case "method" -> handleMethod(c, json);
      case "sub" -> handleSub(c, json);
      case "unsub" -> handleUnsub(c, json);
      case "connect" -> sendError(c, "Already connected", json);
      default -> sendError(c, "Bad request", json);
    }
  }

  private void handleConnect(TestConnection c, JsonNode json) {
    String version = json.path("version").asText("");
    List<String> support = new ArrayList<>();
    json.path("support").forEach(v -> support.add(v.asText("")));
    if (support.isEmpty()) {
      support.add(version);
    }
    String best = support.stream().filter(versions::contains).findFirst().orElse(versions.get(0));
    if (!version.equals(best)) {
      counters.get(Counter.VERSION_FAILED).incrementAndGet();
      c.send(message("failed").put("version", best));
      c.socket().close(CloseFrame.NORMAL, "DDP version negotiation failed");
      return;
    }
    String session = "session-" + sessionIds.incrementAndGet();
    c.session(session);
    counters.get(Counter.SESSIONS).incrementAndGet();
    c.send(message("connected").put("session", session));
  }

  private void handleMethod(TestConnection c, JsonNode json) {
    counters.get(Counter.METHODS).incrementAndGet();
    ArrayNode params = wellFormedParams(json, "method");
    if (params == null) {
      sendError(c, "Malformed method invocation", json);
      return;
    }
    MethodCall call =
        new MethodCall(
            c,
            json.get("id").textValue(),
            json.get("method").textValue(),
            params,
            json.path("randomSeed"));
    MethodHandler handler = methods.getOrDefault(call.method(), fallbackMethod);
    try {
      handler.handle(call);
    } catch (DdpServerError e) {
      call.replyError(e.error(), e.reason());
    } catch (RuntimeException e) {
      log.warn("{}: method {} failed", name, call.method(), e);
      call.replyError("500", "Internal server error");
    }
  }

  private void handleSub(TestConnection c, JsonNode json) {
    counters.get(Counter.SUBS).incrementAndGet();
    ArrayNode params = wellFormedParams(json, "name");
    if (params == null) {
      sendError(c, "Malformed subscription", json);
      return;
    }
    String subName = json.get("name").textValue();
    ServerSubscription sub = new ServerSubscription(c, json.get("id").textValue(), subName, params);
    Publication publication = publications.get(subName);
    if (publication == null) {
      sub.nosub("404", "Subscription '" + subName + "' not found");
      return;
    }
    c.liveSubscriptions().put(sub.id(), sub);
    try {
      publication.onSubscribe(sub);
    } catch (DdpServerError e) {
      sub.nosub(e.error(), e.reason());
    } catch (RuntimeException e) {
      log.warn("{}: publication {} failed", name, subName, e);
      sub.nosub("500", "Internal server error");
    }
  }

  private void handleUnsub(TestConnection c, JsonNode json) {
    counters.get(Counter.UNSUBS).incrementAndGet();
    if (!json.path("id").isTextual()) {
      sendError(c, "Malformed unsub", json);
      return;
    }
    ServerSubscription sub = c.liveSubscriptions().get(json.get("id").textValue());
    if (sub != null) {
      sub.nosub();
    } else {
      c.send(message("nosub").put("id", json.get("id").textValue()));
    }
  }

  /**
   * Checks a {@code method} or {@code sub}: string {@code id} and {@code nameField}, optional array
   * {@code params}. Returns the params (empty if absent), or {@code null} if the message is bad.
   */
  private static ArrayNode wellFormedParams(JsonNode json, String nameField) {
    JsonNode params = json.path("params");
    if (!json.path("id").isTextual()
        || !json.path(nameField).isTextual()
        || !(params.isMissingNode() || params.isArray())) {
      return null;
    }
    return params.isArray() ? (ArrayNode) params : NODES.arrayNode();
  }

  private static void methodNotFound(MethodCall call) {
    call.replyError("404", "Method '" + call.method() + "' not found");
  }

  private void sendError(TestConnection c, String reason, JsonNode offending) {
    counters.get(Counter.ERRORS_SENT).incrementAndGet();
    ObjectNode msg = message("error").put("reason", reason);
    if (offending != null) {
      msg.set("offendingMessage", offending);
    }
    c.send(msg);
  }

  private void record(ReceivedFrame frame) {
    counters.get(Counter.FRAMES_RECEIVED).incrementAndGet();
    if (!received.offer(frame)) {
      counters.get(Counter.RECORDER_OVERFLOW).incrementAndGet();
    }
  }

  boolean sendOn(TestConnection c, String frame) {
    try {
      c.socket().send(frame);
      counters.get(Counter.FRAMES_SENT).incrementAndGet();
      return true;
    } catch (RuntimeException e) {
      // WebsocketNotConnectedException: the client is gone, which tests provoke on purpose.
      counters.get(Counter.SEND_FAILED).incrementAndGet();
      return false;
    }
  }

  private void sendBinary(TestConnection c, byte[] bytes) {
    try {
      c.socket().send(bytes);
      counters.get(Counter.FRAMES_SENT).incrementAndGet();
    } catch (RuntimeException e) {
      counters.get(Counter.SEND_FAILED).incrementAndGet();
    }
  }

  private static JsonNode parse(String text) {
    try {
      JsonNode node = MAPPER.readTree(text);
      return node == null ? MissingNode.getInstance() : node;
    } catch (Exception e) {
      return MissingNode.getInstance();
    }
  }

  /** Returns {@code {"msg": type}}, to build messages with. */
  public static ObjectNode message(String type) {
    return NODES.objectNode().put("msg", type);
  }

  /** Returns a DDP error object as Meteor shapes it. */
  public static ObjectNode error(String error, String reason) {
    ObjectNode e = NODES.objectNode();
    if (error.chars().allMatch(Character::isDigit) && !error.isEmpty() && error.length() < 10) {
      e.put("error", Integer.parseInt(error)); // numeric codes go out as numbers, as Meteor's do
    } else {
      e.put("error", error);
    }
    e.put("reason", reason);
    e.put("message", reason + " [" + error + "]");
    e.put("errorType", "Meteor.Error");
    return e;
  }

  /** Parses JSON text, for tests that build expected frames. */
  public static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException("not JSON: " + text, e);
    }
  }

  /** The Java-WebSocket server of one listening period; a new one after each {@link #up()}. */
  private final class Inner extends WebSocketServer {
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final Thread selector;
    private final int requestedPort;
    private volatile int boundPort;
    private volatile boolean accepting = true;
    /** Every socket accepted, open or still in its handshake, so none outlives a shutdown. */
    private final Set<WebSocket> accepted = ConcurrentHashMap.newKeySet();
    /** Sends frames the library's selector forgot to write (a lost wake-up under load). */
    private final LostWriteGuard guard;

    Inner(int onPort) {
      super(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), /* decodercount= */ 1);
      requestedPort = onPort;
      setReuseAddr(true);
      setConnectionLostTimeout(0); // no WebSocket-level pings: the blackhole must stay silent
      setDaemon(true);
      setWebSocketFactory(new Factory(this));
      for (Thread worker : decoders) {
        worker.setName(name + "-worker");
      }
      selector = new Thread(this, name + "-selector");
      selector.setDaemon(true);
      guard = new LostWriteGuard(name + "-rearm", () -> accepted,
          () -> counters.get(Counter.WRITES_REARMED).incrementAndGet());
    }

    void launch() {
      selector.start();
      try {
        started.get(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        join();
        throw new IllegalStateException(name + ": could not listen on port " + requestedPort, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(name + ": interrupted while starting", e);
      } catch (TimeoutException e) {
        throw new IllegalStateException(name + ": did not start", e);
      }
    }

    /** Stops accepting: the listening key is dropped and late handshakes are cut. */
    void stopAccepting() {
      accepting = false;
    }

    void abortConnections() {
      for (WebSocket socket : accepted) {
        socket.closeConnection(CloseFrame.ABNORMAL_CLOSE, "server went down");
      }
      accepted.removeIf(WebSocket::isClosed);
    }

    void shutDown() {
      try {
        stop((int) STOP_TIMEOUT_MILLIS, "server stopping");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      join();
      // Clients that never answered the close (a blackhole, a dead client) would keep a socket.
      abortConnections();
    }

    private void join() {
      guard.close();
      List<Thread> threads = new ArrayList<>(decoders);
      threads.add(selector);
      threads.add(guard.thread());
      for (Thread t : threads) {
        try {
          t.join(STOP_TIMEOUT_MILLIS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (t.isAlive()) {
          throw new IllegalStateException(name + ": thread " + t.getName() + " did not stop");
        }
      }
    }

    @Override
    public void onStart() {
      // The library renames the selector thread; keep ours so leaks are easy to attribute.
      Thread.currentThread().setName(name + "-selector");
      boundPort = getPort();
      started.complete(null);
    }

    @Override
    public ServerHandshakeBuilder onWebsocketHandshakeReceivedAsServer(
        WebSocket conn, Draft draft, ClientHandshake request) throws InvalidDataException {
      if (refusing) {
        counters.get(Counter.REFUSED).incrementAndGet();
        throw new InvalidDataException(CloseFrame.POLICY_VALIDATION, "refused by the test");
      }
      return super.onWebsocketHandshakeReceivedAsServer(conn, draft, request);
    }

    @Override
    protected boolean onConnect(SelectionKey key) {
      // Returning false makes the library cancel the listening key: no more accepts, which is
      // what a server going down looks like from outside.
      return accepting;
    }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) {
      if (!accepting) {
        // A handshake that finished while the server was going down.
        conn.closeConnection(CloseFrame.ABNORMAL_CLOSE, "server went down");
        return;
      }
      TestDdpServer.this.onOpen(conn);
    }

    @Override
    public void onClose(WebSocket conn, int code, String reason, boolean remote) {
      TestDdpServer.this.onClose(conn, code, reason);
    }

    @Override
    public void onMessage(WebSocket conn, String message) {
      onText(conn, message);
    }

    @Override
    public void onMessage(WebSocket conn, ByteBuffer message) {
      TestConnection c = connections.get(conn);
      if (c != null && !blackholed) {
        String text = "<binary " + message.remaining() + " bytes>";
        record(new ReceivedFrame(c.id(), text, MissingNode.getInstance()));
      }
    }

    @Override
    public void onError(WebSocket conn, Exception ex) {
      if (conn == null && !started.isDone()) {
        started.completeExceptionally(ex);
      } else {
        log.debug("{}: socket error on {}", name, conn, ex);
      }
    }
  }

  /** Makes every accepted socket a {@link BlackholeChannel}, so the blackhole can be switched. */
  private final class Factory implements WebSocketServerFactory {
    private final Inner owner;

    Factory(Inner owner) {
      this.owner = owner;
    }

    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, Draft d) {
      return track(new WebSocketImpl(a, d));
    }

    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, List<Draft> drafts) {
      return track(new WebSocketImpl(a, drafts));
    }

    private WebSocketImpl track(WebSocketImpl socket) {
      owner.accepted.removeIf(WebSocket::isClosed);
      owner.accepted.add(socket);
      return socket;
    }

    @Override
    public ByteChannel wrapChannel(SocketChannel channel, SelectionKey key) {
      return new BlackholeChannel(
          channel,
          () -> blackholed,
          n -> counters.get(Counter.BLACKHOLED_BYTES).addAndGet(n));
    }

    @Override
    public void close() {
      // Nothing to release: the channels are closed with their connections.
    }
  }

  /** Builds a {@link TestDdpServer}. */
  public static final class Builder {
    private List<String> versions = List.of("1", "pre2", "pre1");
    private boolean sendServerId = true;
    private String name;

    private Builder() {}

    /** The DDP versions the server speaks, best first (default 1, pre2, pre1). */
    public Builder versions(String... versions) {
      if (versions.length == 0) {
        throw new IllegalArgumentException("versions must not be empty");
      }
      this.versions = List.of(versions);
      return this;
    }

    /** Whether to greet each connection with Meteor's {@code {"server_id": "0"}} (default on). */
    public Builder sendServerId(boolean send) {
      this.sendServerId = send;
      return this;
    }

    /** Names the server in its thread names (default {@code ddp-testserver-N}). */
    public Builder name(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return this;
    }

    /** Starts the server on a free loopback port. */
    public TestDdpServer start() {
      TestDdpServer server = new TestDdpServer(this);
      synchronized (server.lifecycle) {
        server.inner = server.startInner(0);
      }
      return server;
    }
  }
}
