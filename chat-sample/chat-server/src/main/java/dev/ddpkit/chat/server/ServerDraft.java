package dev.ddpkit.chat.server;

import dev.ddpkit.ddp.transport.BoundedMessageDraft;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.framing.Framedata;
import org.java_websocket.handshake.Handshakedata;

/**
 * The server's RFC 6455 draft: the client transport's {@link BoundedMessageDraft} (a limit on a
 * whole message, checked on every fragment: 1009), plus what a server checks of a client's
 * frames: each must be masked ({@link MaskBitCheck}: 1002 if not).
 *
 * <p>A connection closed for its bad input is closed here, and logged by the {@link PeerErrorLog}
 * (one line, rate-limited per address), instead of by Java-WebSocket: the library logs every
 * refused frame as an ERROR with a stack trace, so a peer sending bad frames could flood the log.
 * For that the draft knows its socket: {@link Endpoint} binds it at the upgrade. An unbound draft
 * leaves refused frames to the library, as the plain draft does.
 *
 * <p>One instance serves one connection: the library calls {@link #copyInstance()} for each, and
 * the copy is of this class with the same limit and log. Frames of one connection are read and
 * processed on one worker thread.
 */
final class ServerDraft extends BoundedMessageDraft {
  private final PeerErrorLog errors;
  private final MaskBitCheck masks = new MaskBitCheck();
  private volatile WebSocket socket;
  /** Set once this draft has closed its connection: nothing more of it is read. */
  private volatile boolean refused;

  /**
   * Creates a draft that accepts messages, fragmented or not, of up to {@code maxMessageBytes}.
   *
   * @param maxMessageBytes the largest message (and frame) accepted, 1 or more
   * @param errors where connections closed for bad input are logged
   */
  ServerDraft(int maxMessageBytes, PeerErrorLog errors) {
    super(maxMessageBytes);
    this.errors = Objects.requireNonNull(errors, "errors");
  }

  @Override
  public Draft copyInstance() {
    return new ServerDraft(maxMessageBytes(), errors);
  }

  /**
   * The upgrade's answer, written by the connection itself (see {@link ServerConnection}: from
   * this worker thread, with the connection's first frame, in one system call and with no wake-up
   * of the selector), so the library has nothing left to queue. Unbound, or for another kind of
   * connection, the library's.
   */
  @Override
  public List<ByteBuffer> createHandshake(Handshakedata handshake) {
    List<ByteBuffer> bytes = super.createHandshake(handshake);
    if (socket instanceof ServerConnection own) {
      own.holdUpgradeAnswer(bytes.toArray(new ByteBuffer[0]));
      return List.of();
    }
    return bytes;
  }

  /** The connection this draft reads, told by {@link Endpoint} at the upgrade. */
  void bind(WebSocket conn) {
    this.socket = conn;
  }

  @Override
  public List<Framedata> translateFrame(ByteBuffer buffer) throws InvalidDataException {
    if (refused) {
      buffer.position(buffer.limit());
      return List.of();
    }
    try {
      masks.check(buffer);
      return super.translateFrame(buffer);
    } catch (InvalidDataException e) {
      refuse(socket, e);
      return List.of();
    }
  }

  @Override
  public void processFrame(WebSocketImpl conn, Framedata frame) throws InvalidDataException {
    if (refused) {
      return; // the other frames read with the one refused
    }
    try {
      super.processFrame(conn, frame);
    } catch (InvalidDataException e) {
      refuse(conn, e);
    }
  }

  /** Closes {@code conn} with the code of {@code e} and logs it once; unbound, rethrows it. */
  private void refuse(WebSocket conn, InvalidDataException e) throws InvalidDataException {
    if (conn == null) {
      throw e;
    }
    refused = true;
    errors.closed(OpenSockets.addressOf(conn), e.getCloseCode(), e.getMessage());
    conn.close(e.getCloseCode(), e.getMessage());
  }

  @Override
  public void reset() {
    super.reset();
    masks.reset();
  }

  @Override
  public String toString() {
    return "ServerDraft{maxMessageBytes=" + maxMessageBytes() + "}";
  }
}
