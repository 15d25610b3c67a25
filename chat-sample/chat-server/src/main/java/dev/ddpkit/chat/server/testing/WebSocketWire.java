package dev.ddpkit.chat.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;

/**
 * The bytes of RFC 6455 for tests, with no socket: the opcodes, a frame or a frame header encoded
 * exactly as asked (masked or not, any opcode bits, a length that lies), a frame read from a
 * stream, the HTTP upgrade request and an HTTP head read. {@link RawPeer} speaks through it; a
 * test's own fake server or client may too.
 */
public final class WebSocketWire {
  /** The opcode of a continuation frame. */
  public static final int CONTINUATION = 0;
  /** The opcode of a text frame. */
  public static final int TEXT = 1;
  /** The opcode of a binary frame. */
  public static final int BINARY = 2;
  /** The opcode of a close frame. */
  public static final int CLOSE = 8;
  /** The opcode of a ping frame. */
  public static final int PING = 9;
  /** The opcode of a pong frame. */
  public static final int PONG = 10;

  /** The longest frame {@link #readFrame} accepts: a longer one is a broken stream, not a test. */
  static final long MAX_FRAME = 64L << 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  private WebSocketWire() {}

  /** A frame as it came: its opcode (the low four bits of its first byte) and its payload. */
  public record Frame(int opcode, byte[] payload) {
    /** The payload as UTF-8 text. */
    public String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }

    /** The payload parsed as JSON; an {@link IllegalStateException} if it is not JSON. */
    public JsonNode json() {
      try {
        return JSON.readTree(payload);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON: " + text(), e);
      }
    }

    /** The close code of a close frame (1005 if it has none). */
    public int closeCode() {
      return payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005;
    }

    /** The close reason of a close frame ("" if it has none). */
    public String closeReason() {
      return payload.length > 2
          ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8) : "";
    }
  }

  /** The HTTP upgrade request for {@code url}, with a key drawn from {@code random}. */
  public static byte[] upgradeRequest(String url, Random random) {
    URI u = URI.create(url);
    byte[] key = new byte[16];
    random.nextBytes(key);
    return ("GET " + u.getPath() + " HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort()
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
        + Base64.getEncoder().encodeToString(key)
        + "\r\nSec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * One frame's bytes: FIN as given, {@code opcode} or'ed into the first byte as it is (so {@code
   * 0x41} sets RSV1), masked with a key drawn from {@code random} or not masked at all (the kind
   * a server must refuse from a client; {@code random} is not used then, and may be null).
   */
  public static byte[] encode(int opcode, boolean fin, boolean masked, byte[] payload,
      Random random) {
    ByteArrayOutputStream f = new ByteArrayOutputStream(payload.length + 14);
    f.writeBytes(encodeHeader(opcode, fin, masked, payload.length));
    if (!masked) {
      f.writeBytes(payload);
      return f.toByteArray();
    }
    byte[] key = new byte[4];
    random.nextBytes(key);
    f.writeBytes(key);
    for (int i = 0; i < payload.length; i++) {
      f.write(payload[i] ^ key[i & 3]);
    }
    return f.toByteArray();
  }

  /** A frame header announcing {@code length} payload bytes, masking key not included. */
  public static byte[] encodeHeader(int opcode, boolean fin, boolean masked, long length) {
    ByteArrayOutputStream h = new ByteArrayOutputStream(10);
    h.write((fin ? 0x80 : 0) | opcode);
    int mask = masked ? 0x80 : 0;
    if (length < 126) {
      h.write(mask | (int) length);
    } else if (length < 65536) {
      h.write(mask | 126);
      h.write((int) (length >>> 8));
      h.write((int) length);
    } else {
      h.write(mask | 127);
      for (int shift = 56; shift >= 0; shift -= 8) {
        h.write((int) (length >>> shift));
      }
    }
    return h.toByteArray();
  }

  /**
   * Reads one frame from {@code in}, unmasking it if it is masked (so a server written for a test
   * can read a client's frames with it); null if the stream ends, or is reset, before the frame
   * starts. A {@link SocketTimeoutException} if nothing arrives within the socket's timeout.
   */
  public static Frame readFrame(DataInputStream in) throws IOException {
    int b0;
    try {
      b0 = in.read();
    } catch (SocketTimeoutException e) {
      throw e;
    } catch (IOException e) {
      return null; // reset
    }
    if (b0 < 0) {
      return null;
    }
    int b1 = in.readUnsignedByte();
    long length = b1 & 0x7F;
    if (length == 126) {
      length = in.readUnsignedShort();
    } else if (length == 127) {
      length = in.readLong();
    }
    if (length < 0 || length > MAX_FRAME) {
      throw new IOException("frame too long: " + length);
    }
    byte[] key = null;
    if ((b1 & 0x80) != 0) {
      key = new byte[4];
      in.readFully(key);
    }
    byte[] payload = new byte[(int) length];
    in.readFully(payload);
    if (key != null) {
      for (int i = 0; i < payload.length; i++) {
        payload[i] ^= key[i & 3];
      }
    }
    return new Frame(b0 & 0x0F, payload);
  }

  /** An HTTP head, up to and including its blank line, read a byte at a time from {@code in}. */
  public static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed during the upgrade");
      }
      head.write(b);
      matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }
}
