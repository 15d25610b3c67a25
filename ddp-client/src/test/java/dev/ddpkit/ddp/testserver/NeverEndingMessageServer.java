package dev.ddpkit.ddp.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hostile WebSocket server on raw sockets: on each of its first {@code attacks} connections it
 * answers the upgrade, then sends a text message that never ends (a text frame without FIN, then
 * continuation frames for ever) until the client closes; later connections get a minimal DDP
 * server ({@code connected}, {@code pong}), so a client can be seen to reconnect after.
 *
 * <p>Each attack records how many payload bytes had been written when the client's close frame
 * arrived and the code it carried. Bytes in flight in the kernel's buffers count as written; the
 * server's send buffer is kept small so that they stay few. Threads are named {@code
 * never-ending-server-...}.
 */
public final class NeverEndingMessageServer implements AutoCloseable {
  /** The thread-name prefix of this server's threads. */
  public static final String THREAD_NAME = "never-ending-server";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

  /** One never-ending message sent to one connection. */
  public static final class Attack {
    private final AtomicLong written = new AtomicLong();
    private final CompletableFuture<Long> writtenAtClose = new CompletableFuture<>();
    private final CompletableFuture<Integer> closeCode = new CompletableFuture<>();

    /** Payload bytes of the message written so far. */
    public long written() {
      return written.get();
    }

    /** Payload bytes written when the client's close frame (or its end of stream) arrived. */
    public CompletableFuture<Long> writtenAtClose() {
      return writtenAtClose;
    }

    /** The code of the client's close frame; 1005 without one, 1006 if the stream just ended. */
    public CompletableFuture<Integer> closeCode() {
      return closeCode;
    }
  }

  private final ServerSocket listener;
  private final int attacks;
  private final int fragmentBytes;
  private final long giveUpAfterBytes;
  private final List<Attack> started = new CopyOnWriteArrayList<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger served = new AtomicInteger();

  private NeverEndingMessageServer(int attacks, int fragmentBytes, long giveUpAfterBytes)
      throws IOException {
    this.attacks = attacks;
    this.fragmentBytes = fragmentBytes;
    this.giveUpAfterBytes = giveUpAfterBytes;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    spawn("accept", this::acceptLoop);
  }

  /**
   * Starts a server.
   *
   * @param attacks how many connections, from the first, get a never-ending message
   * @param fragmentBytes the payload of each fragment
   * @param giveUpAfterBytes the server stops writing (but keeps the socket) after this many bytes
   *     of one message, so that a client without a limit fails the test instead of the machine
   */
  public static NeverEndingMessageServer start(int attacks, int fragmentBytes,
      long giveUpAfterBytes) throws IOException {
    return new NeverEndingMessageServer(attacks, fragmentBytes, giveUpAfterBytes);
  }

  /** The {@code ws://} address of the server. */
  public URI uri() {
    return URI.create("ws://127.0.0.1:" + listener.getLocalPort() + "/websocket");
  }

  /** The attacks started so far, in connection order. */
  public List<Attack> attacks() {
    return List.copyOf(started);
  }

  /** Connections served as a well-behaved DDP server ({@code connected} sent). */
  public int served() {
    return served.get();
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      Socket s;
      try {
        s = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      sockets.add(s);
      int n = connections.incrementAndGet();
      spawn("conn-" + n, () -> handle(s, n <= attacks));
    }
  }

  private void handle(Socket s, boolean attack) {
    try (s) {
      s.setTcpNoDelay(true);
      s.setSendBufferSize(32 * 1024);
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      upgrade(in, out);
      if (attack) {
        Attack a = new Attack();
        started.add(a);
        spawn("read", () -> awaitClose(new DataInputStream(in), a));
        stream(out, a);
      } else {
        serveDdp(new DataInputStream(in), out);
      }
    } catch (IOException e) {
      // the client closed: what was recorded stays
    }
  }

