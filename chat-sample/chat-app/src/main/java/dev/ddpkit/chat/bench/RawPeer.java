package dev.ddpkit.chat.bench;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client on a plain blocking socket for the {@link AbuseCommand}: it writes whatever
 * frames an attack needs (masked or not, fragments, lies in the header) from a source address of
 * its choosing, so that each attack has an address of its own and the server's per-address limits
 * of one phase do not reach the healthy client or the next phase.
 */
final class RawPeer implements AutoCloseable {
  static final int TEXT = 1;
  static final int BINARY = 2;
  static final int CLOSE = 8;
  static final int PING = 9;

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  private RawPeer(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
  }

  /** A TCP connection from {@code from} to the server of {@code url}, nothing sent. */
  static RawPeer tcp(String url, InetAddress from, int receiveBuffer) throws IOException {
    URI u = URI.create(url);
    Socket s = new Socket();
    if (receiveBuffer > 0) {
      s.setReceiveBufferSize(receiveBuffer);
    }
    s.bind(new InetSocketAddress(from, 0));
    s.setTcpNoDelay(true);
    s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 10_000);
    s.setSoTimeout(15_000);
    return new RawPeer(s);
  }

  /** The HTTP upgrade request for {@code url}; {@code cut} bytes of it, or all if negative. */
  static byte[] upgradeRequest(String url, int cut) {
    URI u = URI.create(url);
    byte[] key = new byte[16];
    ThreadLocalRandom.current().nextBytes(key);
    byte[] req = ("GET " + u.getPath() + " HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort()
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
        + java.util.Base64.getEncoder().encodeToString(key)
        + "\r\nSec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    return cut < 0 ? req : java.util.Arrays.copyOf(req, Math.min(cut, req.length));
  }

  /** Connects from {@code from}, upgrades, reads {@code server_id} and does the DDP handshake. */
  static RawPeer ddp(String url, InetAddress from) throws IOException {
    return ddp(url, from, 0);
  }

  /** As {@link #ddp(String, InetAddress)}, with a receive buffer this small (0: the default). */
  static RawPeer ddp(String url, InetAddress from, int receiveBuffer) throws IOException {
    RawPeer p = upgraded(url, from, receiveBuffer);
    p.nextText(); // server_id
    p.sendText("{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
    String connected = p.nextText();
    if (!connected.contains("\"connected\"")) {
      p.close();
      throw new IOException("not connected: " + connected);
    }
    return p;
  }

  /** Connects from {@code from} and completes the upgrade (101), nothing more. */
  static RawPeer upgraded(String url, InetAddress from, int receiveBuffer) throws IOException {
    RawPeer p = tcp(url, from, receiveBuffer);
    p.write(upgradeRequest(url, -1));
    p.flush();
    String status = p.readHead();
    if (!status.startsWith("HTTP/1.1 101")) {
      p.close();
      throw new IOException("upgrade refused: " + status);
    }
    return p;
  }

  void write(byte[] bytes) throws IOException {
    out.write(bytes);
  }

  void flush() throws IOException {
    out.flush();
  }

  void sendText(String text) throws IOException {
    frame(TEXT, true, true, text.getBytes(StandardCharsets.UTF_8));
    flush();
  }

  /** One masked frame's bytes, made once, for an attack that writes the same frame many times. */
  static byte[] maskedFrame(int opcode, boolean fin, byte[] data) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(data.length + 14);
    try {
      RawPeer shape = new RawPeer(bytes);
      shape.frame(opcode, fin, true, data);
      shape.out.flush();
    } catch (IOException e) {
      throw new IllegalStateException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  private RawPeer(OutputStream sink) {
    this.socket = null;
    this.in = null;
    this.out = new BufferedOutputStream(sink);
  }

  /** Writes one frame (not flushed); {@code masked} false makes it the kind a server must refuse. */
  void frame(int opcode, boolean fin, boolean masked, byte[] data) throws IOException {
    header(opcode, fin, masked, data.length);
    if (masked) {
      byte[] key = {0x1f, 0x2e, 0x3d, 0x4c};
      out.write(key);
      byte[] m = new byte[data.length];
      for (int i = 0; i < data.length; i++) {
        m[i] = (byte) (data[i] ^ key[i & 3]);
      }
      out.write(m);
    } else {
      out.write(data);
    }
  }

  /** Writes a frame header announcing {@code length} payload bytes (masking key not included). */
  void header(int opcode, boolean fin, boolean masked, long length) throws IOException {
    out.write((fin ? 0x80 : 0) | opcode);
    int mask = masked ? 0x80 : 0;
    if (length < 126) {
      out.write(mask | (int) length);
    } else if (length < 65536) {
      out.write(mask | 126);
      out.write((int) (length >>> 8));
      out.write((int) length);
    } else {
      out.write(mask | 127);
      for (int shift = 56; shift >= 0; shift -= 8) {
        out.write((int) (length >>> shift));
      }
    }
  }

  /** The next {@code result} frame's text, or the close as {@code "close <code>"}. */
  String nextResult() throws IOException {
    while (true) {
      String t = nextText();
      if (t.startsWith("close ") || t.contains("\"msg\":\"result\"")) {
        return t;
      }
    }
  }

  /** The next text frame's text; the close code as {@code "close <code>"} if it is a close. */
  String nextText() throws IOException {
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
      int opcode = b1 & 0x0F;
      if (opcode == CLOSE) {
        int code = payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005;
        return "close " + code;
      }
      if (opcode == TEXT) {
        return new String(payload, StandardCharsets.UTF_8);
      }
    }
  }

  /**
   * Reads until the server's close frame and returns its code; 1006 if the stream ends or is
   * reset first, 0 if nothing closes within the read timeout.
   */
  int awaitClose() {
    try {
      while (true) {
        String t = nextText();
        if (t.startsWith("close ")) {
          return Integer.parseInt(t.substring(6));
        }
      }
    } catch (SocketTimeoutException e) {
      return 0;
    } catch (EOFException | SocketException e) {
      return 1006;
    } catch (IOException e) {
      return 1006;
    }
  }

  /** Whether the server has ended the connection: a read sees the end, a reset or a close frame. */
  boolean closedByServer(int waitMillis) {
    try {
      socket.setSoTimeout(waitMillis);
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private String readHead() throws IOException {
    String h = readHead(in);
    return h.substring(0, h.indexOf('\r'));
  }

  /** An HTTP head, up to and including its blank line, read a byte at a time from {@code in}. */
  static String readHead(java.io.InputStream in) throws IOException {
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
