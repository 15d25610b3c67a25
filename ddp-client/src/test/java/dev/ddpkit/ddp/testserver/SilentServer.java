package dev.ddpkit.ddp.testserver;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

/**
 * A WebSocket server on loopback that completes every upgrade and then never says a word: a DDP
 * server that never answers {@code connect}, for connect-timeout tests. Its threads are named
 * {@code <prefix>-<n>-selector} and {@code <prefix>-<n>-worker}, so a leak check can find them.
 */
public final class SilentServer extends WebSocketServer implements AutoCloseable {
  private static final AtomicInteger IDS = new AtomicInteger();

  private final String name;
  private final AtomicInteger upgrades = new AtomicInteger();
  private final AtomicInteger connectFrames = new AtomicInteger();
  private final CountDownLatch started = new CountDownLatch(1);

  private SilentServer(String name, int port) {
    super(new InetSocketAddress("127.0.0.1", port), /* decodercount= */ 1);
    this.name = name;
    setReuseAddr(true);
    setConnectionLostTimeout(0); // it never speaks, pings included
    setDaemon(true);
    for (Thread worker : decoders) {
      worker.setName(name + "-worker");
    }
  }

  /** Starts a server on a free port with threads named after {@code namePrefix}; waits for it. */
  public static SilentServer launch(String namePrefix) throws InterruptedException {
    SilentServer s = new SilentServer(namePrefix + "-" + IDS.incrementAndGet(), 0);
    Thread selector = new Thread(s, s.name + "-selector");
    selector.setDaemon(true);
    selector.start();
    if (!s.started.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException(s.name + " did not start");
    }
    return s;
  }

  /** The prefix of this server's thread names. */
  public String name() {
    return name;
  }

  /** The DDP URL of this server. */
  public URI uri() {
    return URI.create("ws://127.0.0.1:" + getPort() + "/websocket");
  }

  /** WebSocket upgrades completed so far. */
  public int upgrades() {
    return upgrades.get();
  }

  /** DDP {@code connect} frames received (and left unanswered) so far. */
  public int connectFrames() {
    return connectFrames.get();
  }

  @Override
  public void onStart() {
    Thread.currentThread().setName(name + "-selector"); // Java-WebSocket renames it
    started.countDown();
  }

  @Override
  public void onOpen(WebSocket conn, ClientHandshake handshake) {
    upgrades.incrementAndGet();
  }

  @Override
  public void onMessage(WebSocket conn, String message) {
    if (message.contains("\"connect\"")) {
      connectFrames.incrementAndGet();
    }
  }

  @Override
  public void onClose(WebSocket conn, int code, String reason, boolean remote) {}

  @Override
  public void onError(WebSocket conn, Exception ex) {}

  /** Stops the server and its threads, waiting up to 5 s for its connections to close. */
  @Override
  public void close() throws InterruptedException {
    stop(5_000);
  }
}
