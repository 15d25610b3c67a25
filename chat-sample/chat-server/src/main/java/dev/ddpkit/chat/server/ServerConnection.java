package dev.ddpkit.chat.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.WebSocketListener;
import org.java_websocket.drafts.Draft;
import org.java_websocket.enums.Opcode;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.framing.Framedata;

/**
 * A server connection whose frames go to the socket from the thread that sends them, in one
 * (gathering) system call, when nothing is queued before them; only what the kernel does not
 * take is queued for the selector thread, as Java-WebSocket queues everything.
 *
 * <p>Java-WebSocket 1.6.0 queues each frame and asks the selector to write it: a new write
 * interest (an {@code epoll_ctl}) and a wake-up per frame, the selector's pass, its write, and the
 * interest taken back (another {@code epoll_ctl}). Worse, it never removes a key it wrote to from
 * its selected-key set (only one it read from or accepted), so each key written to stayed in the
 * set and was visited, an empty queue written and its interest set again, on every later pass of
 * the selector until its client next sent something; a reset ends a pass, so each of a wave of
 * resets cost a visit of every such key (about 0.2 ms per reset at 1,000 connections, most of the
 * server's CPU in a blip). Written here, a frame leaves in one {@code write} and the key is not
 * selected for it.
 *
 * <p>Order: every frame written after the upgrade goes through {@link #sendFrame(Collection)}
 * (the library's close frames and pongs too: it calls these public methods), under one lock per
 * connection, and a frame is written directly only when the queue is empty, that is when the
 * selector has handed every queued byte to the kernel (it takes a buffer off the queue only once
 * written). The upgrade's answer comes through {@link #write} from {@link ServerDraft}.
 *
 * <p>A queued remainder leaves as before (the selector's gathering write); the connection is
 * added to the factory's set of those that queued, which the server's write kick and send-queue
 * bound visit, so they look only at connections with something queued, and a kick is scheduled
 * only while some connection has (see {@link Endpoint#flushStalledWrites}).
 *
 * <p>The upgrade's answer is held back until the connection's first frame (the server's {@code
 * server_id}, sent as the connection opens, on the same thread) and leaves with it in one write.
 */
final class ServerConnection extends WebSocketImpl {
  /** Guards the choice between the socket and the queue, and the order of what is written. */
  private final Object sendLock = new Object();
  /**
   * Buffers decoded so far: the first ones perhaps by the selector, then by the connection's
   * worker (see {@link Endpoint#queue}); the worker's queue orders the two.
   */
  private long decoded;
  /**
   * Reads the selector decoded itself ({@link Endpoint#queue}), or -1 once it handed one to the
   * worker: every later read goes there too. The selector's only.
   */
  private int readsOnSelector;
  private final GatheringChannel.Factory sockets;
  /**
   * The upgrade's answer, held back until this connection's first frame (the server's hello, or
   * a close) so that both leave in one write, or until the decode that made it ends; guarded by
   * {@link #sendLock}.
   */
  private ByteBuffer[] upgradeAnswer;

  ServerConnection(WebSocketListener listener, List<Draft> drafts,
      GatheringChannel.Factory sockets) {
    super(listener, drafts);
    this.sockets = sockets;
  }

  /** Holds the upgrade's answer back (see {@link #upgradeAnswer}); the decoding thread. */
  void holdUpgradeAnswer(ByteBuffer[] bytes) {
    synchronized (sendLock) {
      upgradeAnswer = bytes;
    }
  }

  /**
   * Writes the upgrade's answer if it is still held back, under the lock that orders writes (so no
   * frame sent meanwhile from another thread, a drain's close, say, can leave before it).
   */
  private void flushUpgradeAnswer() {
    synchronized (sendLock) {
      if (upgradeAnswer != null) {
        write(new ByteBuffer[0]); // the held answer alone
      }
    }
  }

  /**
   * Decodes the bytes read, or, for the end's mark the selector read in place of the stream's
   * end or a reset (see {@link GatheringChannel#read}), ends the connection as the selector would
   * have: a failed read closes it as abnormal (1006, the failure's message), the end of the stream
   * as the library's end of transmission does. On the connection's worker (the selector
   * decodes only first reads that are no end: {@link SelectorDecodes}), after the bytes read
   * before it.
   */
  @Override
  public void decode(ByteBuffer bytes) {
    decoded++;
    if (getChannel() instanceof GatheringChannel channel && channel.isEnd(decoded)) {
      bytes.position(bytes.limit());
      IOException failure = channel.failure();
      if (failure == null) {
        eot();
        return;
      }
      closeConnection(CloseFrame.ABNORMAL_CLOSE, failure.getMessage()); // cancels the key too
      return;
    }
    try {
      super.decode(bytes);
    } finally {
      flushUpgradeAnswer(); // an upgrade that sent nothing yet: its answer alone
    }
  }

  /**
   * Whether the selector may decode this connection's next read itself: it has handed none to the
   * worker (so the worker holds none of its bytes) and decoded fewer than {@code max} itself. The
   * selector only.
   */
  boolean selectorMayDecode(int max) {
    return readsOnSelector >= 0 && readsOnSelector < max;
  }

  /** The selector decodes this connection's next read itself. */
  void decodingOnSelector() {
    readsOnSelector++;
  }

  /** The selector hands this connection's next read to its worker, and every later one. */
  void handedToWorker() {
    readsOnSelector = -1;
  }

