package dev.ddpkit.chat.server;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A WebSocket client on a plain blocking socket that writes whatever frame bytes a test gives it,
 * masked or not, well formed or not, and reads the server's frames until its close frame.
 */
final class RawClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;

  private RawClient(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
  }

  /** Connects, sends the upgrade request and reads the server's 101. */
  static RawClient upgraded(String url) throws IOException {
    URI u = URI.create(url);
    Socket s = new Socket();
    s.setTcpNoDelay(true);
    s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 10_000);
    s.setSoTimeout(10_000);
    RawClient c = new RawClient(s);
    c.write(("GET " + u.getPath() + " HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort()
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    String head = c.readHead();
    if (!head.startsWith("HTTP/1.1 101")) {
      c.close();
      throw new AssertionError("upgrade refused: " + head);
    }
    return c;
  }

  /** One frame with FIN as given and a short payload (under 126 bytes), masked or not. */
  static byte[] frame(int opcode, boolean fin, boolean masked, byte[] payload) {
    if (payload.length > 125) {
      throw new IllegalArgumentException("payload over 125 bytes");
    }
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    f.write((fin ? 0x80 : 0) | opcode);
    f.write((masked ? 0x80 : 0) | payload.length);
    byte[] key = {0x11, 0x22, 0x33, 0x44};
    if (masked) {
      f.writeBytes(key);
    }
    for (int i = 0; i < payload.length; i++) {
      f.write(masked ? payload[i] ^ key[i & 3] : payload[i]);
    }
    return f.toByteArray();
  }

  void write(byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
  }

  /**
   * Reads the server's frames until its close frame and returns its code (1005 if it has none);
   * 1006 if the stream ends, or is reset, before a close frame.
   */
  int awaitCloseCode() throws IOException {
    try {
      while (true) {
        int b1 = in.readUnsignedByte();
        int b2 = in.readUnsignedByte();
        long length = b2 & 0x7F;
        if (length == 126) {
          length = in.readUnsignedShort();
        } else if (length == 127) {
          length = in.readLong();
        }
        byte[] payload = new byte[(int) length];
        in.readFully(payload);
        if ((b1 & 0x0F) == 8) {
          return payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005;
        }
      }
    } catch (EOFException | java.net.SocketException e) {
      return 1006;
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no close from the server in 10 s", e);
    }
  }

  private String readHead() throws IOException {
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

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
