package dev.ddpkit.ddp.transport;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.drafts.Draft_6455;
import org.java_websocket.enums.Opcode;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.exceptions.LimitExceededException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.framing.Framedata;
import org.java_websocket.framing.FramedataImpl1;

/**
 * Java-WebSocket's RFC 6455 draft with a limit on a whole message, checked on every fragment: a
 * peer that sends a text frame without FIN and then continuation frames for ever is closed with
 * 1009 as soon as the running total passes the limit, and what it had sent is let go at once.
 *
 * <p>Java-WebSocket 1.6.0 checks a fragmented message's size only at its first and its final
 * fragment, and buffers every continuation frame in between unchecked, so one socket can fill the
 * heap (upstream: <a href="https://github.com/TooTallNate/Java-WebSocket/issues/1508">
 * TooTallNate/Java-WebSocket#1508</a>, open). Until that is fixed, this draft assembles fragmented
 * messages itself, into one array that never grows past the limit (a peer sending one-byte
 * fragments costs the same as one sending large ones), and hands the whole message to the library
 * as a single frame. Frames that are not fragmented go to the library unchanged; the library
 * still refuses a single frame over the limit from its header alone.
 *
 * <p>It is the server's as well: the embedded chat server ({@code chat-server}'s {@code
 * ServerDraft}) extends it with the checks a server makes of client frames, so the client and the
 * server share one implementation of the limit.
 *
 * <p>One instance serves one connection: the library calls {@link #copyInstance()} for each, and
 * the copy is of this class with the same limit (a subclass overrides it to copy itself; one that
 * does not still gets the limit). Frames of one connection are processed on one
 * thread at a time; {@link #reset()} (the library calls it on close) may come from another.
 */
public class BoundedMessageDraft extends Draft_6455 {
  private final int maxMessageBytes;
  /** The message being assembled from fragments; guarded by {@code this}. */
  private Opcode fragmentedType;
  private byte[] fragments = new byte[0];
  private int fragmentedBytes;

  /**
   * Creates a draft that accepts messages, fragmented or not, of up to {@code maxMessageBytes}.
   *
   * @param maxMessageBytes the largest message (and frame) accepted, 1 or more
   */
  public BoundedMessageDraft(int maxMessageBytes) {
    super(List.of(), checkPositive(maxMessageBytes));
    this.maxMessageBytes = maxMessageBytes;
  }

  private static int checkPositive(int maxMessageBytes) {
    if (maxMessageBytes < 1) {
      throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
    }
    return maxMessageBytes;
  }

  /** The largest message accepted, in bytes. */
  public int maxMessageBytes() {
    return maxMessageBytes;
  }

  /** Bytes of a fragmented message held now, waiting for its last fragment. */
  public synchronized int bufferedBytes() {
    return fragmentedBytes;
  }

  @Override
  public Draft copyInstance() {
    return new BoundedMessageDraft(maxMessageBytes);
  }

  @Override
  public void processFrame(WebSocketImpl socket, Framedata frame) throws InvalidDataException {
    Opcode op = frame.getOpcode();
    if (op == Opcode.CLOSING || op == Opcode.PING || op == Opcode.PONG) {
      super.processFrame(socket, frame); // control frames may come between fragments
      return;
    }
    FramedataImpl1 whole;
    synchronized (this) {
      whole = assemble(op, frame);
    }
    if (whole != null) {
      super.processFrame(socket, whole);
    }
  }

  /** The frame to hand to the library, or {@code null} while a message is still in fragments. */
  private FramedataImpl1 assemble(Opcode op, Framedata frame) throws InvalidDataException {
    if (op == Opcode.CONTINUOUS) {
      if (fragmentedType == null) {
        throw new InvalidDataException(CloseFrame.PROTOCOL_ERROR,
            "a continuation frame with no message to continue");
      }
      append(frame.getPayloadData());
      return frame.isFin() ? completed() : null;
    }
    if (fragmentedType != null) {
      throw new InvalidDataException(CloseFrame.PROTOCOL_ERROR,
          "a new message before the fragmented one ended");
    }
    if (frame.isFin()) {
      return (FramedataImpl1) frame;
    }
    fragmentedType = op;
    append(frame.getPayloadData());
    return null;
  }

  private void append(ByteBuffer payload) throws LimitExceededException {
    int n = payload.remaining();
    if ((long) fragmentedBytes + n > maxMessageBytes) {
      release();
      throw new LimitExceededException(
          "a fragmented message over " + maxMessageBytes + " bytes", maxMessageBytes);
    }
    if (fragmentedBytes + n > fragments.length) {
      int capacity = Math.max(fragmentedBytes + n, fragments.length * 2);
      fragments = Arrays.copyOf(fragments, Math.min(maxMessageBytes, capacity));
    }
    payload.get(fragments, fragmentedBytes, n);
    fragmentedBytes += n;
  }

  private FramedataImpl1 completed() {
    FramedataImpl1 whole = FramedataImpl1.get(fragmentedType);
    whole.setFin(true);
    whole.setPayload(ByteBuffer.wrap(fragments, 0, fragmentedBytes));
    fragments = new byte[0]; // the message now owns the array
    fragmentedBytes = 0;
    fragmentedType = null;
    return whole;
  }

  private void release() {
    fragments = new byte[0];
    fragmentedBytes = 0;
    fragmentedType = null;
  }

  /** Also lets go of a fragmented message in progress; the library calls it on close. */
  @Override
  public void reset() {
    super.reset();
    synchronized (this) {
      release();
    }
  }

  @Override
  public String toString() {
    return "BoundedMessageDraft{maxMessageBytes=" + maxMessageBytes + "}";
  }
}
