package dev.ddpkit.ddp.transport;

import java.nio.ByteBuffer;
import java.util.List;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.enums.Opcode;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.framing.Framedata;

/**
 * Java-WebSocket's RFC 6455 draft, handing a text message that came in one frame to {@link
 * WebSocketTransportClient#onText} as its UTF-8 bytes instead of a decoded {@code String}, and
 * cutting frames with a {@link FrameReader}.
 *
 * <p>Why: the library checks every text frame's UTF-8 as it reads the frame ({@code
 * TextFrame.isValid}, a state table walked byte by byte; 1007 if it is not UTF-8), then decodes
 * the same bytes again into a {@code String} (a {@code CharsetDecoder}, a {@code CharBuffer} and
 * the string: three passes and two copies per frame), which the JSON parser then copies into its
 * own buffer once more. The {@link FrameReader} checks the UTF-8 eight ASCII bytes at a time, and
 * the bytes it has checked are what the parser reads best. A fragmented message is assembled
 * within the limit by {@link BoundedMessageDraft}, checked by the library, and arrives as a {@code
 * String}; so do control frames and binary frames.
 *
 * <p>One instance serves one connection: the library calls {@link #copyInstance()} for each.
 * Frames of one connection are processed on its read thread.
 */
final class Utf8TextDraft extends BoundedMessageDraft {
  private final FrameReader reader;
  /** Whether a fragmented message is in progress: its continuation frames are the library's. */
  private boolean inFragments;

  Utf8TextDraft(int maxFrameBytes) {
    super(maxFrameBytes);
    this.reader = new FrameReader(maxFrameBytes);
  }

  @Override
  public Draft copyInstance() {
    return new Utf8TextDraft(maxMessageBytes());
  }

  @Override
  public List<Framedata> translateFrame(ByteBuffer buffer) throws InvalidDataException {
    return reader.read(buffer);
  }

  @Override
  public void processFrame(WebSocketImpl socket, Framedata frame) throws InvalidDataException {
    Opcode op = frame.getOpcode();
    if (op == Opcode.TEXT && frame.isFin() && !inFragments
        && socket.getWebSocketListener() instanceof WebSocketTransportClient client) {
      // Checked as UTF-8 when the frame was read (FrameReader): a bad one never gets here.
      try {
        client.onText(frame.getPayloadData());
      } catch (RuntimeException e) {
        socket.getWebSocketListener().onWebsocketError(socket, e); // as the library does
      }
      return;
    }
    if (op == Opcode.TEXT || op == Opcode.BINARY) {
      inFragments = !frame.isFin();
    } else if (op == Opcode.CONTINUOUS && frame.isFin()) {
      inFragments = false;
    }
    super.processFrame(socket, frame);
  }

  @Override
  public void reset() {
    super.reset();
    reader.reset();
    inFragments = false;
  }

  /** Copies a payload that is not backed by an accessible array (the library's are). */
  static byte[] bytes(ByteBuffer payload) {
    byte[] out = new byte[payload.remaining()];
    payload.duplicate().get(out);
    return out;
  }
}
