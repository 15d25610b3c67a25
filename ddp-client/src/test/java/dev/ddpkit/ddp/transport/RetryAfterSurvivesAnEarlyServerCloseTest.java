package dev.ddpkit.ddp.transport;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that turns a connection away closes it with 1013 and a {@code retry-after} appointment
 * in the close reason, as soon as the socket opens, and Java-WebSocket's server closes the TCP
 * connection right after its close frame, without waiting for the client's echo. The client sends
 * its first frame (DDP {@code connect}) as soon as the socket opens, so that frame, then its echo
 * of the close, meet a closed socket, and the library's write thread reported the close as 1006
 * with no reason, overtaking the 1013 its read thread had just received. Found in {@code herd
 * --real --hints}: about 1 % of the turned-away dials lost their appointment and fell back on the
 * backoff curve (8-12 s by then), the last clients back at 2x the limit.
 */
@Timeout(value = 60, unit = SECONDS)
class RetryAfterSurvivesAnEarlyServerCloseTest {
  private static final String REASON = "try again later; retry-after=250";

  /** Turns every connection away at once, as an admission past its rate does. */
  private static final class TurnAwayServer extends WebSocketServer {
    final CountDownLatch started = new CountDownLatch(1);

    TurnAwayServer() {
      super(new InetSocketAddress("127.0.0.1", 0));
      setReuseAddr(true);
    }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) {
      conn.close(1013, REASON);
    }

    @Override
    public void onClose(WebSocket conn, int code, String reason, boolean remote) {}

    @Override
    public void onMessage(WebSocket conn, String message) {}

    @Override
    public void onError(WebSocket conn, Exception ex) {}

    @Override
    public void onStart() {
      started.countDown();
    }
  }

  @Test
  void everyTurnedAwayDialSeesTheServersCodeAndReason() throws Exception {
    int dials = 600;
    int parallel = 16;
    TurnAwayServer server = new TurnAwayServer();
    server.start();
    // The DDP client sends from its event loop: one thread here too.
    ExecutorService loop = Executors.newSingleThreadExecutor();
    ExecutorService dialers = Executors.newFixedThreadPool(parallel);
    try {
      assertThat(server.started.await(10, SECONDS)).isTrue();
      URI uri = URI.create("ws://127.0.0.1:" + server.getPort() + "/websocket");
      WebSocketTransportFactory factory = new WebSocketTransportFactory();
      Map<String, Integer> closes = new ConcurrentHashMap<>();
      AtomicInteger left = new AtomicInteger(dials);
      List<CompletableFuture<Void>> runs = new ArrayList<>();
      for (int p = 0; p < parallel; p++) {
        runs.add(CompletableFuture.runAsync(() -> {
          while (left.getAndDecrement() > 0) {
            closes.merge(dialOnce(factory, uri, loop), 1, Integer::sum);
          }
        }, dialers));
      }
      CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(50, SECONDS);
      assertThat(new TreeMap<>(closes))
          .as("how each of %d turned-away dials was reported closed", dials)
          .containsOnlyKeys("1013 " + REASON + " (remote)");
    } finally {
      dialers.shutdownNow();
      loop.shutdownNow();
      server.stop(1000);
    }
  }

  /** One dial that sends a frame as soon as it is open; returns how its close was reported. */
  private static String dialOnce(WebSocketTransportFactory factory, URI uri, ExecutorService loop) {
    CompletableFuture<String> closed = new CompletableFuture<>();
    CompletableFuture<Transport> opened = new CompletableFuture<>();
    Transport t = null;
    try {
      t = factory.open(uri, new TransportListener() {
        @Override
        public void onOpen() {
          loop.execute(() -> opened.thenAccept(tr -> tr.send("{\"msg\":\"connect\"}")));
        }

        @Override
        public void onMessage(String text) {}

        @Override
        public void onClose(int code, String reason, boolean remote) {
          closed.complete(code + " " + reason + (remote ? " (remote)" : " (local)"));
        }

        @Override
        public void onError(Throwable error) {}
      });
      opened.complete(t);
      return closed.get(20, SECONDS);
    } catch (Exception e) {
      return "no close reported: " + e;
    } finally {
      if (t != null) {
        t.close(1000, "done");
        try {
          t.awaitTermination(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
