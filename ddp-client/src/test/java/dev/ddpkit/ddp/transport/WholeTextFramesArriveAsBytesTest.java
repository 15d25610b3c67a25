package dev.ddpkit.ddp.transport;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.java_websocket.WebSocket;
import org.java_websocket.framing.ContinuousFrame;
import org.java_websocket.framing.DataFrame;
import org.java_websocket.framing.TextFrame;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The default transport hands a text message that came in one frame to {@link
 * TransportListener#onText} as the bytes the library checked (no string made), and one that came
 * in fragments to {@link TransportListener#onMessage(String)} as before; a whole text frame in the
 * middle of a fragmented message is still the protocol error it is (1002).
 */
@Timeout(value = 30, unit = SECONDS)
class WholeTextFramesArriveAsBytesTest {
  private static final String WIDE = "whole ✓ 日本 😀";

  /** A server that sends what the test says as soon as a client is open. */
  private static final class Sender extends WebSocketServer {
    final CountDownLatch started = new CountDownLatch(1);
    private final Consumer<WebSocket> onOpen;

    Sender(Consumer<WebSocket> onOpen) {
      super(new InetSocketAddress("127.0.0.1", 0));
      this.onOpen = onOpen;
      setReuseAddr(true);
    }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) {
      onOpen.accept(conn);
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

  /** Records each event as "bytes:text", "string:text" or "close:code". */
  private static final class Recorder implements TransportListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void onOpen() {}

    @Override
    public void onMessage(String text) {
      events.add("string:" + text);
    }

    @Override
    public void onText(byte[] utf8, int offset, int length) {
      events.add("bytes:" + new String(utf8, offset, length, StandardCharsets.UTF_8));
    }

    @Override
    public void onClose(int code, String reason, boolean remote) {
      events.add("close:" + code);
    }

    @Override
    public void onError(Throwable error) {}
  }

  @Test
  void aWholeFrameArrivesAsBytesAndAFragmentedMessageAsAString() throws Exception {
    byte[] fragmented = ("fragmented " + WIDE).getBytes(StandardCharsets.UTF_8);
    List<String> events = exchange(conn -> {
      conn.send(WIDE);
      conn.sendFrame(frame(new TextFrame(), fragmented, 0, 5, false));
      conn.sendFrame(frame(new ContinuousFrame(), fragmented, 5, fragmented.length, true));
      conn.send("after");
    }, 3);

    assertThat(events).containsExactly(
        "bytes:" + WIDE, "string:fragmented " + WIDE, "bytes:after");
  }

  @Test
  void aWholeTextFrameInsideAFragmentedMessageIsAProtocolError() throws Exception {
    byte[] first = "first half".getBytes(StandardCharsets.UTF_8);
    List<String> events = exchange(conn -> {
      conn.sendFrame(frame(new TextFrame(), first, 0, first.length, false));
      conn.send("a whole frame before the fragments ended");
    }, 1);

    assertThat(events).containsExactly("close:1002");
  }

  private static List<String> exchange(Consumer<WebSocket> send, int expected) throws Exception {
    Sender server = new Sender(send);
    server.start();
    Transport t = null;
    try {
      assertThat(server.started.await(10, SECONDS)).isTrue();
      Recorder recorder = new Recorder();
      t = new WebSocketTransportFactory().open(
          URI.create("ws://127.0.0.1:" + server.getPort() + "/websocket"), recorder);
      await().atMost(Duration.ofSeconds(10)).until(() -> recorder.events.size() >= expected);
      return List.copyOf(recorder.events.subList(0, expected));
    } finally {
      if (t != null) {
        t.close(1000, "done");
        t.awaitTermination(Duration.ofSeconds(5));
      }
      server.stop(1000);
    }
  }

  private static DataFrame frame(DataFrame f, byte[] bytes, int from, int to, boolean fin) {
    f.setPayload(ByteBuffer.wrap(bytes, from, to - from).slice());
    f.setFin(fin);
    return f;
  }
}
