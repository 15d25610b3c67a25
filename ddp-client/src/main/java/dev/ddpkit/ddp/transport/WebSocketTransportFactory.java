package dev.ddpkit.ddp.transport;

import java.net.URI;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Objects;
import javax.net.SocketFactory;
import javax.net.ssl.SSLContext;
import org.java_websocket.client.WebSocketClient;

/**
 * The default {@link TransportFactory}: a new Java-WebSocket {@link WebSocketClient} per attempt,
 * dialed with its non-blocking {@code connect()} (never {@code reconnect()}).
 *
 * <p>For {@code wss://} the socket comes from the configured {@link SSLContext} (the JVM default if
 * none) and host name verification is on: the endpoint identification algorithm is {@code HTTPS}.
 * Java-WebSocket's own connection-lost timer is off (the DDP client has its heartbeat), its
 * threads are daemons, and messages over {@code maxFrameBytes}, in one frame or in fragments, close
 * the connection with 1009 (see {@link BoundedMessageDraft}).
 *
 * <p><b>Thread names.</b> Each connection has two threads, named after the client so that a thread
 * dump of many clients can be read: {@code <name>-ws-read} and {@code <name>-ws-write} (for the
 * DDP client {@code ddp-client-3}: {@code ddp-client-3-ws-read}). Java-WebSocket 1.6.0 has no
 * thread factory: {@code connect()} starts the read thread and names it {@code
 * WebSocketConnectReadThread-N}, and the read thread starts the write thread, which names itself
 * {@code WebSocketWriteThread-N} as its first act. So the factory does not call {@code connect()}:
 * it runs the client's {@code run()} (all that {@code connect()} starts) on a thread of its own,
 * already named, in a thread group of its own for this one connection. The write thread is born
 * in that group; it is renamed when the server's handshake answer arrives ({@code onOpen}), which
 * is race-free: the write thread names itself before it writes the handshake request, and the
 * answer can only come after that request. Until then (a server that accepts TCP and never
 * answers the upgrade) the write thread keeps the library's name. Not calling {@code connect()}
 * only leaves the library's {@code reconnect()} and timed {@code connectBlocking()} unusable,
 * which this class never calls; {@code close()}, {@code closeConnection()} and {@code
 * closeBlocking()} do not depend on it.
 */
public final class WebSocketTransportFactory implements TransportFactory {
  /**
   * The size of each connection's read array: Java-WebSocket allocates 64 KiB by default, most of
   * an idle client's heap; frames larger than this are read in several pieces (the library
   * assembles them), so a smaller array only costs a few more reads of a large backlog.
   */
  static final int READ_BUFFER_BYTES = 16 * 1024;

  /** The default largest frame accepted: 16 MiB. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

  private final SSLContext sslContext;
  private final int maxFrameBytes;
  private final Duration connectTimeout;
  private final String threadName;

  /**
   * Creates a factory whose threads are named {@code ddp-ws-read} and {@code ddp-ws-write}.
   *
   * @param sslContext the TLS context for {@code wss://}, or {@code null} for the JVM default
   * @param maxFrameBytes the largest frame accepted, 1 or more
   * @param connectTimeout the TCP connect timeout, positive
   */
  public WebSocketTransportFactory(SSLContext sslContext, int maxFrameBytes, Duration connectTimeout) {
    this(sslContext, maxFrameBytes, connectTimeout, "ddp");
  }

  /**
   * Creates a factory.
   *
   * @param sslContext the TLS context for {@code wss://}, or {@code null} for the JVM default
   * @param maxFrameBytes the largest frame accepted, 1 or more
   * @param connectTimeout the TCP connect timeout, positive
   * @param threadName the prefix of the socket threads' names ({@code <threadName>-ws-read},
   *     {@code <threadName>-ws-write}), not blank; the DDP client passes its own name
   */
  public WebSocketTransportFactory(
      SSLContext sslContext, int maxFrameBytes, Duration connectTimeout, String threadName) {
    Objects.requireNonNull(threadName, "threadName");
    if (threadName.trim().isEmpty()) {
      throw new IllegalArgumentException("threadName must not be blank");
    }
    if (maxFrameBytes < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
    }
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new IllegalArgumentException("connectTimeout must be positive: " + connectTimeout);
    }
    this.sslContext = sslContext;
    this.maxFrameBytes = maxFrameBytes;
    this.connectTimeout = connectTimeout;
    this.threadName = threadName;
  }

  /** Creates a factory with the JVM's TLS context, 16 MiB frames and a 10 s connect timeout. */
  public WebSocketTransportFactory() {
    this(null, DEFAULT_MAX_FRAME_BYTES, Duration.ofSeconds(10));
  }

  @Override
  public Transport open(URI uri, TransportListener listener) throws Exception {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(listener, "listener");
    boolean tls = "wss".equalsIgnoreCase(uri.getScheme());
    SocketFactory base = tls ? sslSocketFactory() : SocketFactory.getDefault();
    WebSocketTransport transport =
        new WebSocketTransport(uri, listener, base, maxFrameBytes, connectTimeout, threadName);
    transport.start();
    return transport;
  }

  private SocketFactory sslSocketFactory() throws NoSuchAlgorithmException {
    SSLContext ctx = sslContext != null ? sslContext : SSLContext.getDefault();
    return ctx.getSocketFactory();
  }

  @Override
  public String toString() {
    return "WebSocketTransportFactory{" + threadName + ", maxFrameBytes=" + maxFrameBytes + ", connectTimeout="
        + connectTimeout.toMillis() + "ms, tls=" + (sslContext == null ? "default" : "custom") + "}";
  }
}
