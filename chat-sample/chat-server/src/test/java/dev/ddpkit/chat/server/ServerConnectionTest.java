package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.java_websocket.SocketChannelIOHelper;
import org.java_websocket.WebSocket;
import org.java_websocket.drafts.Draft;
import org.java_websocket.drafts.Draft_6455;
import org.java_websocket.framing.CloseFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link ServerConnection}'s writes go to the socket from the sender's thread, only the rest is
 * queued for the selector, in order; the write kick looks only at connections that queued; and a
 * reset or the end of the stream reaches the worker as the end's mark, which ends the connection
 * as the selector would have.
 */
class ServerConnectionTest {
  private LoopbackPair sockets;
  private SocketChannel reader;
  private Selector selector;
  private GatheringChannel.Factory factory;
  private ServerConnection conn;
  private GatheringChannel channel;
  private SelectionKey key;
  private final List<String> closes = new CopyOnWriteArrayList<>();
  private final List<WebSocket> writeDemands = new CopyOnWriteArrayList<>();

  @BeforeEach
  void connect() throws Exception {
    sockets = new LoopbackPair();
    reader = sockets.reader;
    selector = sockets.selector;
    factory = new GatheringChannel.Factory();
    conn = (ServerConnection) factory.createWebSocket(new LoopbackPair.QuietListener() {
      @Override public void onWebsocketClose(WebSocket c, int code, String r, boolean remote) {
        closes.add(code + " " + r + " " + remote);
      }
      @Override public void onWriteDemand(WebSocket c) {
        writeDemands.add(c);
      }
    }, List.<Draft>of(new Draft_6455()));
    key = sockets.serverSide.register(selector, SelectionKey.OP_READ, conn);
    conn.setSelectionKey(key);
    channel = (GatheringChannel) factory.wrapChannel(sockets.serverSide, key);
    conn.setChannel(channel);
  }

  @AfterEach
  void close() throws Exception {
    sockets.close();
  }

  @Test
  void framesGoToTheSocketFromTheSendersThreadNothingQueuedNoWakeUp() throws Exception {
    conn.write(new ByteBuffer[] {ascii("one;"), ascii("two;"), ascii("three;")});

    assertThat(readExactly(14)).isEqualTo("one;two;three;".getBytes(StandardCharsets.US_ASCII));
    assertThat(conn.outQueue).isEmpty();
    assertThat(factory.queued()).isEmpty();
    assertThat(writeDemands).isEmpty();
  }

  @Test
  void whatTheKernelDoesNotTakeIsQueuedInOrderAndLaterFramesGoBehindIt() throws Exception {
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    List<ByteBuffer> first = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      byte[] frame = ("a longer frame, number " + i + ", with some padding to fill;")
          .getBytes(StandardCharsets.US_ASCII);
      expected.write(frame);
      first.add(ByteBuffer.wrap(frame));
    }
    conn.write(first.toArray(new ByteBuffer[0]));
    assertThat(conn.outQueue).as("the reader's buffers are full").isNotEmpty();
    assertThat(factory.queued()).containsExactly(conn);
    assertThat(writeDemands).containsExactly(conn);
    byte[] last = "the last one;".getBytes(StandardCharsets.US_ASCII);
    expected.write(last);
    int queuedBefore = conn.outQueue.size();
    conn.write(new ByteBuffer[] {ByteBuffer.wrap(last)});
    assertThat(conn.outQueue).as("behind the queue, not past it").hasSize(queuedBefore + 1);

    ByteArrayOutputStream got = new ByteArrayOutputStream();
    ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    while (!SocketChannelIOHelper.batch(conn, channel)) { // the selector's writes
      in.clear();
      int n = reader.read(in);
      got.write(in.array(), 0, n);
    }
    while (got.size() < expected.size()) {
      in.clear();
      int n = reader.read(in);
      got.write(in.array(), 0, n);
    }
    assertThat(got.toByteArray()).isEqualTo(expected.toByteArray());
  }

  @Test
  void theWriteKickLooksOnlyAtConnectionsThatQueuedAndForgetsThemOnceEmpty() throws Exception {
    List<WebSocket> kicked = new ArrayList<>();
    factory.kickStalled(kicked::add);
    assertThat(kicked).as("nothing queued: nothing looked at").isEmpty();

    conn.outQueue.add(ascii("stalled;")); // queued, its write interest lost (the library's race)
    factory.queued().add(conn);
    factory.kickStalled(kicked::add);
    assertThat(kicked).containsExactly(conn);
    assertThat(factory.queued()).as("still queued: looked at again").containsExactly(conn);

    key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
    factory.kickStalled(kicked::add);
    assertThat(kicked).as("a write interest is there: no kick").hasSize(1);

    SocketChannelIOHelper.batch(conn, channel);
    factory.kickStalled(kicked::add);
    assertThat(factory.queued()).as("written: forgotten").isEmpty();
    assertThat(readExactly(8)).isEqualTo("stalled;".getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void aResetReachesTheWorkerAsTheEndsMarkAndClosesAs1006() throws Exception {
    reader.setOption(StandardSocketOptions.SO_LINGER, 0);
    reader.close(); // a reset
    ByteBuffer buf = ByteBuffer.allocate(1024);
    int n = readUntilSomething(buf);

    assertThat(n).as("the end's mark, not an exception").isEqualTo(1);
    assertThat(channel.read(ByteBuffer.allocate(1024))).as("nothing more is read").isZero();
    selector.selectedKeys().clear();
    assertThat(key.interestOps() & SelectionKey.OP_READ).as("no read interest left").isZero();
    assertThat(selector.selectNow()).as("the selector no longer wakes for the reset").isZero();
    assertThat(closes).as("not closed by the selector").isEmpty();
    buf.flip();
    conn.decode(buf); // on the worker, in order
    assertThat(closes).hasSize(1);
    assertThat(closes.get(0)).startsWith(CloseFrame.ABNORMAL_CLOSE + " ").endsWith(" false");
    assertThat(key.isValid()).isFalse();
  }

  @Test
  void theEndOfTheStreamReachesTheWorkerAfterTheBytesBeforeIt() throws Exception {
    reader.write(ascii("GET /websocket HTTP/1.1\r\n")); // an upgrade begun, never finished
    reader.close();
    List<ByteBuffer> handed = new ArrayList<>();
    while (handed.isEmpty() || !channel.isEnd(handed.size())) {
      ByteBuffer buf = ByteBuffer.allocate(1024);
      if (readUntilSomething(buf) > 0) {
        buf.flip();
        handed.add(buf);
      }
    }
    assertThat(handed.size()).as("the bytes, then the mark").isGreaterThanOrEqualTo(2);
    for (ByteBuffer b : handed.subList(0, handed.size() - 1)) {
      conn.decode(b);
    }
    assertThat(closes).as("the bytes before the end are no end").isEmpty();
    conn.decode(handed.get(handed.size() - 1));
    assertThat(closes).containsExactly(CloseFrame.NEVER_CONNECTED + " " + " true");
  }

  private int readUntilSomething(ByteBuffer buf) throws Exception {
    for (int i = 0; i < 1_000; i++) {
      int n = channel.read(buf);
      if (n != 0) {
        return n;
      }
      selector.select(10);
      selector.selectedKeys().clear();
    }
    throw new AssertionError("nothing read");
  }

  private static ByteBuffer ascii(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
  }

  private byte[] readExactly(int n) throws Exception {
    return sockets.readExactly(n);
  }

}
