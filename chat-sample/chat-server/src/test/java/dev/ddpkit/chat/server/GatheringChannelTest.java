package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.java_websocket.SocketChannelIOHelper;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.drafts.Draft_6455;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The selector's writes through {@link GatheringChannel}, driven as Java-WebSocket drives them
 * ({@link SocketChannelIOHelper#batch}): a queue of frames leaves in a few system calls, whole and
 * in order, also when the reader does not keep up and the kernel takes only part of it.
 */
class GatheringChannelTest {
  private LoopbackPair sockets;
  private SocketChannel reader;
  private WebSocketImpl ws;
  private GatheringChannel channel;

  @BeforeEach
  void connect() throws Exception {
    sockets = new LoopbackPair();
    reader = sockets.reader;
    ws = new WebSocketImpl(new LoopbackPair.QuietListener(), List.<Draft>of(new Draft_6455()));
    SelectionKey key = sockets.serverSide.register(sockets.selector, SelectionKey.OP_READ, ws);
    channel = (GatheringChannel) new GatheringChannel.Factory().wrapChannel(sockets.serverSide, key);
  }

  @AfterEach
  void close() throws Exception {
    sockets.close();
  }

  @Test
  void aQueueOfFramesLeavesInAFewSystemCallsWholeAndInOrder() throws Exception {
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (int i = 0; i < 100; i++) {
      byte[] frame = ("frame " + i + ";").getBytes(StandardCharsets.US_ASCII);
      expected.write(frame);
      ws.outQueue.put(ByteBuffer.wrap(frame));
    }
    boolean flushed = SocketChannelIOHelper.batch(ws, channel);

    assertThat(flushed).isTrue();
    assertThat(ws.outQueue).isEmpty();
    assertThat(channel.socketWrites()).isEqualTo(1);
    assertThat(readExactly(expected.size())).isEqualTo(expected.toByteArray());
  }

  @Test
  void whatTheKernelDoesNotTakeStaysQueuedInOrderUntilTheReaderReads() throws Exception {
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (int i = 0; i < 5_000; i++) {
      byte[] frame = ("a longer frame, number " + i + ", with some padding to fill;")
          .getBytes(StandardCharsets.US_ASCII);
      expected.write(frame);
      ws.outQueue.put(ByteBuffer.wrap(frame));
    }
    int frames = ws.outQueue.size();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    int batches = 0;
    while (!SocketChannelIOHelper.batch(ws, channel)) { // the reader's buffers are full
      batches++;
      assertThat(ws.outQueue).isNotEmpty();
      in.clear();
      int n = reader.read(in); // blocking: at least some of what was written
      got.write(in.array(), 0, n);
    }
    while (got.size() < expected.size()) {
      in.clear();
      int n = reader.read(in);
      got.write(in.array(), 0, n);
    }

    assertThat(batches).isPositive();
    assertThat(got.toByteArray()).isEqualTo(expected.toByteArray());
    assertThat(channel.socketWrites()).isLessThan(frames / 10);
  }

  private byte[] readExactly(int n) throws Exception {
    return sockets.readExactly(n);
  }

}
