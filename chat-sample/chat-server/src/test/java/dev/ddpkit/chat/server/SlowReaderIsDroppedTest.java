package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
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
    try (Socket paused = new Socket()) {
      paused.setReceiveBufferSize(16 * 1024); // before connect: the window it advertises
      paused.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), s.port()), 5000);
      OutputStream out = paused.getOutputStream();
      out.write(("GET /websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
          + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
          + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      send(out, "{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
      String bigId = "p".repeat(60_000);
      int pings = 0;
      try {
        // Kernel buffers on loopback hold a few MiB before anything stays queued in the server.
        while (s.stats().slowReadersDropped() == 0 && pings < 2_000) {
          send(out, "{\"msg\":\"ping\",\"id\":\"" + bigId + pings + "\"}");
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

  /** One masked text frame. */
  private static void send(OutputStream out, String text) throws IOException {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream f = new ByteArrayOutputStream(data.length + 14);
    f.write(0x81);
    if (data.length < 126) {
      f.write(0x80 | data.length);
    } else {
      f.write(0x80 | 126);
      f.write(data.length >>> 8);
      f.write(data.length);
    }
    byte[] mask = new byte[4];
    ThreadLocalRandom.current().nextBytes(mask);
    f.write(mask, 0, 4);
    for (int i = 0; i < data.length; i++) {
      f.write(data[i] ^ mask[i & 3]);
    }
    out.write(f.toByteArray());
    out.flush();
  }
}