  /**
   * As the library's, and a refused upgrade is closed once its HTTP error answer is written. The
   * library queues that answer (its own private write, not {@link #write}) and its selector closes
   * a connection that is flushed and closing only if it has a draft, that is only an upgrade that
   * succeeded: one refused (a wrong path, a request too long) stayed open after its answer until
   * the peer closed it or the upgrade deadline dropped it. Here the answer is written from this
   * thread and the socket closed; if the kernel does not take all of it, the rest is left to the
   * selector and the deadline closes the socket, as before.
   */
  @Override
  public synchronized void flushAndClose(int code, String message, boolean remote) {
    super.flushAndClose(code, message, remote);
    if (getDraft() != null) {
      return;
    }
    synchronized (sendLock) {
      if (getChannel() instanceof GatheringChannel channel) {
        // The selector may be writing the same buffer: a socket's writes, each with its
        // buffer's position moved, are serialised by the channel, so no byte leaves twice.
        for (ByteBuffer b = outQueue.peek(); b != null; b = outQueue.peek()) {
          if (!channel.writeNow(new ByteBuffer[] {b}) || b.hasRemaining()) {
            return;
          }
          outQueue.poll();
        }
      }
      if (!outQueue.isEmpty()) {
        return;
      }
    }
    closeConnection();
  }

  @Override
  public void send(String text) {
    if (text == null) {
      throw new IllegalArgumentException("Cannot send 'null' data to a WebSocketImpl.");
    }
    openDraft();
    write(new ByteBuffer[] {textFrame(text)});
  }

  /**
   * Sends each of {@code texts} as a text frame, in order, in one write: a resume's {@code
   * connected} and its replay.
   */
  void sendTexts(List<String> texts) {
    openDraft();
    ByteBuffer[] bytes = new ByteBuffer[texts.size()];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = textFrame(texts.get(i));
    }
    write(bytes);
  }

  /**
   * One unfragmented, unmasked text frame (RFC 6455 section 5.2: a server's frames are not
   * masked) in one buffer, header and payload. The library's way (a frame object, a UTF-8 check
   * of the payload, a header and a payload buffer copied into a third) is for any frame; a Java
   * string's UTF-8 is valid by construction (a lone surrogate becomes {@code ?}).
   */
  static ByteBuffer textFrame(String text) {
    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
    int n = payload.length;
    int header = n < 126 ? 2 : n <= 0xFFFF ? 4 : 10;
    ByteBuffer frame = ByteBuffer.allocate(header + n);
    frame.put((byte) 0x81); // FIN, opcode 1 (text)
    if (n < 126) {
      frame.put((byte) n);
    } else if (n <= 0xFFFF) {
      frame.put((byte) 126).putShort((short) n);
    } else {
      frame.put((byte) 127).putLong(n);
    }
    return frame.put(payload).flip();
  }

  @Override
  public void send(ByteBuffer bytes) {
    if (bytes == null) {
      throw new IllegalArgumentException("Cannot send 'null' data to a WebSocketImpl.");
    }
    sendFrame(openDraft().createFrames(bytes, false));
  }

  @Override
  public void send(byte[] bytes) {
    send(ByteBuffer.wrap(bytes));
  }

  @Override
  public void sendFragmentedFrame(Opcode op, ByteBuffer buffer, boolean fin) {
    sendFrame(openDraft().continuousFrame(op, buffer, fin));
  }

  @Override
  public void sendFrame(Framedata frame) {
    sendFrame(Collections.singletonList(frame));
  }

  @Override
  public void sendFrame(Collection<Framedata> frames) {
    if (frames == null) {
      throw new IllegalArgumentException();
    }
    Draft draft = openDraft();
    ByteBuffer[] bytes = new ByteBuffer[frames.size()];
    int i = 0;
    for (Framedata f : frames) {
      bytes[i++] = draft.createBinaryFrame(f);
    }
    write(bytes);
  }

  /** The draft of an open connection; throws as the library does for one not open. */
  private Draft openDraft() {
    if (!isOpen()) {
      throw new WebsocketNotConnectedException();
    }
    return getDraft();
  }

  /**
   * Writes {@code bytes} in order after everything written before: to the socket now if nothing
   * is queued, as much as the kernel takes; the rest queued for the selector. A socket that fails
   * is left to the selector too: it meets the error when it writes the queue, and closes the
   * connection as it always did.
   */
  void write(ByteBuffer[] bytes) {
    boolean wait = false;
    synchronized (sendLock) {
      if (upgradeAnswer != null) { // the first frame: it leaves with the answer
        ByteBuffer[] both = new ByteBuffer[upgradeAnswer.length + bytes.length];
        System.arraycopy(upgradeAnswer, 0, both, 0, upgradeAnswer.length);
        System.arraycopy(bytes, 0, both, upgradeAnswer.length, bytes.length);
        upgradeAnswer = null;
        bytes = both;
      }
      int first = 0;
      if (outQueue.isEmpty() && getChannel() instanceof GatheringChannel channel
          && channel.writeNow(bytes)) {
        while (first < bytes.length && !bytes[first].hasRemaining()) {
          first++;
        }
      }
      for (int k = first; k < bytes.length; k++) {
        outQueue.add(bytes[k]);
        wait = true;
      }
    }
    if (wait) {
      getWebSocketListener().onWriteDemand(this);
      sockets.queuedBy(this);
    }
  }
}
