package dev.ddpkit.chat.server.testing;

import static dev.ddpkit.chat.server.testing.WebSocketWire.BINARY;
import static dev.ddpkit.chat.server.testing.WebSocketWire.CLOSE;
import static dev.ddpkit.chat.server.testing.WebSocketWire.TEXT;
import static dev.ddpkit.chat.server.testing.WebSocketWire.encode;
import static dev.ddpkit.chat.server.testing.WebSocketWire.encodeHeader;
import static dev.ddpkit.chat.server.testing.WebSocketWire.readFrame;
import static dev.ddpkit.chat.server.testing.WebSocketWire.readHead;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;

/**
 * A WebSocket client on a plain blocking socket, with no thread of its own: it writes whatever
 * frames its caller asks for (masked or not, fragments, a header that lies about its length) and
 * reads the server's frames one by one. Enough of RFC 6455 to probe a server: no extensions, and
 * fragments on receive are returned as they come, not joined.
 *
 * <pre>{@code
 * try (RawPeer p = RawPeer.ddp(server.url())) {       // upgraded, server_id read, DDP connected
 *   p.frame(WebSocketWire.TEXT, true, false, ping);       // unmasked: what a client must not send
 *   p.flush();
 *   assertThat(p.awaitCloseCode()).isEqualTo(1002);
 * }
 * }</pre>
 *
 * <p>Mask keys and the upgrade key come from the {@link Random} it was built with ({@link
 * Builder#random}): a {@link SecureRandom} unless the caller passes a seeded one, so that a test
 * can send the same bytes on every run. Writes are buffered: {@link #write}, {@link #frame} and
 * {@link #header} leave their bytes in the buffer until {@link #flush}, the {@code send} methods
 * flush. Its methods may be called from two threads at once (one writing, one reading).
 */
public final class RawPeer implements AutoCloseable {

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private final Random random;

