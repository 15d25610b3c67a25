package dev.ddpkit.ddp.testserver;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.SelectionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.drafts.Draft;
import org.java_websocket.framing.Framedata;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.handshake.ServerHandshake;
import org.java_websocket.server.WebSocketServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LostWriteGuard} sends what the lost wake-up leaves behind: a frame in a connection's
 * out-queue with no write interest on its key. The state is made directly (the frame's bytes put
 * in the out-queue without the write demand that {@code send} would make), because the race that
 * leaves it in the library is a few instructions wide: it was reproduced naturally only under
 * load, 2 connections in about 25,000.
 */
@Timeout(value = 60, unit = SECONDS)
class LostWriteGuardTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

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
    for (Client c : clients) {
      c.closeBlocking();
    }
    server.stop(5_000);
  }

  @Test
  void aFrameLeftQueuedWithNoWriteInterestIsSentOnceRearmed() throws Exception {
    Client c = connect("c");
    WebSocketImpl serverSide = leaveAFrameQueued(c, "late");

    assertThat(c.received).as("nothing writes it by itself before the re-arm").isEmpty();
    assertThat(LostWriteGuard.rearmIfLost(serverSide)).isTrue();
    assertThat(c.await("late", PATIENCE)).isEqualTo("late");
    assertThat(LostWriteGuard.rearmIfLost(serverSide)).as("nothing left to re-arm").isFalse();
  }

  @Test
  void theGuardFindsTheLostFrameAndItArrives() throws Exception {
    try (LostWriteGuard guard = new LostWriteGuard("lost-write-guard-test", server::getConnections,
        () -> {})) {
      Client c = connect("g");
      leaveAFrameQueued(c, "late");

      assertThat(c.await("late", PATIENCE)).isEqualTo("late");
      // The guard counts after re-arming: the frame may arrive before the count goes up.
      await("the guard re-armed the lost write").atMost(PATIENCE)
          .until(() -> guard.rearmed() == 1);
      guard.close();
      guard.thread().join(5_000);
      assertThat(guard.thread().isAlive()).isFalse();
    }
  }

  /** Puts {@code text}'s frame in the connection's out-queue with no write demand. */
  private WebSocketImpl leaveAFrameQueued(Client c, String text) throws Exception {
    // The greeting is sent after the server side is recorded: once it is here, so is that.
    assertThat(c.await("{\"server_id\"", PATIENCE)).as("greeting").isNotNull();
    WebSocketImpl serverSide = (WebSocketImpl) server.byPath.get(c.getURI().getPath());
    await("greeting written, write interest dropped").atMost(PATIENCE).until(() ->
        !serverSide.hasBufferedData()
            && (serverSide.getSelectionKey().interestOps() & SelectionKey.OP_WRITE) == 0);
    Draft draft = serverSide.getDraft();
    for (Framedata frame : draft.createFrames(text, false)) {
      serverSide.outQueue.put(draft.createBinaryFrame(frame));
    }
    assertThat(serverSide.hasBufferedData()).isTrue();
    return serverSide;
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
    }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) {
      byPath.put(handshake.getResourceDescriptor(), conn);
      conn.send("{\"server_id\":\"0\"}");
    }

    @Override
    public void onMessage(WebSocket conn, String message) {}

    @Override
    public void onClose(WebSocket conn, int code, String reason, boolean remote) {}

    @Override
    public void onError(WebSocket conn, Exception ex) {}

    @Override
    public void onStart() {
      started.countDown();
    }
  }

  private static final class Client extends WebSocketClient {
    final BlockingQueue<String> received = new LinkedBlockingQueue<>();

    Client(URI uri) {
      super(uri);
      setConnectionLostTimeout(0);
      setDaemon(true);
    }

    /** Returns the next message starting with {@code prefix}, skipping others, or null. */
    String await(String prefix, Duration patience) throws InterruptedException {
      long deadline = System.nanoTime() + patience.toNanos();
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
