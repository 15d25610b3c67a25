package dev.ddpkit.ddp.transport;

import dev.ddpkit.ddp.protocol.DdpProtocolException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.SocketFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.drafts.Draft_6455;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.java_websocket.handshake.ServerHandshake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link TransportFactory}: a new Java-WebSocket {@link WebSocketClient} per attempt,
 * dialed with its non-blocking {@code connect()} (never {@code reconnect()}).
 *
 * <p>For {@code wss://} the socket comes from the configured {@link SSLContext} (the JVM default if
 * none) and host name verification is on: the endpoint identification algorithm is {@code HTTPS}.
 * Java-WebSocket's own connection-lost timer is off (the DDP client has its heartbeat), its
 * threads are daemons, and frames over {@code maxFrameBytes} close the connection with 1009.
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
  private static final Logger log = LoggerFactory.getLogger(WebSocketTransportFactory.class);

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
    WsTransport transport =
        new WsTransport(uri, listener, base, maxFrameBytes, connectTimeout, threadName);
    transport.start();
    return transport;
  }

  private SocketFactory sslSocketFactory() throws NoSuchAlgorithmException {
    SSLContext ctx = sslContext != null ? sslContext : SSLContext.getDefault();
    return ctx.getSocketFactory();
  }

  /** One Java-WebSocket client wrapped as a {@link Transport}. */
  private static final class WsTransport implements Transport {
    private final Client client;
    private final String threadName;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final Object lock = new Object();
    private Socket socket; // guarded by lock
    private boolean closed; // guarded by lock
    private ThreadGroup group; // this connection's threads; set once by start()
    private volatile Thread writer; // the library's write thread, once renamed

    WsTransport(
        URI uri,
        TransportListener listener,
        SocketFactory base,
        int maxFrameBytes,
        Duration timeout,
        String threadName) {
      this.threadName = threadName;
      int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
      this.client = new Client(uri, new Draft_6455(List.of(), maxFrameBytes), millis, listener);
      client.setConnectionLostTimeout(0);
      client.setDaemon(true);
      client.setTcpNoDelay(true);
      client.setSocketFactory(new TrackingSocketFactory(base));
    }

    /**
     * Runs what {@code WebSocketClient.connect()} would start, on a named thread of a group of its
     * own (see the class comment): the write thread the library starts from it joins that group.
     */
    @SuppressWarnings("removal") // ThreadGroup.setDaemon: see below
    void start() {
      group = new ThreadGroup(threadName + "-ws");
      // On Java 17 a thread group stays referenced by its parent until destroyed; a daemon group is
      // destroyed when its last thread ends, so one per connection does not accumulate. (From
      // Java 19 groups are weakly referenced and the flag is ignored.)
      group.setDaemon(true);
      Thread reader = new Thread(group, client, threadName + "-ws-read");
      reader.setDaemon(true);
      reader.start();
    }

    /**
     * On the read thread, at {@code onOpen}: names the write thread. It named itself before it
     * wrote the handshake request that the server has now answered, so the name given here stays.
     */
    private void nameWriter() {
      Thread[] threads = new Thread[4];
      int n = group.enumerate(threads, /* recurse= */ false);
      for (int i = 0; i < n; i++) {
        Thread t = threads[i];
        if (t != Thread.currentThread() && t.getName().startsWith("WebSocketWriteThread")) {
          t.setName(threadName + "-ws-write");
          writer = t;
        }
      }
    }

    @Override
    public void send(String text) {
      try {
        if (client.isOpen()) {
          client.send(text);
        }
      } catch (WebsocketNotConnectedException e) {
        log.debug("frame dropped: the socket closed meanwhile");
      }
    }

    @Override
    public void close(int code, String reason) {
      Socket s;
      synchronized (lock) {
        closed = true;
        s = socket;
      }
      try {
        if (client.isOpen() && code >= 1000 && code != 1006) {
          client.close(code, reason); // queues the close frame
        }
        // Do not wait for the peer's close frame: a half-open peer never sends it. This interrupts
        // the write thread, which flushes the queued close frame and closes the socket, which ends
        // the read thread.
        client.closeConnection(code, reason);
      } catch (RuntimeException e) {
        log.debug("error while closing", e);
      }
      if (s != null && !client.isOpen()) {
        // Still dialing, in the handshake, or a writer stuck on a peer that stopped reading: a TLS
        // close could wait for that writer, so it runs on the closer, never on the caller's thread.
        SocketCloser.shared().close(s);
      }
    }

    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      if (ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        return awaitReader(deadline) && awaitWriter(deadline);
      }
      Socket s;
      synchronized (lock) {
        s = socket;
      }
      if (s != null) {
        SocketCloser.shared().close(s); // the last resort: unblock the read thread
      }
      return ended.await(Math.max(1, timeout.toNanos() / 2), TimeUnit.NANOSECONDS)
          && awaitReader(System.nanoTime() + timeout.toNanos() / 2)
          && awaitWriter(System.nanoTime() + timeout.toNanos() / 2);
    }

    /**
     * The latch is counted down in the read thread's last lines, just before it ends: join it, so
     * that "terminated" means no thread of this connection is alive (unless called on it).
     */
    private boolean awaitReader(long deadlineNanos) throws InterruptedException {
      Thread r = client.readThread;
      if (r == null || r == Thread.currentThread()) {
        return true;
      }
      long left = deadlineNanos - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(r, left);
      }
      return !r.isAlive();
    }

    /** The write thread ends once the read thread has interrupted it on close. */
    private boolean awaitWriter(long deadlineNanos) throws InterruptedException {
      Thread w = writer != null ? writer : findWriter();
      if (w == null || w == Thread.currentThread()) {
        return true; // none was started (the dial failed before), or it has ended
      }
      long left = deadlineNanos - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(w, left);
      }
      return !w.isAlive();
    }

    /**
     * The write thread before {@link #nameWriter} (a server that never answered the upgrade): the
     * one thread of this connection's own group, besides the reader, still carrying the library's
     * name. The group holds this connection's threads only: the reader, and the writer it starts.
     */
    private Thread findWriter() {
      if (group == null) {
        return null;
      }
      Thread[] threads = new Thread[4];
      int n = group.enumerate(threads, /* recurse= */ false);
      for (int i = 0; i < n; i++) {
        if (threads[i] != client.readThread
            && threads[i].getName().startsWith("WebSocketWriteThread")) {
          return threads[i];
        }
      }
      return null;
    }

    /** Records the socket so that a dial in progress can be aborted by closing it. */
    private final class TrackingSocketFactory extends SocketFactory {
      private final SocketFactory base;

      TrackingSocketFactory(SocketFactory base) {
        this.base = base;
      }

      @Override
      public Socket createSocket() throws IOException {
        synchronized (lock) {
          if (closed) {
            throw new IOException("closed before the socket was created");
          }
          socket = base.createSocket();
          return socket;
        }
      }

      @Override
      public Socket createSocket(String host, int port) throws IOException {
        throw new UnsupportedOperationException("not used by Java-WebSocket");
      }

      @Override
      public Socket createSocket(String host, int port, InetAddress local, int localPort)
          throws IOException {
        throw new UnsupportedOperationException("not used by Java-WebSocket");
      }

      @Override
      public Socket createSocket(InetAddress host, int port) throws IOException {
        throw new UnsupportedOperationException("not used by Java-WebSocket");
      }

      @Override
      public Socket createSocket(InetAddress address, int port, InetAddress local, int localPort)
          throws IOException {
        throw new UnsupportedOperationException("not used by Java-WebSocket");
      }
    }

    private final class Client extends WebSocketClient {
      private final TransportListener listener;
      /** The TLS failure seen before the close, if any: the close itself carries no reason. */
      private volatile SSLException tlsFailure;
      private volatile Thread readThread;
      /** A failed dial's close reported by another thread, delivered when the read thread ends. */
      private Runnable deferredClose; // guarded by lock

      Client(URI uri, Draft_6455 draft, int connectTimeoutMillis, TransportListener listener) {
        super(uri, draft, null, connectTimeoutMillis);
        this.listener = listener;
      }

      @Override
      public void run() {
        readThread = Thread.currentThread();
        try {
          super.run();
        } finally {
          Runnable close;
          synchronized (lock) {
            close = deferredClose;
            deferredClose = null;
          }
          if (close != null) {
            close.run();
          }
          ended.countDown();
        }
      }

      /**
       * The library reads this setting twice in {@code run()}: before the socket connects, to set
       * {@code SO_RCVBUF} if positive, and once connected, as the size of its read array. Zero the
       * first time keeps the kernel's own (auto-tuned) receive buffer; {@link #READ_BUFFER_BYTES}
       * the second makes the array a quarter of the library's default.
       */
      @Override
      public int getReceiveBufferSize() {
        Socket s = getSocket();
        return s != null && s.isConnected() ? READ_BUFFER_BYTES : 0;
      }

      @Override
      protected void onSetSSLParameters(SSLParameters parameters) {
        super.onSetSSLParameters(parameters);
        // Stated here as well, so that host name verification cannot silently depend on the
        // library's default.
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
      }

      @Override
      public void onOpen(ServerHandshake handshake) {
        nameWriter();
        listener.onOpen();
      }

      @Override
      public void onMessage(String message) {
        listener.onMessage(message);
      }

      @Override
      public void onMessage(ByteBuffer bytes) {
        // DDP is text only. Reported as a protocol error and otherwise ignored, as an unknown
        // message type is; the library would drop it silently.
        listener.onError(new DdpProtocolException(
            "a binary frame of " + bytes.remaining() + " bytes (DDP is text only)"));
      }

      @Override
      public void onClose(int code, String reason, boolean remote) {
        if (code < 0 && Thread.currentThread() != readThread) {
          // A dial that failed (a TLS handshake, say) can be closed by the write thread while the
          // read thread is still reporting the cause: report the close once that thread is done.
          synchronized (lock) {
            if (readThread != null && readThread.isAlive()) {
              deferredClose = () -> reportClose(code, reason, remote);
              return;
            }
          }
        }
        reportClose(code, reason, remote);
      }

      private void reportClose(int code, String reason, boolean remote) {
        // Java-WebSocket reports a dial that never connected with negative codes: on the wire
        // that is an abnormal closure.
        int c = code >= 1000 && code <= 4999 ? code : 1006;
        String r = reason == null ? "" : reason;
        SSLException tls = tlsFailure;
        if (r.trim().isEmpty() && tls != null) {
          // An untrusted certificate or a host name mismatch: say so, not just "closed 1006".
          r = "TLS handshake failed: " + tls.getMessage();
        }
        listener.onClose(c, r, remote);
      }

      @Override
      public void onError(Exception ex) {
        SSLException tls = findTls(ex);
        if (tls != null) {
          tlsFailure = tls;
        }
        listener.onError(ex);
      }
    }
  }

  private static SSLException findTls(Throwable t) {
    for (int i = 0; t != null && i < 10; i++, t = t.getCause()) {
      if (t instanceof SSLException e) {
        return e;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "WebSocketTransportFactory{" + threadName + ", maxFrameBytes=" + maxFrameBytes + ", connectTimeout="
        + connectTimeout.toMillis() + "ms, tls=" + (sslContext == null ? "default" : "custom") + "}";
  }
}
