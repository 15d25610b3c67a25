package dev.ddpkit.ddp.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.handshake.ServerHandshake;

/**
 * A bare Java-WebSocket client for testing the {@link TestDdpServer} itself: it records what it
 * receives and how it was closed, and speaks DDP only when a test sends DDP.
 */
final class RawClient extends WebSocketClient {
  /** How a connection ended. */
  record Closed(int code, String reason, boolean remote) {}

  private final BlockingQueue<String> messages = new LinkedBlockingQueue<>(10_000);
  private final BlockingQueue<Integer> binaryFrames = new LinkedBlockingQueue<>(100);
  final CompletableFuture<Closed> closed = new CompletableFuture<>();

  RawClient(URI uri) {
    super(uri);
    setConnectionLostTimeout(0); // no WebSocket pings: a blackhole test must see silence
  }

  /** Connects and waits for the handshake; fails the test if it does not open in time. */
  static RawClient open(URI uri) {
    RawClient client = new RawClient(uri);
    if (!client.connectWithin(Duration.ofSeconds(10))) {
      throw new AssertionError("could not open " + uri + ": " + client.closed.getNow(null));
    }
    return client;
  }

  boolean connectWithin(Duration timeout) {
    try {
      return connectBlocking(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Opens a DDP session and returns the {@code connected} message. */
  static RawClient connectDdp(URI uri) {
    RawClient client = open(uri);
    client.send("{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\",\"pre2\",\"pre1\"]}");
    client.awaitMsg("connected");
    return client;
  }

  String poll(Duration timeout) {
    try {
      return messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Returns the next message with this {@code msg}, skipping others, or fails after 10 s. */
  JsonNode awaitMsg(String msg) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      String text = poll(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (text != null) {
        JsonNode json = TestDdpServer.json(text);
        if (json.path("msg").asText("").equals(msg)) {
          return json;
        }
      }
    }
    throw new AssertionError("no '" + msg + "' within 10 s");
  }

  Integer pollBinary(Duration timeout) throws InterruptedException {
    return binaryFrames.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  Closed awaitClosed() throws Exception {
    return closed.get(10, TimeUnit.SECONDS);
  }

  @Override
  public void onOpen(ServerHandshake handshake) {}

  @Override
  public void onMessage(String message) {
    messages.offer(message);
  }

  @Override
  public void onMessage(ByteBuffer bytes) {
    binaryFrames.offer(bytes.remaining());
  }

  @Override
  public void onClose(int code, String reason, boolean remote) {
    closed.complete(new Closed(code, reason, remote));
  }

  @Override
  public void onError(Exception ex) {
    // onClose follows with the code; nothing to record here.
  }
}
