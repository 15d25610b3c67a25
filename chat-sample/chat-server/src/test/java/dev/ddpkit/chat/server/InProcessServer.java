package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLSession;
import org.java_websocket.WebSocket;
import org.java_websocket.drafts.Draft;
import org.java_websocket.enums.Opcode;
import org.java_websocket.enums.ReadyState;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.java_websocket.framing.Framedata;
import org.java_websocket.protocols.IProtocol;

/**
 * The chat server's DDP handling without a socket: a {@link DdpHandler} on a real {@link
 * ChatStore}, fed one text frame at a time through {@link #text}, its answers collected by a
 * {@link FakeConnection}. For fuzzing, where a loopback socket per input would be far too slow.
 * There is no {@link Endpoint}, so stream events are not broadcast.
 */
final class InProcessServer implements AutoCloseable {
  final Counters counters = new Counters();
  final Secrets secrets = new Secrets();
  final ServerConfig cfg;
  final ChatStore store;
  final DdpHandler handler;
  private final ScheduledExecutorService timer;

  InProcessServer(Path dir, UnaryOperator<ChatServerBuilder> tweak) {
    cfg = tweak.apply(ChatServer.builder().dataDir(dir)).config();
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "in-process-server-timer");
      t.setDaemon(true);
      return t;
    });
    AtomicReference<DdpHandler> h = new AtomicReference<>();
    store = ChatStore.open(dir, "in-process-server-store", cfg.clock, msgs -> {
      DdpHandler x = h.get();
      if (x != null) {
        x.broadcast(msgs);
      }
    });
    handler = new DdpHandler(store, secrets, counters, cfg,
        cfg.scheduler != null ? cfg.scheduler : (delay, task) -> {
          java.util.concurrent.ScheduledFuture<?> f =
              timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
          return () -> f.cancel(false);
        });
    h.set(handler);
  }

  /** Creates a user with this password, as {@link ChatServer#createUser} does. */
  void createUser(String username, String password) {
    ObjectNode user = Frames.object();
    user.put("_id", secrets.newId());
    user.put("username", username);
    user.put("password", secrets.hashDigest(Secrets.sha256Hex(password)));
    user.put("createdAt", cfg.clock.millis());
    store.createUser(username, user).join();
  }

  /** Creates a room with these members. */
  void createRoom(String rid, String... members) {
    store.createRoom(rid, List.of(members)).join();
  }

  /** Issues a resume token for a user, as {@link ChatServer#issueToken} does. */
  String issueToken(String username) {
    String token = secrets.newToken();
    long now = cfg.clock.millis();
    ObjectNode record = Frames.object();
    record.put("userId", Frames.text(store.reads().user(username), "_id"));
    record.put("username", username);
    record.put("created", now);
    record.put("expires", now + cfg.tokenTtl.toMillis());
    store.putToken(Secrets.tokenKey(token), record, Integer.MAX_VALUE).join();
    return token;
  }

  /** A new connection, accepted (or turned away) by the handler. */
  FakeConnection open() {
    return open(InetAddress.getLoopbackAddress());
  }

  /** A new connection from {@code address}, accepted (or turned away) by the handler. */
  FakeConnection open(InetAddress address) {
    FakeConnection c = new FakeConnection(new InetSocketAddress(address, 50_000));
    handler.opened(c);
    return c;
  }

  /** One inbound text frame, handled on this thread as a socket worker would. */
  void text(FakeConnection c, String frame) {
    handler.text(c, frame);
  }

  /**
   * Waits until every store operation submitted so far is done, and with it the method answers
   * that waited for one (they are sent from the store's writer thread).
   */
  void settle() {
    store.removeToken("no-such-token").orTimeout(10, TimeUnit.SECONDS).join();
  }

  /**
   * Waits until the server's timer has run everything due within {@code delay} from now: a no-op
   * scheduled then on the same (single-threaded, time-ordered) timer has run.
   */
  void awaitTimer(java.time.Duration delay) throws Exception {
    timer.schedule(() -> { }, delay.toMillis(), TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
  }

  /** Ends a connection: its close handshake completes, as the socket layer would report it. */
  void closed(FakeConnection c, int code, boolean remote) {
    c.closed = true;
    handler.closed(c, code, remote);
  }

  @Override
  public void close() throws InterruptedException {
    timer.shutdownNow();
    store.close();
    if (!timer.awaitTermination(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("timer did not stop");
    }
  }

  /** The socket of one connection: records what the server sends and how it closes. */
  static final class FakeConnection implements WebSocket {
    private final InetSocketAddress remote;
    private final List<String> sent = new ArrayList<>();
    private volatile Object attachment;
    volatile boolean closed;
    /** The close code the server asked for, or 0. */
    volatile int closeCode;
    /** The close reason the server gave, or null. */
    volatile String closeReason;
    /**
     * Whether the server ever sent or closed while holding a {@link Hold}'s lock (Java-WebSocket
     * takes the socket's lock there, and calls {@code onClose} under it: a deadlock).
     */
    volatile boolean calledUnderHoldLock;

    FakeConnection(InetSocketAddress remote) {
      this.remote = remote;
    }

    private void checkLocks() {
      if (attachment instanceof Session && ((Session) attachment).hold != null
          && Thread.holdsLock(((Session) attachment).hold)) {
        calledUnderHoldLock = true;
      }
    }

    /** The text frames sent so far, in order. */
    synchronized List<String> sent() {
      return new ArrayList<>(sent);
    }

    @Override
    public synchronized void send(String text) {
      checkLocks();
      if (closed || closeCode != 0) {
        throw new WebsocketNotConnectedException();
      }
      sent.add(text);
    }

    @Override
    public synchronized void close(int code, String message) {
      checkLocks();
      if (closeCode == 0) {
        closeCode = code;
        closeReason = message;
      }
    }

    @Override
    public void close(int code) {
      close(code, "");
    }

    @Override
    public void close() {
      close(1000, "");
    }

    @Override
    public synchronized void closeConnection(int code, String message) {
      checkLocks();
      close(code, message);
      closed = true;
    }

    @Override
    public void send(ByteBuffer bytes) {
      throw new UnsupportedOperationException("the DDP server sends text only");
    }

    @Override
    public void send(byte[] bytes) {
      throw new UnsupportedOperationException("the DDP server sends text only");
    }

    @Override
    public void sendFrame(Framedata framedata) {
      throw new UnsupportedOperationException("not used by the DDP handler");
    }

    @Override
    public void sendFrame(Collection<Framedata> frames) {
      throw new UnsupportedOperationException("not used by the DDP handler");
    }

    @Override
    public void sendPing() {
      throw new UnsupportedOperationException("not used by the DDP handler");
    }

    @Override
    public void sendFragmentedFrame(Opcode op, ByteBuffer buffer, boolean fin) {
      throw new UnsupportedOperationException("not used by the DDP handler");
    }

    @Override
    public boolean hasBufferedData() {
      return false;
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
      return remote;
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), 3000);
    }

    @Override
    public boolean isOpen() {
      return !closed && closeCode == 0;
    }

    @Override
    public boolean isClosing() {
      return !closed && closeCode != 0;
    }

    @Override
    public boolean isFlushAndClose() {
      return false;
    }

    @Override
    public boolean isClosed() {
      return closed;
    }

    @Override
    public Draft getDraft() {
      return null;
    }

    @Override
    public ReadyState getReadyState() {
      return closed ? ReadyState.CLOSED : closeCode != 0 ? ReadyState.CLOSING : ReadyState.OPEN;
    }

    @Override
    public String getResourceDescriptor() {
      return "/websocket";
    }

    @Override
    public <T> void setAttachment(T attachment) {
      this.attachment = attachment;
    }

    @SuppressWarnings("unchecked")
    @Override
    public <T> T getAttachment() {
      return (T) attachment;
    }

    @Override
    public boolean hasSSLSupport() {
      return false;
    }

    @Override
    public SSLSession getSSLSession() {
      throw new IllegalArgumentException("no TLS");
    }

    @Override
    public IProtocol getProtocol() {
      return null;
    }
  }
}