  private RawPeer(Socket socket, Random random) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    this.random = random;
  }

  /** The settings of a peer for {@code url}, to change before one of its dial methods. */
  public static Builder builder(String url) {
    return new Builder(url);
  }

  /** A peer for {@code url} with the default settings, upgraded (the server's 101 read). */
  public static RawPeer upgraded(String url) throws IOException {
    return builder(url).upgraded();
  }

  /** A peer for {@code url} with the default settings, upgraded and DDP connected. */
  public static RawPeer ddp(String url) throws IOException {
    return builder(url).ddp();
  }

  /** How a peer connects; each dial method makes a new peer with these settings. */
  public static final class Builder {
    private final URI url;
    private InetAddress from;
    private int receiveBuffer;
    private int sendBuffer;
    private Duration timeout = Duration.ofSeconds(10);
    private Random random;

    private Builder(String url) {
      this.url = URI.create(Objects.requireNonNull(url, "url"));
    }

    /** The local address to connect from (default: whatever the system picks). */
    public Builder from(InetAddress address) {
      this.from = Objects.requireNonNull(address, "address");
      return this;
    }

    /** The socket's receive buffer in bytes, set before it connects (default: the system's). */
    public Builder receiveBuffer(int bytes) {
      this.receiveBuffer = positive("receiveBuffer", bytes);
      return this;
    }

    /** The socket's send buffer in bytes, so that few bytes are in flight (default: the system's). */
    public Builder sendBuffer(int bytes) {
      this.sendBuffer = positive("sendBuffer", bytes);
      return this;
    }

    /** How long the connect and each read may take (default 10 s). */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero() || timeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("timeout must be positive and under 24 days: " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /** Where mask keys and upgrade keys come from (default: a new {@link SecureRandom}). */
    public Builder random(Random random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** A TCP connection to the server, nothing sent. */
    public RawPeer tcp() throws IOException {
      Socket s = new Socket();
      try {
        if (receiveBuffer > 0) {
          s.setReceiveBufferSize(receiveBuffer);
        }
        if (sendBuffer > 0) {
          s.setSendBufferSize(sendBuffer);
        }
        if (from != null) {
          s.bind(new InetSocketAddress(from, 0));
        }
        s.setTcpNoDelay(true); // a frame and the next go out at once, not after a delayed ACK
        s.connect(new InetSocketAddress(url.getHost(), url.getPort()), (int) timeout.toMillis());
        s.setSoTimeout((int) timeout.toMillis());
        return new RawPeer(s, random != null ? random : new SecureRandom());
      } catch (IOException e) {
        s.close();
        throw e;
      }
    }

    /** Connects and sends the upgrade request, without reading the answer ({@link #readUpgrade}). */
    public RawPeer dial() throws IOException {
      return closedIfItFails(tcp(), p -> p.sendRaw(WebSocketWire.upgradeRequest(url.toString(), p.random)));
    }

    /** Connects and completes the upgrade; an {@link IOException} unless the server sent 101. */
    public RawPeer upgraded() throws IOException {
      return closedIfItFails(dial(), p -> {
        String status = p.readUpgrade();
        if (!status.startsWith("HTTP/1.1 101")) {
          throw new IOException("upgrade refused: " + status);
        }
      });
    }

    /** Upgrades, reads the {@code server_id} greeting and does the DDP handshake (version 1). */
    public RawPeer ddp() throws IOException {
      return closedIfItFails(upgraded(), p -> {
        JsonNode greeting = p.nextJson();
        if (!greeting.has("server_id")) {
          throw new IOException("expected server_id, got " + greeting);
        }
        p.sendText("{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
        JsonNode connected = p.nextJson();
        if (!connected.path("msg").asText().equals("connected")) {
          throw new IOException("not connected: " + connected);
        }
      });
    }

    /** One step of a dial on {@code p}. */
    private interface Step {
      void on(RawPeer p) throws IOException;
    }

    /** {@code p} once {@code step} has run on it; closed if the step fails, so no socket leaks. */
    private static RawPeer closedIfItFails(RawPeer p, Step step) throws IOException {
      try {
        step.on(p);
        return p;
      } catch (IOException | RuntimeException e) {
        p.close();
        throw e;
      }
    }

    private static int positive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
      return value;
    }
  }

  /** Reads the answer to the upgrade request; returns its status line. */
  public String readUpgrade() throws IOException {
    String h = readHead(in);
    return h.substring(0, h.indexOf('\r'));
  }

  /** Writes {@code bytes} as they are, into the buffer. */
  public synchronized void write(byte[] bytes) throws IOException {
    out.write(bytes);
  }

  /** Sends what is in the buffer. */
  public synchronized void flush() throws IOException {
    out.flush();
  }

  /** Writes {@code bytes} as they are and flushes. */
  public synchronized void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Writes one frame into the buffer; {@code masked} false makes it one a server must refuse. */
  public synchronized void frame(int opcode, boolean fin, boolean masked, byte[] data)
      throws IOException {
    out.write(encode(opcode, fin, masked, data, random));
  }

  /** Writes a frame header announcing {@code length} bytes into the buffer (no masking key). */
  public synchronized void header(int opcode, boolean fin, boolean masked, long length)
      throws IOException {
    out.write(encodeHeader(opcode, fin, masked, length));
  }

  /** Sends one masked text frame. */
  public void sendText(String text) throws IOException {
    send(TEXT, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Sends one masked binary frame. */
  public void sendBinary(byte[] data) throws IOException {
    send(BINARY, data);
  }

  /** Sends one masked frame with FIN set. */
  public void send(int opcode, byte[] data) throws IOException {
    sendFragment(opcode, /* fin= */ true, data);
  }

  /**
   * Sends one masked frame with FIN as given: the first fragment of a message has its opcode
   * (text, binary), the next ones {@link WebSocketWire#CONTINUATION}, the last one FIN.
   */
  public synchronized void sendFragment(int opcode, boolean fin, byte[] data) throws IOException {
    frame(opcode, fin, /* masked= */ true, data);
    out.flush();
  }

  /**
   * The server's next frame; null if the connection ended, or was reset, without one. A {@link
   * SocketTimeoutException} if none starts within the timeout.
   */
  public WebSocketWire.Frame next() throws IOException {
    return readFrame(in);
  }

  /**
   * The next text frame as JSON, skipping the server's pings ({@code msg: ping}) and any control
   * frame but a close; an {@link IOException} if the server closes or the connection ends first.
   */
  public JsonNode nextJson() throws IOException {
    while (true) {
      WebSocketWire.Frame f = next();
      if (f == null) {
        throw new EOFException("the connection ended");
      }
      if (f.opcode() == CLOSE) {
        throw new IOException("closed by the server: " + f.closeCode() + " " + f.closeReason());
      }
      if (f.opcode() == TEXT) {
        JsonNode n = f.json();
        if (!n.path("msg").asText().equals("ping")) {
          return n;
        }
      }
    }
  }

  /** Reads frames until a close frame (returned) or the end of the connection (null). */
  public WebSocketWire.Frame awaitClose() throws IOException {
    while (true) {
      WebSocketWire.Frame f = next();
      if (f == null || f.opcode() == CLOSE) {
        return f;
      }
    }
  }

  /**
   * Reads frames until the server's close frame and returns its code (1005 if it has none); 1006
   * if the connection ends or is reset first. A {@link SocketTimeoutException} if the server
   * neither closes nor sends within the timeout.
   */
  public int awaitCloseCode() throws SocketTimeoutException {
    try {
      WebSocketWire.Frame f = awaitClose();
      return f == null ? 1006 : f.closeCode();
    } catch (SocketTimeoutException e) {
      throw e;
    } catch (IOException e) {
      return 1006;
    }
  }

  /**
   * Flushes, then ends the stream this peer sends (a FIN: TCP's orderly end); it can still read
   * what the server sends.
   */
  public synchronized void shutdownOutput() throws IOException {
    out.flush();
    socket.shutdownOutput();
  }

  /**
   * Whether the server has ended the connection within {@code waitMillis}: a read sees the end of
   * the stream or a reset (what it reads before, a close frame among it, is dropped). Sets the
   * read timeout to {@code waitMillis} for every read after it.
   */
  public boolean closedByServer(int waitMillis) {
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

  /** Closes the socket, without a close frame. */
  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
