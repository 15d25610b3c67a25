package dev.ddpkit.ddp.tls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.DefaultSSLWebSocketServerFactory;
import org.java_websocket.server.WebSocketServer;

/**
 * A minimal DDP server over TLS on loopback: answers {@code connect} with {@code connected} and
 * every method call with its first parameter. Counts the TLS sessions that got as far as a
 * WebSocket open.
 */
final class TlsDdpServer extends WebSocketServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CountDownLatch started = new CountDownLatch(1);
  final AtomicInteger opened = new AtomicInteger();
  final AtomicInteger frames = new AtomicInteger();

  private TlsDdpServer(SSLContext context) {
    super(new InetSocketAddress("127.0.0.1", 0), 1);
    setWebSocketFactory(new DefaultSSLWebSocketServerFactory(context));
    setConnectionLostTimeout(0);
    setReuseAddr(true);
    setDaemon(true);
  }

  /** Starts a server presenting the context's certificate and waits until it listens. */
  static TlsDdpServer start(SSLContext context) throws InterruptedException {
    TlsDdpServer s = new TlsDdpServer(context);
    s.start();
    if (!s.started.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("TLS server did not start");
    }
    return s;
  }

  /** The URL with the host name {@code host} (the port is this server's). */
  String url(String host) {
    return "wss://" + host + ":" + getPort() + "/websocket";
  }

  @Override
  public void onStart() {
    started.countDown();
  }

  @Override
  public void onOpen(WebSocket conn, ClientHandshake handshake) {
    opened.incrementAndGet();
  }

  @Override
  public void onClose(WebSocket conn, int code, String reason, boolean remote) {}

  @Override
  public void onMessage(WebSocket conn, String message) {
    frames.incrementAndGet();
    try {
      JsonNode m = JSON.readTree(message);
      ObjectNode out = JSON.createObjectNode();
      switch (m.path("msg").asText()) {
        case "connect" -> out.put("msg", "connected").put("session", "tls-1");
        case "method" -> out.put("msg", "result").put("id", m.path("id").asText())
            .set("result", m.path("params").path(0));
        case "ping" -> out.put("msg", "pong");
        default -> {
          return;
        }
      }
      conn.send(out.toString());
    } catch (Exception e) {
      conn.close(1002, "bad frame");
    }
  }

  @Override
  public void onError(WebSocket conn, Exception ex) {}

  @Override
  public void close() {
    try {
      stop(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
