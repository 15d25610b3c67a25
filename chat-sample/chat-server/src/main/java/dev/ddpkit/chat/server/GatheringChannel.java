package dev.ddpkit.chat.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.java_websocket.WebSocket;
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
  /** Reads that returned bytes, the end's mark included; the selector thread's only. */
  private long reads;
  /** The ordinal (in {@link #reads}) of the read that returned the end's mark; 0 before. */
  private volatile long endRead;
  /** Why the stream ended, if by an error (a reset) rather than its end; set before {@link #endRead}. */
  private volatile IOException failure;

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

  /**
   * Writes {@code bytes} now from the calling thread (not the selector), as much as the kernel
   * takes in one system call; the caller queues what is left. Returns false if the socket failed
   * (nothing more is written; the selector meets the error when it writes the queue).
   */
  boolean writeNow(ByteBuffer[] bytes) {
    try {
      if (bytes.length == 1) {
        socket.write(bytes[0]);
      } else {
        socket.write(bytes);
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private int plainWrite(ByteBuffer src) throws IOException {
    socketWrites++;
    return socket.write(src);
  }

  /**
   * Reads as the socket does, but for a {@link ServerConnection} the end of the stream or a
   * failed read (a reset) is not reported to the selector: it returns one byte, the end's mark,
   * which the library hands to the connection's worker like any bytes read, and the worker ends
   * the connection as the selector would have ({@link ServerConnection#decode}); until then every
   * read returns nothing.
   *
   * <p>Why: Java-WebSocket ends a pass of its selector loop at a read's error or end (an exception
   * out of the pass, or a key cancelled before the pass is done with it), and the next pass starts
   * over with a new select, which reports every ready socket again. A wave of resets, each ending
   * a pass, cost a select and a visit of up to 256 ready sockets per reset: 0.2 ms per reset at
   * 1,000 connections, the largest part of the server's CPU in a network blip. Marked, a pass
   * goes through all of them, and the ends are handled on the workers in order after whatever the
   * connection sent before.
   */
  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (endRead != 0) {
      stopReading(); // a write's interest may have brought reading back
      return 0; // the end is on its way to the worker
    }
    int n;
    try {
      n = socket.read(dst);
    } catch (IOException e) {
      if (!(key.attachment() instanceof ServerConnection)) {
        throw e;
      }
      failure = e;
      n = -1;
    }
    if (n < 0 && key.attachment() instanceof ServerConnection && dst.hasRemaining()) {
      dst.put(END_MARK);
      endRead = ++reads;
      stopReading();
      return 1;
    }
    if (n > 0) {
      reads++;
    }
    return n;
  }

  /**
   * Takes the read interest off the key once the end is read: a socket at its end or reset stays
   * readable, so with the interest kept every select returned at once, and the selector spun,
   * until the worker closed the connection (in a wave of resets, behind the others' work).
   */
  private void stopReading() {
    if (key.isValid() && (key.interestOps() & SelectionKey.OP_READ) != 0) {
      key.interestOps(key.interestOps() & ~SelectionKey.OP_READ);
    }
  }

  /** The byte that stands for the stream's end in the buffer handed to the worker. */
  private static final byte END_MARK = 0;

  /**
   * Whether the buffer of read {@code ordinal} (counted from 1, the connection's count of the
   * buffers it decoded) is the end's mark.
   */
  boolean isEnd(long ordinal) {
    return ordinal == endRead;
  }

  /** The read's failure that ended the stream, or null if it ended without one. */
  IOException failure() {
    return failure;
  }

  @Override
  public boolean isOpen() {
    return socket.isOpen();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /**
   * Java-WebSocket's default factory, but each accepted socket a {@link ServerConnection} (its
   * frames written by the thread that sends them) wrapped in a {@link GatheringChannel}.
   */
  static final class Factory implements WebSocketServerFactory {
    /** The connections that queued bytes for the selector since the write kick last saw them. */
    private final Set<ServerConnection> queued = ConcurrentHashMap.newKeySet();
    /** A write kick is scheduled (or running and will look at the set again). */
    private final AtomicBoolean kickDue = new AtomicBoolean();
    /** Schedules one write kick; none until the server sets it. */
    private volatile Runnable scheduleKick = () -> { };

    /** Sets how to schedule a write kick (once, a few milliseconds from now). */
    void scheduleKicksWith(Runnable schedule) {
      this.scheduleKick = schedule;
    }

    /** A connection queued bytes: remembered, and a kick scheduled unless one is due. */
    void queuedBy(ServerConnection c) {
      queued.add(c);
      if (kickDue.compareAndSet(false, true)) {
        scheduleKick.run();
      }
    }

    /**
     * The scheduled write kick: {@link #kickStalled}, then another kick scheduled while some
     * connection still has bytes queued. Nothing is scheduled while nothing waits.
     */
    void kick(Consumer<WebSocket> writeDemand) {
      kickDue.set(false); // before the visit: a connection queued after it schedules the next
      try {
        kickStalled(writeDemand);
      } finally {
        if (!queued.isEmpty() && kickDue.compareAndSet(false, true)) {
          scheduleKick.run();
        }
      }
    }

    /** The connections that queued bytes (a live view; the write kick removes those it saw). */
    Set<ServerConnection> queued() {
      return queued;
    }

    /**
     * The write kick (see {@link Endpoint#flushStalledWrites}): of the connections that queued
     * bytes, forgets those whose queue is empty or that closed, and asks {@code writeDemand} to
     * write the others that have lost their write interest. Any thread.
     */
    void kickStalled(Consumer<WebSocket> writeDemand) {
      for (ServerConnection c : queued) {
        // Removed before its queue is looked at: a writer queues, then adds it (again).
        queued.remove(c);
        if (c.isClosed() || !c.hasBufferedData()) {
          continue;
        }
        queued.add(c);
        try {
          SelectionKey k = c.getSelectionKey();
          if (k != null && (k.interestOps() & SelectionKey.OP_WRITE) == 0) {
            writeDemand.accept(c);
          }
        } catch (CancelledKeyException e) {
          // closed meanwhile: its close clears its queue
        }
      }
    }

    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, Draft d) {
      return new ServerConnection(a, List.of(d), this);
    }

    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, List<Draft> drafts) {
      return new ServerConnection(a, drafts, this);
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
