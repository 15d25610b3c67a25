package dev.ddpkit.ddp.transport;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.java_websocket.enums.Opcode;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.exceptions.InvalidFrameException;
import org.java_websocket.exceptions.LimitExceededException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.framing.Framedata;
import org.java_websocket.framing.FramedataImpl1;

/**
 * Cuts the bytes read from one socket into RFC 6455 frames, as Java-WebSocket 1.6.0's {@code
 * Draft_6455.translateFrame} does, with the same checks and close codes (an unknown opcode, a
 * reserved bit, a control frame over 125 bytes or in pieces: 1002; a frame over the size limit:
 * 1009), but one pass cheaper: a whole text frame's UTF-8 is checked here, eight ASCII bytes at a
 * time (the library's check walks a state table byte by byte, then decodes the text again), and
 * the first fragment of a fragmented text message is not checked alone, since the library checks
 * the assembled message (a character may straddle two fragments). Not thread-safe: one per
 * connection, used by its read thread.
 */
final class FrameReader {
  private final int maxFrameBytes;
  /** The start of a frame that did not fit in what was read, sized to what it needs so far. */
  private ByteBuffer pending;

  FrameReader(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  /** A frame is not all there yet: {@code needed} bytes from its first would be enough to go on. */
  private static final class Incomplete extends Exception {
    private static final long serialVersionUID = 1L;
    final int needed;

    Incomplete(int needed) {
      super(null, null, /* enableSuppression= */ false, /* writableStackTrace= */ false);
      this.needed = needed;
    }
  }

  /**
   * The frames completed by {@code buffer} (a heap buffer, read from its position to its limit,
   * all of it consumed); the bytes of a frame not complete yet are kept for the next call.
   */
  List<Framedata> read(ByteBuffer buffer) throws InvalidDataException {
    List<Framedata> frames = new ArrayList<>();
    while (pending != null) {
      int take = Math.min(pending.remaining(), buffer.remaining());
      pending.put(buffer.array(), buffer.arrayOffset() + buffer.position(), take);
      ((Buffer) buffer).position(buffer.position() + take); // Buffer's: Android has no other
      if (pending.hasRemaining()) {
        return frames;
      }
      ByteBuffer whole = pending.duplicate();
      ((Buffer) whole).flip();
      try {
        frames.add(frame(whole));
        pending = null;
      } catch (Incomplete e) {
        ByteBuffer bigger = ByteBuffer.allocate(e.needed); // the header said more than we had
        ((Buffer) pending).flip();
        bigger.put(pending);
        pending = bigger;
      }
    }
    while (buffer.hasRemaining()) {
      int start = buffer.position();
      try {
        frames.add(frame(buffer));
      } catch (Incomplete e) {
        ((Buffer) buffer).position(start);
        pending = ByteBuffer.allocate(e.needed);
        pending.put(buffer);
        break;
      }
    }
    return frames;
  }

  /** Forgets a frame in progress (the connection is closed or reset). */
  void reset() {
    pending = null;
  }

  /** Reads one frame from {@code b}'s position, which it leaves after the frame. */
  private Framedata frame(ByteBuffer b) throws Incomplete, InvalidDataException {
    int available = b.remaining();
    int headerBytes = 2;
    need(available, headerBytes);
    byte b1 = b.get();
    byte b2 = b.get();
    boolean fin = (b1 & 0x80) != 0;
    boolean rsv1 = (b1 & 0x40) != 0;
    boolean rsv2 = (b1 & 0x20) != 0;
    boolean rsv3 = (b1 & 0x10) != 0;
    boolean masked = (b2 & 0x80) != 0;
    Opcode opcode = opcode(b1 & 0x0F);
    long length = b2 & 0x7F;
    if (length > 125) {
      if (opcode == Opcode.PING || opcode == Opcode.PONG || opcode == Opcode.CLOSING) {
        throw new InvalidFrameException("more than 125 octets");
      }
      if (length == 126) {
        headerBytes += 2;
        need(available, headerBytes);
        length = b.getShort() & 0xFFFF;
      } else {
        headerBytes += 8;
        need(available, headerBytes);
        length = b.getLong(); // a negative one is refused below, as the library does
      }
    }
    checkLength(length);
    int size = (int) length;
    need(available, headerBytes + (masked ? 4 : 0) + size);
    ByteBuffer payload = ByteBuffer.allocate(size);
    if (masked) {
      byte[] key = new byte[4];
      b.get(key);
      byte[] out = payload.array();
      for (int i = 0; i < size; i++) {
        out[i] = (byte) (b.get() ^ key[i & 3]);
      }
    } else {
      b.get(payload.array(), 0, size);
    }
    FramedataImpl1 frame = FramedataImpl1.get(opcode);
    frame.setFin(fin);
    frame.setRSV1(rsv1);
    frame.setRSV2(rsv2);
    frame.setRSV3(rsv3);
    frame.setPayload(payload);
    if (rsv1 || rsv2 || rsv3) { // no extension is negotiated: every reserved bit must be 0
      throw new InvalidFrameException(
          "bad rsv RSV1: " + rsv1 + " RSV2: " + rsv2 + " RSV3: " + rsv3);
    }
    if (opcode == Opcode.TEXT) {
      if (fin && !isUtf8(payload.array(), 0, size)) {
        throw new InvalidDataException(CloseFrame.NO_UTF8, "Received text is no valid utf8 string!");
      }
    } else {
      frame.isValid(); // control frames: FIN set, a close frame's code and reason
    }
    return frame;
  }

  private static void need(int available, long bytes) throws Incomplete {
    if (available < bytes) {
      throw new Incomplete((int) bytes);
    }
  }

  private void checkLength(long length) throws LimitExceededException {
    if (length > Integer.MAX_VALUE) {
      throw new LimitExceededException("Payloadsize is to big...");
    }
    if (length > maxFrameBytes) {
      throw new LimitExceededException("Payload limit reached.", maxFrameBytes);
    }
    if (length < 0) {
      throw new LimitExceededException("Payloadsize is to little...");
    }
  }

  private static Opcode opcode(int code) throws InvalidFrameException {
    return switch (code) {
      case 0 -> Opcode.CONTINUOUS;
      case 1 -> Opcode.TEXT;
      case 2 -> Opcode.BINARY;
      case 8 -> Opcode.CLOSING;
      case 9 -> Opcode.PING;
      case 10 -> Opcode.PONG;
      default -> throw new InvalidFrameException("Unknown opcode " + (short) code);
    };
  }

  /**
   * Whether {@code a[from, to)} is well-formed UTF-8 (RFC 3629: no overlong form, no surrogate,
   * nothing past U+10FFFF, no sequence cut short). ASCII goes eight bytes at a time.
   */
  static boolean isUtf8(byte[] a, int from, int to) {
    int i = from;
    while (i < to) {
      while (i + 8 <= to && (a[i] | a[i + 1] | a[i + 2] | a[i + 3] | a[i + 4] | a[i + 5]
          | a[i + 6] | a[i + 7]) >= 0) {
        i += 8; // eight ASCII bytes: no sign bit among them
      }
      if (i >= to) {
        return true;
      }
      int c = a[i] & 0xFF;
      if (c < 0x80) {
        i++;
      } else if (c < 0xC2) {
        return false; // a continuation byte, or the lead of an overlong two-byte form
      } else if (c < 0xE0) {
        if (i + 1 >= to || !continuation(a[i + 1])) {
          return false;
        }
        i += 2;
      } else if (c < 0xF0) {
        if (i + 2 >= to) {
          return false;
        }
        int c1 = a[i + 1] & 0xFF;
        boolean second = c == 0xE0 ? c1 >= 0xA0 && c1 <= 0xBF // not overlong
            : c == 0xED ? c1 >= 0x80 && c1 <= 0x9F // not a surrogate
            : (c1 & 0xC0) == 0x80;
        if (!second || !continuation(a[i + 2])) {
          return false;
        }
        i += 3;
      } else if (c < 0xF5) {
        if (i + 3 >= to) {
          return false;
        }
        int c1 = a[i + 1] & 0xFF;
        boolean second = c == 0xF0 ? c1 >= 0x90 && c1 <= 0xBF // not overlong
            : c == 0xF4 ? c1 >= 0x80 && c1 <= 0x8F // not past U+10FFFF
            : (c1 & 0xC0) == 0x80;
        if (!second || !continuation(a[i + 2]) || !continuation(a[i + 3])) {
          return false;
        }
        i += 4;
      } else {
        return false;
      }
    }
    return true;
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }
}
