package dev.ddpkit.chat.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.java_websocket.WebSocketAdapter;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.WebSocketServerFactory;
import org.java_websocket.drafts.Draft;

/**
 * The socket channel the selector thread writes a connection's frames through: the frames queued
 * behind the one it is asked to write go out in the same system call (a gathering write).
 *
 * <p>Java-WebSocket 1.6.0 queues one buffer per frame and writes the queue one buffer per {@code
 * write} call, so a backlog of 20,000 room events for one reader cost 20,000 system calls on the
 * selector thread, every socket's at once, and the readers received them a frame at a time (the
 * throughput benchmark's drain, BENCHMARKS.md 3b, ran at the selector's pace, the same for every
 * client). Here the library's call for the queue's head writes the head and up to {@link
 * #MAX_BUFFERS} buffers behind it ({@link #MAX_BYTES} at most) at once; the library then finds those
 * buffers written (nothing remaining) and moves past them, each of those calls returning at once.
 * What the kernel did not take stays where it was, as before: the first buffer with bytes left ends
 * the library's loop and the selector waits for the socket to be writable again.
 *
 * <p>Only the selector thread takes from a connection's queue (other threads add at its tail), so
 * the queue read here starts with the buffer being written; if it does not, the write is the
 * library's plain one.
 */
final class GatheringChannel implements ByteChannel {
  /** Buffers gathered into one system call at most. */
  static final int MAX_BUFFERS = 256;
  /** Bytes gathered into one system call at most. */
  static final long MAX_BYTES = 256 * 1024;

  private final SocketChannel socket;
  private final SelectionKey key;
  /** Reused by every write: the selector thread is the only writer. */
  private final ByteBuffer[] gathered = new ByteBuffer[MAX_BUFFERS];
  /** Writes made to the socket (system calls); the selector thread's only. */
  private long socketWrites;

  GatheringChannel(SocketChannel socket, SelectionKey key) {
    this.socket = socket;
    this.key = key;
  }

  /** Writes made to the socket so far (for tests). */
  long socketWrites() {
    return socketWrites;
  }

  /** The socket itself (for its options). */
  SocketChannel socket() {
    return socket;
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    if (!src.hasRemaining()) {
      return 0; // written by the gathering write of a buffer before it
    }
    if (!(key.attachment() instanceof WebSocketImpl ws)) {
      return plainWrite(src);
    }
    Iterator<ByteBuffer> queue = ws.outQueue.iterator();
    if (!queue.hasNext() || queue.next() != src) {
      return plainWrite(src);
    }
    int n = 0;
    long bytes = 0;
    gathered[n++] = src;
    bytes += src.remaining();
    while (n < MAX_BUFFERS && bytes < MAX_BYTES && queue.hasNext()) {
      ByteBuffer b = queue.next();
      gathered[n++] = b;
      bytes += b.remaining();
    }
    if (n == 1) {
      gathered[0] = null;
      return plainWrite(src);
    }
    int before = src.remaining();
    try {
      socketWrites++;
      socket.write(gathered, 0, n);
    } finally {
      Arrays.fill(gathered, 0, n, null);
    }
    return before - src.remaining();
  }

  private int plainWrite(ByteBuffer src) throws IOException {
    socketWrites++;
    return socket.write(src);
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    return socket.read(dst);
  }

  @Override
  public boolean isOpen() {
    return socket.isOpen();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** Java-WebSocket's default factory, but each accepted socket wrapped in a {@link GatheringChannel}. */
  static final class Factory implements WebSocketServerFactory {
    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, Draft d) {
      return new WebSocketImpl(a, d);
    }

    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, List<Draft> drafts) {
      return new WebSocketImpl(a, drafts);
    }

    @Override
    public ByteChannel wrapChannel(SocketChannel channel, SelectionKey key) {
      return new GatheringChannel(channel, key);
    }

    @Override
    public void close() {
      // nothing of its own to release
    }
  }
}
