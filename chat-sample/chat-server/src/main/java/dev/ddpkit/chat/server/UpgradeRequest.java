package dev.ddpkit.chat.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.java_websocket.exceptions.IncompleteHandshakeException;
import org.java_websocket.exceptions.InvalidHandshakeException;
import org.java_websocket.handshake.ClientHandshakeBuilder;
import org.java_websocket.handshake.HandshakeImpl1Client;

/**
 * The server's reader of a client's HTTP upgrade request (the request line and its headers), in
 * place of Java-WebSocket's, for two reasons.
 *
 * <p><b>A bound.</b> Java-WebSocket 1.6.0 keeps every byte of an unfinished request, growing its
 * buffer with each read and parsing it again from the start, until the upgrade deadline: a peer
 * that sends header bytes without the blank line that ends them holds as much of the server's
 * heap as it can send in that time (and costs a parse of all of it per read). Here a request is
 * refused as soon as it is longer than {@link #MAX_BYTES} without its end, as Node's HTTP server
 * does past its 16 KiB of headers; the library then answers with an HTTP error and closes.
 *
 * <p><b>Cost.</b> The library compiles a regular expression per header line and copies each line
 * twice; in a reconnect wave that was about a tenth of the server's worker time. This reads the
 * bytes once.
 *
 * <p>The request must be {@code GET <target> HTTP/1.1}; lines end with CRLF (a bare LF is taken
 * too); a header's name ends at its first colon and its value is trimmed of blanks; a header
 * sent twice has its values joined with a comma (RFC 9110 section 5.3). Bytes after the blank
 * line are left in the buffer: they are the client's first frames.
 */
final class UpgradeRequest {
  /** The longest request accepted, request line and headers, in bytes. */
  static final int MAX_BYTES = 16 * 1024;

  private UpgradeRequest() {}

  /**
   * Reads a request from {@code buf}'s position, line by line in one pass; on success the
   * position is just past the blank line that ends it. A line that has arrived whole is checked
   * at once, so a bad request line is refused before the rest of the request comes.
   *
   * @throws IncompleteHandshakeException when the request has not all arrived yet and is still
   *     under {@link #MAX_BYTES}: the library keeps the bytes and calls again with more
   * @throws InvalidHandshakeException when it is not an upgrade request this server reads, or is
   *     too long
   */
  static ClientHandshakeBuilder read(ByteBuffer buf) throws InvalidHandshakeException {
    int start = buf.position();
    int to = Math.min(buf.limit(), start + MAX_BYTES);
    HandshakeImpl1Client request = new HandshakeImpl1Client();
    boolean first = true;
    int lineStart = start;
    for (int i = start; i < to; i++) {
      if (buf.get(i) != '\n') {
        continue;
      }
      int lineEnd = i > lineStart && buf.get(i - 1) == '\r' ? i - 1 : i;
      if (lineEnd == lineStart) { // the blank line
        if (first) {
          throw new InvalidHandshakeException("no request line");
        }
        buf.position(i + 1);
        return request;
      }
      String line = ascii(buf, lineStart, lineEnd);
      if (first) {
        requestLine(line, request);
        first = false;
      } else {
        header(line, request);
      }
      lineStart = i + 1;
    }
    if (buf.limit() - start >= MAX_BYTES) {
      throw new InvalidHandshakeException("upgrade request longer than " + MAX_BYTES + " bytes");
    }
    throw new IncompleteHandshakeException();
  }

  private static void requestLine(String line, HandshakeImpl1Client request)
      throws InvalidHandshakeException {
    int sp1 = line.indexOf(' ');
    int sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
    if (sp2 < 0 || line.indexOf(' ', sp2 + 1) >= 0) {
      throw new InvalidHandshakeException("not an HTTP request line");
    }
    if (!line.regionMatches(true, 0, "GET", 0, 3) || sp1 != 3) {
      throw new InvalidHandshakeException("not a GET request");
    }
    if (!line.substring(sp2 + 1).equalsIgnoreCase("HTTP/1.1")) {
      throw new InvalidHandshakeException("not HTTP/1.1");
    }
    request.setResourceDescriptor(line.substring(sp1 + 1, sp2));
  }

  private static void header(String line, HandshakeImpl1Client request)
      throws InvalidHandshakeException {
    int colon = line.indexOf(':');
    if (colon <= 0) {
      throw new InvalidHandshakeException("not an HTTP header");
    }
    String name = line.substring(0, colon).strip();
    String value = line.substring(colon + 1).strip();
    String before = request.getFieldValue(name);
    request.put(name, request.hasFieldValue(name) ? before + ", " + value : value);
  }

  private static String ascii(ByteBuffer buf, int from, int to) {
    byte[] bytes = new byte[to - from];
    buf.get(from, bytes);
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }
}
