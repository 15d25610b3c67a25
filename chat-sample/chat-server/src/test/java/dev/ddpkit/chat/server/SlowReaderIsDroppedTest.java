package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.server.testing.RawPeer;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that never reads but keeps pinging (each ping with a large id, so each pong is large)
 * was held without bound: its pongs piled up in the server's heap. Now it is dropped with 1008
 * once more than the send-queue limit waits for it, counted in the stats, and a healthy client
 * beside it is served throughout.
 */
@Timeout(value = 60, unit = SECONDS)
class SlowReaderIsDroppedTest extends ServerTestSupport {
  private static final long LIMIT = 256 * 1024;

  @Test
  void aPingingClientThatNeverReadsIsDroppedWith1008AtTheByteLimit() throws Exception {
    List<Integer> closes = new CopyOnWriteArrayList<>();
    ChatServer s = startSeeded(b -> b.maxSendQueueBytes(LIMIT)
        .connectionListener(new ServerConnectionListener() {
          @Override
          public void closed(long epochMillis, int code, boolean remote) {
            closes.add(code);
          }
        }));
    DdpPeer healthy = login(s, "alice");
    // A receive buffer set before it connects: the window it advertises.
    try (RawPeer paused = RawPeer.builder(s.url()).receiveBuffer(16 * 1024).dial()) {
      paused.sendText("{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
      String bigId = "p".repeat(60_000);
      int pings = 0;
      try {
        // Kernel buffers on loopback hold a few MiB before anything stays queued in the server.
        while (s.stats().slowReadersDropped() == 0 && pings < 2_000) {
          paused.sendText("{\"msg\":\"ping\",\"id\":\"" + bigId + pings + "\"}");
          pings++;
          if (pings % 200 == 0) { // loadHistory: 10 per 10 s
            assertThat(healthy.call("loadHistory", "general", null, 1, null).has("result"))
                .as("the healthy client is served while the other does not read").isTrue();
          }
        }
      } catch (IOException e) {
        // reset by the server: dropped
      }
      await().atMost(10, SECONDS).until(() -> s.stats().slowReadersDropped() == 1);
      await().atMost(10, SECONDS).until(() -> closes.contains(SendQueues.SLOW_READER_CODE));
    }
    assertThat(healthy.call("loadHistory", "general", null, 1, null).has("result")).isTrue();
  }
}
