package dev.ddpkit.chat.server;

import java.nio.ByteBuffer;
import org.java_websocket.exceptions.InvalidFrameException;

/**
 * Walks the frame headers in the bytes a client sends, passing over the payloads without reading
 * them, and refuses the first frame whose mask bit is clear: RFC 6455 section 5.1 says a client
 * masks every frame, and a server must close the connection (1002) on one that is not masked.
 * Java-WebSocket 1.6.0 reads the mask bit but accepts either; its {@code Framedata} does not keep
 * the bit, so the check reads the bytes before the library does.
 *
 * <p>It follows the stream on its own (a header may straddle two reads), which holds because
 * the library consumes every byte it is given as frame bytes. A frame the library will refuse
 * anyway (a length past {@code Long.MAX_VALUE}) ends the walk. Not thread-safe: one per
 * connection, used by the thread that reads it.
 */
final class MaskBitCheck {
  /** The longest header before the masking key: 2 bytes, then up to 8 of extended length. */
  private final byte[] header = new byte[10];
  private int headerBytes;
  /** Bytes of the current frame (masking key and payload) still to pass over. */
  private long skip;

  /** Checks the frames that start in {@code bytes}, from its position to its limit; moves nothing. */
  void check(ByteBuffer bytes) throws InvalidFrameException {
    int pos = bytes.position();
    int limit = bytes.limit();
    while (pos < limit) {
      if (skip > 0) {
        int n = (int) Math.min(skip, limit - pos);
        pos += n;
        skip -= n;
        continue;
      }
      header[headerBytes++] = bytes.get(pos++);
      if (headerBytes == 2 && (header[1] & 0x80) == 0) {
        throw new InvalidFrameException("an unmasked client frame (RFC 6455 section 5.1)");
      }
      if (headerBytes >= 2 && headerBytes == headerLength()) {
        long length = payloadLength();
        // Negative, or too long to count: the library refuses the frame from its header.
        skip = length < 0 || length > Long.MAX_VALUE - 4 ? Long.MAX_VALUE : 4 + length;
        headerBytes = 0;
      }
    }
  }

  /** Forgets a header in progress (the connection is closed). */
  void reset() {
    headerBytes = 0;
    skip = 0;
  }

  private int headerLength() {
    int length7 = header[1] & 0x7F;
    return length7 == 126 ? 4 : length7 == 127 ? 10 : 2;
  }

  private long payloadLength() {
    int length7 = header[1] & 0x7F;
    if (length7 < 126) {
      return length7;
    }
    long length = 0;
    for (int i = 2; i < headerLength(); i++) {
      length = (length << 8) | (header[i] & 0xFF);
    }
    return length;
  }
}
