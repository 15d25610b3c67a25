package dev.ddpkit.ddp.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.java_websocket.WebSocket;
import org.java_websocket.framing.CloseFrame;

/** One client connection of a {@link TestDdpServer}, as a test sees it. Thread-safe. */
public final class TestConnection {
  private final TestDdpServer server;
  private final WebSocket socket;
  private final int id;
  private final Map<String, ServerSubscription> subscriptions = new ConcurrentHashMap<>();
  private volatile String session;

  TestConnection(TestDdpServer server, WebSocket socket, int id) {
    this.server = server;
    this.socket = socket;
    this.id = id;
  }

  /** Returns the connection number, 1 for the first connection the server accepted. */
  public int id() {
    return id;
  }

  /** Returns the DDP session id the server gave, or {@code null} before {@code connected}. */
  public String session() {
    return session;
  }

  /** Returns whether the socket is open. */
  public boolean isOpen() {
    return socket.isOpen();
  }

  /** Sends a raw text frame; returns {@code false} (and counts it) if the socket is closed. */
  public boolean send(String frame) {
    return server.sendOn(this, frame);
  }

  /** Sends a JSON message. */
  public boolean send(JsonNode message) {
    return send(message.toString());
  }

  /**
   * Closes with a close frame. Code 1006 cannot go on the wire: it drops the socket without one,
   * as {@link #closeAbruptly()}.
   */
  public void close(int code, String reason) {
    if (code == CloseFrame.ABNORMAL_CLOSE) {
      closeAbruptly();
    } else {
      socket.close(code, reason);
    }
  }

  /** Drops the TCP connection with no close frame (the client sees 1006). */
  public void closeAbruptly() {
    socket.closeConnection(CloseFrame.ABNORMAL_CLOSE, "closed abruptly by the test");
  }

  /** Returns the live subscriptions of this connection, by id. */
  public Map<String, ServerSubscription> subscriptions() {
    return Map.copyOf(subscriptions);
  }

  WebSocket socket() {
    return socket;
  }

  Map<String, ServerSubscription> liveSubscriptions() {
    return subscriptions;
  }

  void session(String session) {
    this.session = session;
  }

  @Override
  public String toString() {
    return "TestConnection{" + id + (session == null ? "" : " session=" + session) + "}";
  }
}
