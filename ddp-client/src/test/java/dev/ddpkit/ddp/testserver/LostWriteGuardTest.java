package dev.ddpkit.ddp.testserver;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketAdapter;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.WebSocketServerFactory;
import org.java_websocket.WrappedByteChannel;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.drafts.Draft;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.handshake.ServerHandshake;
import org.java_websocket.server.WebSocketServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lost wake-up {@link LostWriteGuard} works around, made likely: the server's channel sleeps
 * in {@code isNeedWrite()}, which {@code SocketChannelIOHelper.batch} calls after it found the
 * out-queue empty and before {@code doWrite} sets the interest back to {@code OP_READ}, the window
 * a descheduled selector thread leaves open on a loaded machine. The server greets each connection
 * and answers each message with two frames, as TestDdpServer does ({@code server_id}, then {@code
 * result} and {@code updated}).
 */
@Timeout(value = 60, unit = SECONDS)
class LostWriteGuardTest {
  private static final long WINDOW_MILLIS = 2;

  private final List<Client> clients = new ArrayList<>();
  private Server server;

  @BeforeEach
  void start() throws InterruptedException {
    server = new Server();
    server.start();
    assertThat(server.started.await(10, SECONDS)).as("server started").isTrue();
  }

  @AfterEach
  void stop() throws InterruptedException {
    // The close handshakes race the same way: without a guard a closeBlocking() could hang.
    try (LostWriteGuard teardown =
        new LostWriteGuard("lost-write-guard-teardown", server::getConnections, () -> {})) {
      for (Client c : clients) {
        c.closeBlocking();
      }
      server.stop(5_000);
    }
  }

  @Test
  void withoutTheGuardAReplyCanStayQueuedUntilItIsRearmed() throws Exception {
    // If this fails, the library may have fixed the race: LostWriteGuard may no longer be needed.
    Client stuck = null;
    for (int i = 0; i < 50 && stuck == null; i++) {
      Client c = connect("c" + i);
      c.send("connect");
      if (c.await("result:connect", 500) == null) {
        WebSocketImpl serverSide = (WebSocketImpl) server.byPath.get("/c" + i);
        boolean lost = serverSide.hasBufferedData()
            && (serverSide.getSelectionKey().interestOps() & SelectionKey.OP_WRITE) == 0;
        if (lost) {
          stuck = c;
        } else {
          // Only slow (a loaded machine): not what this test looks for.
          assertThat(c.await("result:connect", 10_000)).as("slow reply " + i).isNotNull();
        }
      }
    }
    assertThat(stuck).as("a reply left in the out-queue with no write interest").isNotNull();
    Thread.sleep(1_000);
    assertThat(stuck.received).as("nothing sends it by itself").isEmpty();

    WebSocketImpl serverSide = (WebSocketImpl) server.byPath.get(stuck.getURI().getPath());
    assertThat(LostWriteGuard.rearmIfLost(serverSide)).isTrue();
    assertThat(stuck.await("result:connect", 5_000)).isNotNull();
  }

  @Test
  void withTheGuardEveryReplyArrives() throws Exception {
    try (LostWriteGuard guard = new LostWriteGuard("lost-write-guard-test", server::getConnections,
        () -> {})) {
      for (int i = 0; i < 30; i++) {
        Client c = connect("g" + i);
        c.send("connect");
        assertThat(c.await("result:connect", 5_000)).as("reply on connection " + i).isNotNull();
        assertThat(c.await("updated:connect", 5_000)).as("second reply " + i).isNotNull();
      }
      assertThat(guard.rearmed()).as("the race was hit, and the guard made up for it").isPositive();
      guard.close();
      guard.thread().join(5_000);
      assertThat(guard.thread().isAlive()).isFalse();
    }
  }

  private Client connect(String path) throws InterruptedException {
    Client c = new Client(URI.create("ws://127.0.0.1:" + server.getPort() + "/" + path));
    clients.add(c);
    assertThat(c.connectBlocking(10, SECONDS)).as("open " + path).isTrue();
    return c;
  }

  private static final class Server extends WebSocketServer {
    final CountDownLatch started = new CountDownLatch(1);
    final Map<String, WebSocket> byPath = new ConcurrentHashMap<>();

    Server() {
      super(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
      setConnectionLostTimeout(0);
      setReuseAddr(true);
      setDaemon(true);
      setWebSocketFactory(new WideWindowFactory());
    }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) {
      byPath.put(handshake.getResourceDescriptor(), conn);
      conn.send("{\"server_id\":\"0\"}");
    }

    @Override
    public void onMessage(WebSocket conn, String message) {
      conn.send("result:" + message);
      conn.send("updated:" + message);
    }

    @Override
    public void onClose(WebSocket conn, int code, String reason, boolean remote) {}

    @Override
    public void onError(WebSocket conn, Exception ex) {}

    @Override
    public void onStart() {
      started.countDown();
    }
  }

  /** Wraps each channel so that the window between "out-queue empty" and "OP_READ" is wide. */
  private static final class WideWindowFactory implements WebSocketServerFactory {
    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, Draft d) {
      return new WebSocketImpl(a, d);
    }

    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, List<Draft> drafts) {
      return new WebSocketImpl(a, drafts);
    }

    @Override
    public ByteChannel wrapChannel(SocketChannel channel, SelectionKey key) {
      return new WrappedByteChannel() {
        @Override
        public boolean isNeedWrite() {
          try {
            Thread.sleep(WINDOW_MILLIS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return false;
        }

        @Override
        public void writeMore() {}

        @Override
        public boolean isNeedRead() {
          return false;
        }

        @Override
        public int readMore(ByteBuffer dst) {
          return 0;
        }

        @Override
        public boolean isBlocking() {
          return false;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
          return channel.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
          return channel.write(src);
        }

        @Override
        public boolean isOpen() {
          return channel.isOpen();
        }

        @Override
        public void close() throws IOException {
          channel.close();
        }
      };
    }

    @Override
    public void close() {}
  }

  private static final class Client extends WebSocketClient {
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();

    Client(URI uri) {
      super(uri);
      setConnectionLostTimeout(0);
      setDaemon(true);
    }

    /** Returns the next message starting with {@code prefix}, skipping others, or null. */
    String await(String prefix, long millis) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
      while (true) {
        long left = deadline - System.nanoTime();
        String m = left > 0 ? received.poll(left, TimeUnit.NANOSECONDS) : null;
        if (m == null || m.startsWith(prefix)) {
          return m;
        }
      }
    }

    @Override
    public void onOpen(ServerHandshake handshake) {}

    @Override
    public void onMessage(String message) {
      received.add(message);
    }

    @Override
    public void onClose(int code, String reason, boolean remote) {}

    @Override
    public void onError(Exception ex) {}
  }
}
