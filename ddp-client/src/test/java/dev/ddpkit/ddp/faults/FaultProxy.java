package dev.ddpkit.ddp.faults;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on loopback that a test can switch at any moment into a faulty mode, for the client
 * and every connection it has open.
 *
 * <p>It listens on {@code 127.0.0.1} (port 0 by default) and forwards every accepted connection to
 * a target address, with blocking {@code java.net} sockets and a few named daemon threads per
 * connection ({@code fault-proxy-<proxy>-<conn>-...}). What each {@link Mode} does:
 *
 * <table>
 *   <caption>Modes, for new and for existing connections</caption>
 *   <tr><th>Mode</th><th>new connection</th><th>existing connection</th></tr>
 *   <tr><td>{@link Mode#PASS}</td><td>dials the target, forwards</td><td>forwards</td></tr>
 *   <tr><td>{@link Mode#BLACKHOLE}</td><td>dials the target, silent</td><td>silent</td></tr>
 *   <tr><td>{@link Mode#REFUSE}</td><td>accepted then reset at once</td><td>forwards</td></tr>
 *   <tr><td>{@link Mode#HANG_ON_ACCEPT}</td><td>accepted, never dialed, silent for its whole
 *       life</td><td>silent</td></tr>
 *   <tr><td>{@link Mode#STALL}</td><td>dials the target, reads nothing</td><td>reads
 *       nothing</td></tr>
 * </table>
 *
 * <p><b>Silent</b> means: nothing is forwarded in either direction and nothing is closed. Bytes that
 * arrive while silent are read and <em>dropped</em>, never held, so a client's writes never block and
 * switching back to {@link Mode#PASS} resumes with the bytes sent after the switch only (the stream is
 * then missing a piece, as after a real outage). A FIN or a reset that arrives while silent is held, not
 * dropped, and propagated once the mode forwards again, so a connection closed during an outage still
 * ends when the outage does.
 *
 * <p>{@link #latency(Duration)} delays every forwarded chunk, each direction, preserving order even
 * when the latency is lowered; {@link #reset()} and {@link #cutMidFrame()} act once on the current
 * connections. Every method is thread-safe and takes effect at once; {@link #close()} stops everything
 * and returns when no thread of this proxy is left.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.forward(server.port())) {
 *   client.connect("ws://127.0.0.1:" + proxy.port() + "/websocket");
 *   proxy.mode(FaultProxy.Mode.BLACKHOLE);   // half-open: the heartbeat must notice
 *   proxy.reset();                           // or: the server vanished
 *   proxy.mode(FaultProxy.Mode.PASS);        // back: the client reconnects
 * }
 * }</pre>
 */
public final class FaultProxy implements AutoCloseable {

  /** What the proxy does with new and existing connections; see the class comment for the table. */
  public enum Mode {
    /** Forward bytes both ways. */
    PASS,
    /** Both directions silent, sockets kept open, arriving bytes dropped (a NAT drop, half-open). */
    BLACKHOLE,
    /**
     * New connections are accepted and reset at once; existing connections keep forwarding.
     *
     * <p>A listener cannot send a real "connection refused" (a RST to the SYN) without closing its
     * port, which another process could then take. An immediate RST after the handshake is what a
     * client sees as a failed dial: on Linux the JDK's timed {@code connect} throws
     * {@code SocketException: Connection reset by peer} if the RST comes first, otherwise the first
     * read (a WebSocket handshake) throws {@code SocketException: Connection reset}.
     */
    REFUSE,
    /** New connections are accepted and never answered (no dial, nothing sent); existing go silent. */
    HANG_ON_ACCEPT,
    /**
     * A peer that stopped reading: nothing is read in either direction (at most the chunk a reader
     * was already waiting for), nothing is closed, so the senders' buffers fill and their writes
     * block. Back to {@link Mode#PASS}, the held bytes flow again.
     */
    STALL
  }

  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
  private static final AtomicInteger PROXY_IDS = new AtomicInteger();
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

  private final int id = PROXY_IDS.incrementAndGet();
  private final InetSocketAddress target;
  private final Duration connectTimeout;
  private final ServerSocket listener;
  private final Thread acceptor;
  private final AtomicInteger connectionIds = new AtomicInteger();
  private final Set<ProxyConnection> connections = ConcurrentHashMap.newKeySet();
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

  // Mode changes are written under the lock so that writers holding a FIN can wait for PASS.
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition modeChanged = lock.newCondition();
  private volatile Mode mode = Mode.PASS;
  private volatile long latencyNanos;
  private volatile boolean closed;

  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong readFromClients = new AtomicLong();
  private final AtomicLong writtenToServers = new AtomicLong();
  private final AtomicLong readFromServers = new AtomicLong();
  private final AtomicLong writtenToClients = new AtomicLong();
  private final AtomicLong internalErrors = new AtomicLong();

  private FaultProxy(Builder builder) throws IOException {
    this.target = builder.target;
    this.connectTimeout = builder.connectTimeout;
    this.listener = new ServerSocket();
    listener.setReuseAddress(true);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), builder.listenPort), 50);
    this.acceptor = newThread("fault-proxy-" + id + "-accept", this::acceptLoop);
    acceptor.start();
    LOG.debug("fault-proxy-{} listening on {} for {}", id, listener.getLocalPort(), target);
  }

  /** Starts a proxy on an ephemeral loopback port that forwards to {@code 127.0.0.1:targetPort}. */
  public static FaultProxy forward(int targetPort) throws IOException {
    return builder().target(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort)).start();
  }

  /** A builder: target required; listen port 0 and a 2 s connect timeout by default. */
  public static Builder builder() {
    return new Builder();
  }

  /** The loopback port this proxy listens on. */
  public int port() {
    return listener.getLocalPort();
  }

  /** The address connections are forwarded to. */
  public InetSocketAddress target() {
    return target;
  }

  /** The current mode. */
  public Mode mode() {
    return mode;
  }

  /** Switches to {@code newMode} for new and existing connections, effective at once. */
  public FaultProxy mode(Mode newMode) {
    if (newMode == null) {
      throw new IllegalArgumentException("mode must not be null");
    }
    lock.lock();
    try {
      mode = newMode;
      modeChanged.signalAll();
    } finally {
      lock.unlock();
    }
    LOG.trace("fault-proxy-{} mode {}", id, newMode);
    return this;
  }

  /** The delay added to every forwarded chunk, each direction. */
  public Duration latency() {
    return Duration.ofNanos(latencyNanos);
  }

  /**
   * Delays every chunk read from now on by {@code delay} before it is forwarded, each direction;
   * order is preserved (a chunk never overtakes an earlier one, even after the latency is lowered).
   * {@link Duration#ZERO} removes it.
   */
  public FaultProxy latency(Duration delay) {
    if (delay == null || delay.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: " + delay);
    }
    latencyNanos = delay.toNanos();
    return this;
  }

  /**
   * Closes every current connection abruptly, both sides, with a TCP RST (SO_LINGER 0 then close);
   * the mode is unchanged, so new connections are handled as before.
   *
   * @return how many connections were reset
   */
  public int reset() {
    List<ProxyConnection> current = new ArrayList<>(connections);
    current.forEach(ProxyConnection::abort);
    LOG.debug("fault-proxy-{} reset {} connection(s)", id, current.size());
    return current.size();
  }

  /**
   * For every current connection, forwards only the first half of the next chunk read from the
   * server (nothing if that chunk is one byte) and then resets both sides, so a frame in flight
   * is cut in the middle. New connections are not affected.
   *
   * <p>The cut is at half of one TCP read, not frame-aware: arm it just before the server sends the
   * frame to cut, with nothing else in flight; chunks already queued by {@link #latency(Duration)}
   * are delivered first.
   *
   * @return how many connections were armed
   */
  public int cutMidFrame() {
    int armed = 0;
    for (ProxyConnection connection : connections) {
      if (connection.armCut()) {
        armed++;
      }
    }
    return armed;
  }

  /** Connections accepted by the listener since start, refused ones included. */
  public long acceptedConnections() {
    return accepted.get();
  }

  /** Connections reset at once because the mode was {@link Mode#REFUSE}. */
  public long refusedConnections() {
    return refused.get();
  }

  /** Connections currently open (accepted, not yet closed), whatever their state. */
  public int openConnections() {
    return connections.size();
  }

  /** Bytes read from clients, forwarded or not. */
  public long bytesReadFromClients() {
    return readFromClients.get();
  }

  /** Bytes written to the target (client to server direction). */
  public long bytesWrittenToServers() {
    return writtenToServers.get();
  }

  /** Bytes read from the target, forwarded or not. */
  public long bytesReadFromServers() {
    return readFromServers.get();
  }

  /** Bytes written to clients (server to client direction). */
  public long bytesWrittenToClients() {
    return writtenToClients.get();
  }

  /** Unexpected exceptions inside the proxy's own threads (a bug in the proxy if not zero). */
  public long internalErrors() {
    return internalErrors.get();
  }

  /** Stops listening, resets every connection and waits (up to 5 s) until no proxy thread is left. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeQuietly(listener);
    reset();
    long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
    try {
      // Threads only start while the acceptor runs or a connection is open; both are stopped now.
      // A thread leaves the set only once join() saw it dead, so none is left when this returns.
      while (!threads.isEmpty()) {
        for (Thread thread : new ArrayList<>(threads)) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            LOG.warn("fault-proxy-{} threads still alive after close: {}", id, threads);
            return;
          }
          TimeUnit.NANOSECONDS.timedJoin(thread, left);
          if (!thread.isAlive()) {
            threads.remove(thread);
          }
        }
        reset();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.debug("fault-proxy-{} closed", id);
  }

  /** Port, target, mode, latency and open connections, for test failure messages. */
  @Override
  public String toString() {
    return "FaultProxy{port=" + listener.getLocalPort() + ", target=" + target + ", mode=" + mode
        + ", latency=" + latency() + ", open=" + connections.size() + "}";
  }

  // ---- used by ProxyConnection ----

  /** Whether existing connections forward bytes in the current mode. */
  boolean forwarding() {
    Mode current = mode;
    return current == Mode.PASS || current == Mode.REFUSE || current == Mode.STALL;
  }

  /** Blocks while the proxy is in {@link Mode#STALL}, unless {@code connection} is closed. */
  void awaitReading(ProxyConnection connection) throws InterruptedException {
    lock.lock();
    try {
      while (mode == Mode.STALL && !connection.isClosed()) {
        modeChanged.await();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Blocks until existing connections forward again or {@code connection} is closed. */
  void awaitForwarding(ProxyConnection connection) throws InterruptedException {
    lock.lock();
    try {
      while (!forwarding() && !connection.isClosed()) {
        modeChanged.await();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every writer waiting in {@link #awaitForwarding} so it sees its connection closed. */
  void wakeWaiters() {
    lock.lock();
    try {
      modeChanged.signalAll();
    } finally {
      lock.unlock();
    }
  }

  long latencyNanos() {
    return latencyNanos;
  }

  InetSocketAddress targetAddress() {
    return target;
  }

  int connectTimeoutMillis() {
    return (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
  }

  AtomicLong readFromClientsCounter() {
    return readFromClients;
  }

  AtomicLong writtenToServersCounter() {
    return writtenToServers;
  }

  AtomicLong readFromServersCounter() {
    return readFromServers;
  }

  AtomicLong writtenToClientsCounter() {
    return writtenToClients;
  }

  void removed(ProxyConnection connection) {
    connections.remove(connection);
  }

  /**
   * A daemon thread (named {@code fault-proxy-<id>-...} by every caller) that the caller starts at once;
   * tracked until it has terminated, so {@link #close()} can join it.
   */
  Thread newThread(String name, Runnable body) {
    threads.removeIf(t -> t.getState() == Thread.State.TERMINATED);
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.setUncaughtExceptionHandler((t, e) -> {
      internalErrors.incrementAndGet();
      LOG.error("fault-proxy thread {} failed", t.getName(), e);
    });
    threads.add(thread);
    return thread;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          internalErrors.incrementAndGet();
          LOG.error("fault-proxy-{} accept failed", id, e);
        }
        return;
      }
      // Mode read before the count moves: a test that sees the count knows how the connection was taken.
      Mode current = mode;
      accepted.incrementAndGet();
      if (closed) {
        resetQuietly(client);
        return;
      }
      if (current == Mode.REFUSE) {
        refused.incrementAndGet();
        resetQuietly(client);
        continue;
      }
      String name = "fault-proxy-" + id + "-" + connectionIds.incrementAndGet();
      ProxyConnection connection =
          new ProxyConnection(this, name, client, /* hung= */ current == Mode.HANG_ON_ACCEPT);
      connections.add(connection);
      if (closed) {
        connection.abort();
      } else {
        connection.start();
      }
    }
  }

  /** Closes with a RST: SO_LINGER 0 discards unsent data and aborts the connection. */
  static void resetQuietly(Socket socket) {
    if (socket == null) {
      return;
    }
    try {
      if (!socket.isClosed()) {
        socket.setSoLinger(true, 0);
      }
    } catch (SocketException ignored) {
      // already closed by the peer's reset or by another thread: close() below is enough
    }
    closeQuietly(socket);
  }

  static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception ignored) {
      // closing is best effort; the socket is unusable either way
    }
  }

  /** Builds and starts a {@link FaultProxy}. */
  public static final class Builder {
    private InetSocketAddress target;
    private int listenPort = 0;
    private Duration connectTimeout = Duration.ofSeconds(2);

    private Builder() {
    }

    /** The address to forward to (required). */
    public Builder target(InetSocketAddress address) {
      if (address == null) {
        throw new IllegalArgumentException("target must not be null");
      }
      if (address.isUnresolved()) {
        throw new IllegalArgumentException("target is unresolved: " + address);
      }
      this.target = address;
      return this;
    }

    /** The address to forward to, as host and port (required). */
    public Builder target(String host, int port) {
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException("target host must not be blank");
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("target port must be 1..65535: " + port);
      }
      return target(new InetSocketAddress(host, port));
    }

    /** The loopback port to listen on; 0 (the default) picks a free one. */
    public Builder listenPort(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("listenPort must be 0..65535: " + port);
      }
      this.listenPort = port;
      return this;
    }

    /** How long a dial to the target may take before the client connection is reset; default 2 s. */
    public Builder connectTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("connectTimeout must be positive: " + timeout);
      }
      this.connectTimeout = timeout;
      return this;
    }

    /** Binds the listener and starts accepting. */
    public FaultProxy start() throws IOException {
      if (target == null) {
        throw new IllegalStateException("target is required");
      }
      return new FaultProxy(this);
    }
  }
}
