package dev.ddpkit.chat.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client on a plain blocking socket, with no thread of its own: a test writes frames
 * and reads the server's frames one by one. Enough of RFC 6455 for tests: client frames masked,
 * fragments sent only when asked ({@link #sendFragment}), fragments on receive not expected from
 * our server.
 */
final class RawWs implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int TEXT = 1;
  static final int BINARY = 2;
  static final int CLOSE = 8;

  /** A frame from the server. */
  record Frame(int opcode, byte[] payload) {
    String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }

    JsonNode json() {
      try {
        return JSON.readTree(payload);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + text(), e);
      }
    }

    /** The close code of a close frame (1005 if it has none). */
    int closeCode() {
      return payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : 1005;
    }

    /** The close reason of a close frame. */
    String closeReason() {
      return payload.length > 2
          ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8) : "";
    }
  }

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  private RawWs(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects and sends the upgrade request, without reading the answer. */
  static RawWs dial(String url, int timeoutMillis) throws IOException {
    URI u = URI.create(url);
    Socket s = new Socket();
    s.setTcpNoDelay(true); // a frame and its fence go out at once, not after a delayed ACK
    s.connect(new InetSocketAddress(u.getHost(), u.getPort()), timeoutMillis);
    s.setSoTimeout(timeoutMillis);
    RawWs ws = new RawWs(s);
    byte[] key = new byte[16];
    ThreadLocalRandom.current().nextBytes(key);
    String req = "GET " + u.getPath() + " HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort()
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
        + Base64.getEncoder().encodeToString(key) + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
    ws.out.write(req.getBytes(StandardCharsets.US_ASCII));
    ws.out.flush();
    return ws;
  }

  /** Reads the upgrade answer; returns its status line. */
  String readUpgrade() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed during the upgrade");
      }
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String h = head.toString(StandardCharsets.US_ASCII);
    return h.substring(0, h.indexOf('\r'));
  }

  /** Dials and completes the upgrade; fails unless the server switched protocols. */
  static RawWs open(String url) throws IOException {
    RawWs ws = dial(url, 10_000);
    String status = ws.readUpgrade();
    if (!status.contains(" 101 ")) {
      ws.close();
      throw new AssertionError("upgrade refused: " + status);
    }
    return ws;
  }

  /** Dials, upgrades, reads the server_id greeting and does the DDP handshake. */
  static RawWs connect(String url) throws IOException {
    RawWs ws = open(url);
    ws.expectJson("server_id");
    ws.sendText("{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
    JsonNode c = ws.nextJson();
    if (!c.path("msg").asText().equals("connected")) {
      throw new AssertionError("not connected: " + c);
    }
    return ws;
  }

  void sendText(String text) throws IOException {
    send(TEXT, text.getBytes(StandardCharsets.UTF_8));
  }

  void sendBinary(byte[] data) throws IOException {
    send(BINARY, data);
  }

  /** Sends one masked frame. */
  void send(int opcode, byte[] data) throws IOException {
    sendFragment(opcode, /* fin= */ true, data);
  }

  /**
   * Sends one masked frame with FIN as given: the first fragment of a message has its opcode
   * (text, binary), the next ones opcode 0 (continuation), the last one FIN.
   */
  synchronized void sendFragment(int opcode, boolean fin, byte[] data) throws IOException {
    ByteArrayOutputStream f = new ByteArrayOutputStream(data.length + 14);
    f.write((fin ? 0x80 : 0) | opcode);
    if (data.length < 126) {
      f.write(0x80 | data.length);
    } else if (data.length < 65536) {
      f.write(0x80 | 126);
      f.write(data.length >>> 8);
      f.write(data.length);
    } else {
      f.write(0x80 | 127);
      for (int i = 7; i >= 0; i--) {
        f.write((int) ((long) data.length >>> (8 * i)));
      }
    }
    byte[] mask = new byte[4];
    ThreadLocalRandom.current().nextBytes(mask);
    f.write(mask, 0, 4);
    for (int i = 0; i < data.length; i++) {
      f.write(data[i] ^ mask[i & 3]);
    }
    out.write(f.toByteArray());
    out.flush();
  }

  /** Sets the socket's send buffer, so that few bytes are in flight when the server closes. */
  RawWs sendBuffer(int bytes) throws IOException {
    socket.setSendBufferSize(bytes);
    return this;
  }

  /** Reads the next frame; null if the connection ended without a close frame. */
  Frame next() throws IOException {
    int b0;
    try {
      b0 = in.read();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no frame within the timeout", e);
    } catch (IOException e) {
      return null; // reset
    }
    if (b0 < 0) {
      return null;
    }
    int b1 = in.readUnsignedByte();
    long len = b1 & 0x7f;
    if (len == 126) {
      len = in.readUnsignedShort();
    } else if (len == 127) {
      len = in.readLong();
    }
    if (len > 64 << 20) {
      throw new AssertionError("frame too long: " + len);
    }
    byte[] payload = new byte[(int) len];
    in.readFully(payload);
    return new Frame(b0 & 0x0f, payload);
  }

  /** The next text frame as JSON, skipping pings of the server ({@code msg: ping}). */
  JsonNode nextJson() throws IOException {
    while (true) {
      Frame f = next();
      if (f == null || f.opcode() != TEXT) {
        throw new AssertionError("expected a text frame, got " + (f == null ? "end" : f.opcode()));
      }
      JsonNode n = f.json();
      if (!n.path("msg").asText().equals("ping")) {
        return n;
      }
    }
  }

  /** Reads frames until a close frame (returning it) or the end of the stream (null). */
  Frame awaitClose() throws IOException {
    while (true) {
      Frame f = next();
      if (f == null || f.opcode() == CLOSE) {
        return f;
      }
    }
  }

  private void expectJson(String field) throws IOException {
    JsonNode n = nextJson();
    if (!n.has(field)) {
      throw new AssertionError("expected " + field + ", got " + n);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a test socket: nothing to do
    }
  }
}
