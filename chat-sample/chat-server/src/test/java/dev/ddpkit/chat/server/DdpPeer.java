package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.handshake.ServerHandshake;

/**
 * A raw DDP peer for tests: sends frames, queues what it receives, and lets a test wait for the
 * next frame (or the next one matching a predicate) with a timeout. Frames that are not JSON are
 * queued as text nodes. Public, in chat-server's test jar, for chat-app's ServeCommandTest.
 */
public final class DdpPeer implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration WAIT = Duration.ofSeconds(10);

  private final BlockingQueue<JsonNode> inbox = new LinkedBlockingQueue<>(100_000);
  /** Frames skipped by {@link #next(Predicate)}, read first by later calls. */
  private final ArrayDeque<JsonNode> skipped = new ArrayDeque<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final CountDownLatch opened = new CountDownLatch(1);
  private final AtomicInteger ids = new AtomicInteger();
  /** Frames received with a {@code msg} but ping and pong: what session resumption counts. */
  private final java.util.concurrent.atomic.AtomicLong received =
      new java.util.concurrent.atomic.AtomicLong();
  private final WebSocketClient ws;
  volatile int closeCode = -1;
  public volatile String closeReason;
  volatile boolean closedByServer;
  volatile long closedAtNanos;
  volatile Exception error;

  private DdpPeer(URI uri) {
    ws = new WebSocketClient(uri) {
      @Override
      public void onOpen(ServerHandshake handshake) {
        opened.countDown();
      }

      @Override
      public void onMessage(String message) {
        JsonNode n;
        try {
          n = JSON.readTree(message);
        } catch (Exception e) {
          n = TextNode.valueOf(message);
        }
        String msg = n.path("msg").asText("");
        if (!msg.isEmpty() && !msg.equals("ping") && !msg.equals("pong")) {
          received.incrementAndGet();
        }
        inbox.offer(n);
      }

      @Override
      public void onMessage(ByteBuffer bytes) {
        inbox.offer(TextNode.valueOf("<binary>"));
      }

      @Override
      public void onClose(int code, String reason, boolean remote) {
        closeCode = code;
        closeReason = reason;
        closedByServer = remote;
        closedAtNanos = System.nanoTime();
        closed.countDown();
      }

      @Override
      public void onError(Exception ex) {
        error = ex;
      }
    };
    ws.setConnectionLostTimeout(0);
  }

  /** Opens the WebSocket (no DDP yet). */
  public static DdpPeer open(String url) throws InterruptedException {
    DdpPeer p = new DdpPeer(URI.create(url));
    p.ws.connect();
    boolean ready = p.opened.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)
        || p.closed.await(1, TimeUnit.MILLISECONDS);
    assertThat(ready).as("socket opened or closed in time").isTrue();
    return p;
  }

  /** Opens the WebSocket and does the DDP handshake; returns the peer. */
  public static DdpPeer connect(String url) throws InterruptedException {
    DdpPeer p = open(url);
    assertThat(p.next().path("server_id").asText()).isEqualTo("0");
    p.send(connectFrame("1"));
    JsonNode c = p.next();
    assertThat(c.path("msg").asText()).isEqualTo("connected");
    return p;
  }

  /** Connects and logs in with a password; returns the peer. */
  public static DdpPeer loggedIn(String url, String user, String password)
      throws InterruptedException {
    DdpPeer p = connect(url);
    JsonNode r = p.call("login", loginParams(user, password));
    assertThat(r.has("error")).as("login error: %s", r).isFalse();
    return p;
  }

  /**
   * Opens a WebSocket and asks to resume {@code session}, having received {@code receivedCount}
   * frames of it; the next frame is the server's answer. The count of this peer starts there.
   */
  static DdpPeer resume(String url, String session, long receivedCount)
      throws InterruptedException {
    DdpPeer p = open(url);
    assertThat(p.next().path("server_id").asText()).isEqualTo("0");
    p.received.set(receivedCount);
    p.ids.set(1000); // a resumed session knows the method ids used before: do not reuse them
    ObjectNode c = connectFrame("1");
    c.put("session", session);
    c.put("receivedCount", receivedCount);
    p.send(c);
    return p;
  }

  /** The frames received so far that a server counts for session resumption (this socket's). */
  long receivedCount() {
    return received.get();
  }

  /** Drops the TCP connection with a reset, no close frame: the network failed. */
  void dropAbruptly() {
    try {
      java.net.Socket socket = ws.getSocket();
      socket.setSoLinger(true, 0);
      socket.close();
    } catch (java.io.IOException e) {
      throw new AssertionError("could not drop the socket", e);
    }
    awaitClose();
  }

  static ObjectNode connectFrame(String version) {
    ObjectNode c = JSON.createObjectNode();
    c.put("msg", "connect");
    c.put("version", version);
    c.putArray("support").add("1").add("pre2").add("pre1");
    return c;
  }

  static ObjectNode loginParams(String user, String password) {
    ObjectNode a = JSON.createObjectNode();
    a.putObject("user").put("username", user);
    ObjectNode pw = a.putObject("password");
    pw.put("digest", Secrets.sha256Hex(password));
    pw.put("algorithm", "sha-256");
    return a;
  }

  static ObjectNode resumeParams(String token) {
    ObjectNode a = JSON.createObjectNode();
    a.put("resume", token);
    return a;
  }

  static ObjectNode message(String id, String rid, String text) {
    ObjectNode m = JSON.createObjectNode();
    m.put("_id", id);
    m.put("rid", rid);
    m.put("msg", text);
    return m;
  }

  static ObjectNode date(long ms) {
    ObjectNode d = JSON.createObjectNode();
    d.put("$date", ms);
    return d;
  }

  boolean isOpen() {
    return ws.isOpen();
  }

  void send(JsonNode frame) {
    ws.send(frame.toString());
  }

  void sendRaw(String text) {
    ws.send(text);
  }

  void sendBinary(byte[] bytes) {
    ws.send(bytes);
  }

  /** Sends a method call with a fresh id; returns the id. */
  String sendMethod(String method, Object... params) {
    String id = "m" + ids.incrementAndGet();
    sendMethodWithId(id, method, params);
    return id;
  }

  void sendMethodWithId(String id, String method, Object... params) {
    ObjectNode m = JSON.createObjectNode();
    m.put("msg", "method");
    m.put("id", id);
    m.put("method", method);
    ArrayNode arr = m.putArray("params");
    for (Object o : params) {
      arr.add(o == null ? JSON.nullNode() : o instanceof JsonNode ? (JsonNode) o : JSON.valueToTree(o));
    }
    send(m);
  }

  /** Calls a method and returns its {@code result} frame, checking that {@code updated} follows it. */
  JsonNode call(String method, Object... params) {
    String id = sendMethod(method, params);
    JsonNode result = next(f -> isResult(f, id));
    assertThat(skipped).as("no updated before the result of %s", id)
        .noneMatch(f -> isUpdated(f, id));
    next(f -> isUpdated(f, id));
    return result;
  }

  static boolean isUpdated(JsonNode f, String id) {
    return f.path("msg").asText().equals("updated")
        && f.path("methods").toString().equals("[\"" + id + "\"]");
  }

  static boolean isResult(JsonNode f, String id) {
    return f.path("msg").asText().equals("result") && f.path("id").asText().equals(id);
  }

  /** Subscribes to a room's stream; returns the sub id. */
  String subscribe(String rid) {
    String id = "s" + ids.incrementAndGet();
    ObjectNode s = JSON.createObjectNode();
    s.put("msg", "sub");
    s.put("id", id);
    s.put("name", "stream-room-messages");
    ArrayNode p = s.putArray("params");
    p.add(rid);
    p.addObject().put("useCollection", false).putArray("args");
    send(s);
    return id;
  }

  /** Subscribes to a room event on {@code stream-notify-room} ({@code rid/event}); the sub id. */
  String subscribeNotifyRoom(String eventName) {
    String id = "n" + ids.incrementAndGet();
    ObjectNode s = JSON.createObjectNode();
    s.put("msg", "sub");
    s.put("id", id);
    s.put("name", "stream-notify-room");
    ArrayNode p = s.putArray("params");
    p.add(eventName);
    p.addObject().put("useCollection", false).putArray("args");
    send(s);
    return id;
  }

  /** The next frame, waiting up to 5 s. */
  JsonNode next() {
    if (!skipped.isEmpty()) {
      return skipped.removeFirst();
    }
    return poll(WAIT);
  }

  /** The next frame matching {@code p}; frames before it are kept for later calls. */
  JsonNode next(Predicate<JsonNode> p) {
    for (Iterator<JsonNode> it = skipped.iterator(); it.hasNext(); ) {
      JsonNode f = it.next();
      if (p.test(f)) {
        it.remove();
        return f;
      }
    }
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      JsonNode f = poll(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (p.test(f)) {
        return f;
      }
      skipped.addLast(f);
    }
  }

  /** The next frame whose {@code msg} is {@code type}. */
  JsonNode next(String type) {
    return next(f -> f.path("msg").asText().equals(type));
  }

  private JsonNode poll(Duration d) {
    try {
      JsonNode f = inbox.poll(d.toNanos(), TimeUnit.NANOSECONDS);
      if (f == null) {
        throw new AssertionError("no frame within " + d + "; skipped so far: " + skipped
            + "; open=" + ws.isOpen() + ", closed=" + isClosed() + " code=" + closeCode
            + " reason=" + closeReason + " error=" + error);
      }
      return f;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Waits for the close and returns its code. */
  public int awaitClose() {
    try {
      assertThat(closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("socket closed within %s", WAIT).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    return closeCode;
  }

  boolean isClosed() {
    return closed.getCount() == 0;
  }

  @Override
  public void close() {
    try {
      ws.closeBlocking();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
