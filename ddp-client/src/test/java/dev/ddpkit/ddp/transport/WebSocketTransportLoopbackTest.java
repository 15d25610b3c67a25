package dev.ddpkit.ddp.transport;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.testing.LiveThreads;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The default transport on a real loopback socket: a call round-trips, and after close() neither
 * the client's thread nor Java-WebSocket's client threads are left.
 */
@Timeout(value = 30, unit = SECONDS)
class WebSocketTransportLoopbackTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int BIG = 20 * WebSocketTransportFactory.READ_BUFFER_BYTES + 7;

  /** A tiny DDP server: connected, and every method answers its own name. */
  private static final class TinyServer extends WebSocketServer {
    final CountDownLatch started = new CountDownLatch(1);

    TinyServer() {
      super(new InetSocketAddress("127.0.0.1", 0));
      setReuseAddr(true);
    }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) {}

    @Override
    public void onClose(WebSocket conn, int code, String reason, boolean remote) {}

    @Override
    public void onMessage(WebSocket conn, String message) {
      try {
        JsonNode m = MAPPER.readTree(message);
        switch (m.path("msg").asText()) {
          case "connect" -> conn.send("{\"msg\":\"connected\",\"session\":\"s1\"}");
          case "method" -> {
            String name = m.path("method").asText();
            // "big": a result far larger than the client's read array, in one frame.
            String result = name.equals("big") ? "b".repeat(BIG) : name;
            conn.send(MAPPER.createObjectNode().put("msg", "result")
                .put("id", m.path("id").asText()).put("result", result).toString());
          }
          default -> { }
        }
      } catch (Exception e) {
        conn.close(1002, "bad frame");
      }
    }

    @Override
    public void onError(WebSocket conn, Exception ex) {}

    @Override
    public void onStart() {
      started.countDown();
    }
  }

  @Test
  void callRoundTripsAndCloseLeavesNoClientThreads() throws Exception {
    TinyServer server = new TinyServer();
    server.start();
    try {
      assertThat(server.started.await(10, SECONDS)).isTrue();
      DdpClient client =
          DdpClient.builder()
              .url("ws://127.0.0.1:" + server.getPort() + "/websocket")
              .name("loopback-client")
              .reopen(Duration.ofMillis(200))
              .build();
      client.connect();
      JsonNode result = client.call("echo").get(10, SECONDS);
      assertThat(result.asText()).isEqualTo("echo");
      assertThat(client.status().connected()).isTrue();
      assertThat(clientThreads()).isNotEmpty();

      client.close();

      assertThat(client.awaitTermination(Duration.ofSeconds(10))).isTrue();
      assertThat(clientThreads()).isEmpty();
    } finally {
      server.stop(1000);
    }
  }

  @Test
  void aFrameFarLargerThanTheReadArrayArrivesWhole() throws Exception {
    // The read array is a quarter of Java-WebSocket's default (issue 11: an idle client's heap).
    TinyServer server = new TinyServer();
    server.start();
    try {
      assertThat(server.started.await(10, SECONDS)).isTrue();
      try (DdpClient client = DdpClient.builder()
          .url("ws://127.0.0.1:" + server.getPort() + "/websocket")
          .name("loopback-client")
          .build()) {
        client.connect();
        String first = client.call("big").get(10, SECONDS).asText();
        String second = client.call("big").get(10, SECONDS).asText();

        assertThat(first).hasSize(BIG).matches("b+");
        assertThat(second).isEqualTo(first);
        assertThat(client.status().connected()).isTrue();
      }
    } finally {
      server.stop(1000);
    }
  }

  @Test
  void dialToAClosedPortFailsAsAnAttemptAndCloseStillLeavesNoThreads() throws Exception {
    TinyServer server = new TinyServer();
    server.start();
    assertThat(server.started.await(10, SECONDS)).isTrue();
    int port = server.getPort();
    server.stop(1000); // nothing listens there now
    DdpClient client =
        DdpClient.builder()
            .url("ws://127.0.0.1:" + port + "/websocket")
            .name("refused-client")
            .reopen(Duration.ofSeconds(30))
            .build();
    client.connect();
    await().atMost(Duration.ofSeconds(10))
        .until(() -> client.status().state() == dev.ddpkit.ddp.DdpStatus.State.WAITING);
    assertThat(client.status().reason()).contains("1006");

    client.close();

    assertThat(client.awaitTermination(Duration.ofSeconds(10))).isTrue();
    assertThat(clientThreads()).isEmpty();
  }

  private static List<String> clientThreads() {
    return LiveThreads.startingWith("WebSocketConnectReadThread", "WebSocketWriteThread",
        "loopback-client", // its socket threads, named after it
        "refused-client");
  }
}
