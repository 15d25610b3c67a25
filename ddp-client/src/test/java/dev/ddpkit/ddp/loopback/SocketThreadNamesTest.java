package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static dev.ddpkit.ddp.loopback.Loopback.threadsNamed;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.testserver.TestDdpServer;
import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportListener;
import dev.ddpkit.ddp.transport.WebSocketTransportFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.handshake.ServerHandshake;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Java-WebSocket's two threads per connection carry the DDP client's name ({@code <name>-ws-read},
 * {@code <name>-ws-write}) instead of the library's {@code WebSocketConnectReadThread-N} and {@code
 * WebSocketWriteThread-N}, so that 200 clients' threads can be told apart; and running the
 * library's {@code run()} on our own thread does not break closing.
 */
@Timeout(value = 30, unit = SECONDS)
class SocketThreadNamesTest {

  @Test
  void bothSocketThreadsAreNamedAfterTheClientAcrossReconnectsAndEndWithIt() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Loopback.Client c = lb.client(server.uri()).connected();
      // The socket's two threads and, since issue 11, no loop thread named after the client.
      Set<String> expected = Set.of(c.name + "-ws-read", c.name + "-ws-write");

      assertThat(threadsNamed(c.name)).isEqualTo(expected);
      assertThat(threadsNamed("WebSocketConnectReadThread")).isEmpty();
      assertThat(threadsNamed("WebSocketWriteThread")).isEmpty();

      server.closeAbruptly();
      eventually().until(() -> c.ddp.stats().reconnects() == 1 && c.ddp.status().connected());

      // The old connection's threads end; the new one's have the same names.
      eventually().untilAsserted(() -> assertThat(threadsNamed(c.name)).isEqualTo(expected));
      assertThat(threadsNamed("WebSocketWriteThread")).isEmpty();

      c.ddp.close();

      assertThat(c.ddp.awaitTermination(Duration.ofSeconds(10))).isTrue();
      assertThat(threadsNamed(c.name)).as("awaitTermination() waits for them").isEmpty();
    }
  }

  @Test
  void transportFactoryNamesItsThreadsAndAwaitTerminationSeesBothEnd() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      WebSocketTransportFactory factory =
          new WebSocketTransportFactory(null, 1 << 20, Duration.ofSeconds(5), "named-transport");
      CountDownLatch opened = new CountDownLatch(1);
      CompletableFuture<Integer> closed = new CompletableFuture<>();

      Transport t = factory.open(server.uri(), listener(opened, closed));

      assertThat(opened.await(10, SECONDS)).isTrue();
      assertThat(threadsNamed("named-transport"))
          .containsExactlyInAnyOrder("named-transport-ws-read", "named-transport-ws-write");
      t.close(1000, "bye");
      assertThat(t.awaitTermination(Duration.ofSeconds(5))).isTrue();
      assertThat(threadsNamed("named-transport")).isEmpty();
      // The server learns of the close on its own thread, a moment later.
      eventually().until(() -> server.connections().isEmpty());
    }
  }

  @Test
  void dialThatFailsEndsItsNamedReadThread() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    WebSocketTransportFactory factory =
        new WebSocketTransportFactory(null, 1 << 20, Duration.ofSeconds(5), "refused-transport");
    CompletableFuture<Integer> closed = new CompletableFuture<>();

    Transport t =
        factory.open(URI.create("ws://127.0.0.1:" + port + "/websocket"),
            listener(new CountDownLatch(1), closed));

    assertThat(closed.get(10, SECONDS)).isEqualTo(1006);
    assertThat(t.awaitTermination(Duration.ofSeconds(5))).isTrue();
    assertThat(threadsNamed("refused-transport")).isEmpty();
  }

  /**
   * The premise of the naming: Java-WebSocket's {@code run()} driven from a thread of ours instead
   * of {@code connect()} still opens, and {@code closeBlocking()} still returns and ends both
   * threads.
   */
  @Test
  void libraryClientRunOnOurOwnThreadStillClosesBlocking() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      CountDownLatch opened = new CountDownLatch(1);
      WebSocketClient client =
          new WebSocketClient(server.uri()) {
            @Override
            public void onOpen(ServerHandshake handshake) {
              opened.countDown();
            }

            @Override
            public void onMessage(String message) {}

            @Override
            public void onClose(int code, String reason, boolean remote) {}

            @Override
            public void onError(Exception ex) {}
          };
      client.setConnectionLostTimeout(0);
      Thread reader = new Thread(client, "premise-ws-read");
      reader.setDaemon(true);
      reader.start();
      assertThat(opened.await(10, SECONDS)).isTrue();

      client.closeBlocking();

      reader.join(5_000);
      assertThat(reader.isAlive()).isFalse();
      eventually().until(() -> threadsNamed("WebSocketWriteThread").isEmpty());
      assertThat(client.isClosed()).isTrue();
    }
  }

  private static TransportListener listener(
      CountDownLatch opened, CompletableFuture<Integer> closed) {
    return new TransportListener() {
      @Override
      public void onOpen() {
        opened.countDown();
      }

      @Override
      public void onMessage(String text) {}

      @Override
      public void onClose(int code, String reason, boolean remote) {
        closed.complete(code);
      }

      @Override
      public void onError(Throwable error) {}
    };
  }
}
