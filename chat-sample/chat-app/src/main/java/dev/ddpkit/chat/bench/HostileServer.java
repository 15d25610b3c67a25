package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.server.testing.WebSocketWire;
import java.io.DataInputStream;
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
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of the {@link AbuseCommand}: a raw WebSocket server whose first connection
 * completes the upgrade and then streams a text message that never ends (a frame without FIN,
 * then 65,000-byte continuation frames for ever) until the client closes; it records the client's close
 * code and how many bytes it had sent by then. Every later connection is piped, byte for byte, to
 * a real server, so a client that reconnects finds the same address no longer hostile.
 */
final class HostileServer implements AutoCloseable {
  private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  /** Under 64 KiB, so that its length fits the 16-bit form of the header. */
  private static final int FRAGMENT = 65_000;

  private final ServerSocket listener;
  private final URI real;
  /** The client's close code on the hostile connection (1006 if it just dropped the socket). */
  final CompletableFuture<Integer> clientClose = new CompletableFuture<>();
  final AtomicLong sentBeforeClose = new AtomicLong();
  private volatile boolean hostileDone;

  HostileServer(String realUrl) throws IOException {
    this.real = URI.create(realUrl);
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread t = new Thread(this::acceptLoop, "abuse-hostile-server");
    t.setDaemon(true);
    t.start();
  }

  /** The URL a client dials. */
  String url() {
    return "ws://127.0.0.1:" + listener.getLocalPort() + "/websocket";
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket s = listener.accept();
        boolean hostile = !hostileDone;
        hostileDone = true;
        Thread t = new Thread(() -> serve(s, hostile), hostile ? "abuse-hostile" : "abuse-pipe");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket s, boolean hostile) {
    try (s) {
      if (hostile) {
        streamForEver(s);
      } else {
        pipe(s);
      }
    } catch (IOException e) {
      // the connection ended
    } finally {
      if (hostile) {
        clientClose.complete(1006);
      }
    }
  }

  private void streamForEver(Socket s) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    OutputStream out = s.getOutputStream();
    String key = null;
    for (String line : WebSocketWire.readHead(in).split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("sec-websocket-key:")) {
        key = line.substring(line.indexOf(':') + 1).trim();
      }
    }
    out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: " + accept(key) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    Thread reader = new Thread(() -> readClientFrames(in), "abuse-hostile-reader");
    reader.setDaemon(true);
    reader.start();
    byte[] fragment = new byte[FRAGMENT];
    java.util.Arrays.fill(fragment, (byte) 'x');
    // unmasked, as a server's frames are; no FIN, ever
    byte[] first = WebSocketWire.encodeHeader(WebSocketWire.TEXT, false, false, FRAGMENT);
    byte[] next = WebSocketWire.encodeHeader(WebSocketWire.CONTINUATION, false, false, FRAGMENT);
    out.write(first);
    out.write(fragment);
    sentBeforeClose.addAndGet(FRAGMENT);
    while (!clientClose.isDone()) {
      out.write(next);
      out.write(fragment);
      sentBeforeClose.addAndGet(FRAGMENT);
    }
  }

  /** Reads the client's (masked) frames until its close frame, and records its code. */
  private void readClientFrames(DataInputStream in) {
    try {
      while (true) {
        WebSocketWire.Frame f = WebSocketWire.readFrame(in);
        if (f == null || f.opcode() == WebSocketWire.CLOSE) {
          clientClose.complete(f == null ? 1006 : f.closeCode());
          return;
        }
      }
    } catch (IOException e) {
      clientClose.complete(1006);
    }
  }

  private void pipe(Socket client) throws IOException {
    try (Socket server = new Socket(real.getHost(), real.getPort())) {
      Thread up = new Thread(() -> copy(client, server), "abuse-pipe-up");
      up.setDaemon(true);
      up.start();
      copy(server, client);
    }
  }

  private static void copy(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buf = new byte[16 * 1024];
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException e) {
      // one side ended
    }
  }

  private static String accept(String key) {
    try {
      MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
      return Base64.getEncoder().encodeToString(
          sha1.digest((key + GUID).getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