  /** Reads the request head and answers 101 with the accept key. */
  private static void upgrade(InputStream in, OutputStream out) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("closed during the upgrade");
      }
      head.write(b);
      matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String key = null;
    for (String line : head.toString(StandardCharsets.US_ASCII).split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("sec-websocket-key:")) {
        key = line.substring(line.indexOf(':') + 1).trim();
      }
    }
    String answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept(key) + "\r\n\r\n";
    out.write(answer.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private void stream(OutputStream out, Attack a) throws IOException {
    byte[] payload = new byte[fragmentBytes];
    java.util.Arrays.fill(payload, (byte) 'x');
    int opcode = 1; // text, then continuation
    while (!a.closeCode.isDone() && a.written() < giveUpAfterBytes) {
      out.write(frameHeader(opcode, /* fin= */ false, payload.length));
      out.write(payload);
      a.written.addAndGet(payload.length);
      opcode = 0;
    }
    out.flush();
    a.closeCode.join(); // hold the socket until the client ends it (or the server is closed)
  }

  private static void awaitClose(DataInputStream in, Attack a) {
    try {
      while (true) {
        Frame f = readFrame(in);
        if (f.opcode() == 8) {
          a.writtenAtClose.complete(a.written());
          a.closeCode.complete(f.payload().length >= 2
              ? ((f.payload()[0] & 0xff) << 8) | (f.payload()[1] & 0xff) : 1005);
          return;
        }
      }
    } catch (IOException e) {
      a.writtenAtClose.complete(a.written());
      a.closeCode.complete(1006);
    }
  }

  private void serveDdp(DataInputStream in, OutputStream out) throws IOException {
    while (true) {
      Frame f = readFrame(in);
      if (f.opcode() == 8) {
        return;
      }
      if (f.opcode() != 1) {
        continue;
      }
      JsonNode m = JSON.readTree(f.payload());
      String reply = switch (m.path("msg").asText()) {
        case "connect" -> "{\"msg\":\"connected\",\"session\":\"calm-" + served.get() + "\"}";
        case "ping" -> m.has("id") ? JSON.createObjectNode().put("msg", "pong")
            .put("id", m.path("id").asText()).toString() : "{\"msg\":\"pong\"}";
        default -> null;
      };
      if (reply != null) {
        byte[] b = reply.getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
          out.write(frameHeader(1, /* fin= */ true, b.length));
          out.write(b);
          out.flush();
        }
        if (m.path("msg").asText().equals("connect")) {
          served.incrementAndGet();
        }
      }
    }
  }

  /** A frame from the client, unmasked. */
  private record Frame(int opcode, byte[] payload) {}

  private static Frame readFrame(DataInputStream in) throws IOException {
    int b0 = in.readUnsignedByte();
    int b1 = in.readUnsignedByte();
    long len = b1 & 0x7f;
    if (len == 126) {
      len = in.readUnsignedShort();
    } else if (len == 127) {
      len = in.readLong();
    }
    if (len > 1 << 20) {
      throw new IOException("client frame too long: " + len);
    }
    byte[] mask = new byte[4];
    if ((b1 & 0x80) != 0) {
      in.readFully(mask);
    }
    byte[] payload = new byte[(int) len];
    in.readFully(payload);
    for (int i = 0; i < payload.length; i++) {
      payload[i] ^= mask[i & 3];
    }
    return new Frame(b0 & 0x0f, payload);
  }

  /** The header of an unmasked frame (a server's). */
  static byte[] frameHeader(int opcode, boolean fin, int length) {
    ByteArrayOutputStream h = new ByteArrayOutputStream(10);
    h.write((fin ? 0x80 : 0) | opcode);
    if (length < 126) {
      h.write(length);
    } else if (length < 65536) {
      h.write(126);
      h.write(length >>> 8);
      h.write(length);
    } else {
      h.write(127);
      for (int i = 7; i >= 0; i--) {
        h.write((int) ((long) length >>> (8 * i)));
      }
    }
    return h.toByteArray();
  }

  private static String accept(String key) {
    try {
      byte[] sha1 = MessageDigest.getInstance("SHA-1")
          .digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
      return Base64.getEncoder().encodeToString(sha1);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private void spawn(String what, Runnable body) {
    Thread t = new Thread(body, THREAD_NAME + "-" + what);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  /** Closes the listener and every socket, and waits for the threads. */
  @Override
  public void close() throws InterruptedException {
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Attack a : started) {
      a.closeCode.complete(1006);
      a.writtenAtClose.complete(a.written());
    }
    for (Socket s : new ArrayList<>(sockets)) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    for (Thread t : threads) {
      t.join(5_000);
    }
  }

  @Override
  public String toString() {
    return "NeverEndingMessageServer{" + new InetSocketAddress(listener.getInetAddress(),
        listener.getLocalPort()) + ", attacks=" + attacks + "}";
  }
}
