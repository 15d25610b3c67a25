package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.handshake.ServerHandshakeBuilder;
import org.java_websocket.server.WebSocketServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java-WebSocket server under the chat server: it owns the selector and worker threads
 * (renamed {@code chat-server-N-selector} and {@code chat-server-N-worker-K}), serves only the
 * {@code /websocket} path, limits messages to {@code maxFrameBytes}, fragmented or not (bigger
 * ones close with 1009), refuses unmasked client frames (1002: see {@link ServerDraft}), and
 * hands every event to the {@link DdpHandler}.
 */
final class Endpoint extends WebSocketServer {
  private static final Logger log = LoggerFactory.getLogger(Endpoint.class);
  static final String PATH = "/websocket";
  /** The appointment given to a socket refused for its address's cap. */
  static final long ADDRESS_CAP_RETRY_AFTER_MILLIS = 5_000;

  private final DdpHandler handler;
  /** The server's ticker: when a socket was accepted, for its upgrade deadline. */
  private final Ticker ticker;
  private final String threadPrefix;
  private final FatalErrors fatalErrors;
  private final CountDownLatch started = new CountDownLatch(1);
  private volatile Exception startFailure;
  private volatile Thread selectorThread;
  /** How many accepts between two sweeps of closed sockets out of {@link #open}. */
  private static final int PRUNE_EVERY = 256;
  /** Every socket accepted and not known to be closed, upgraded or not, by address. */
  private final OpenSockets open = new OpenSockets();
  private int acceptsSincePrune; // the selector thread only
  /** The most sockets one address may hold open, 0 for no cap. */
  private volatile int maxSocketsPerAddress;
  /** Makes each connection a {@link ServerConnection}; knows those with bytes queued. */
  private final GatheringChannel.Factory sockets = new GatheringChannel.Factory();

  /**
   * The library's pool of read buffers (a private field of Java-WebSocket 1.6.0's server), or
   * null if it cannot be reached: then every read goes to a worker, as in the library.
   */
  private final BlockingQueue<ByteBuffer> readBuffers;
  /** Reads the selector decoded itself; written by the selector only. */
  private volatile long decodedOnSelector;
  /** Reads the selector handed to a worker; written by the selector only. */
  private volatile long handedToWorkers;

  Endpoint(InetSocketAddress address, int workers, int maxFrameBytes, DdpHandler handler,
      String threadPrefix, FatalErrors fatalErrors, Ticker ticker) {
    super(address, workers,
        List.<Draft>of(new ServerDraft(maxFrameBytes, new PeerErrorLog(ticker))));
    this.ticker = ticker;
    this.handler = handler;
    this.threadPrefix = threadPrefix;
    this.fatalErrors = fatalErrors;
    for (int i = 0; i < decoders.size(); i++) {
      decoders.get(i).setName(threadPrefix + "worker-" + (i + 1));
      decoders.get(i).setUncaughtExceptionHandler(fatalErrors.uncaught());
    }
    setReuseAddr(true); // a restarted server must rebind the same port at once
    setTcpNoDelay(true);
    setWebSocketFactory(sockets); // frames written by their sender; a backlog in few system calls
    setConnectionLostTimeout(0); // DDP has its own heartbeat; no extra timer thread
    setDaemon(true);
    readBuffers = readBufferPool(this);
  }

  @SuppressWarnings("unchecked")
  private static BlockingQueue<ByteBuffer> readBufferPool(WebSocketServer server) {
    try {
      Field f = WebSocketServer.class.getDeclaredField("buffers");
      f.setAccessible(true);
      return (BlockingQueue<ByteBuffer>) f.get(server);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Java-WebSocket's read buffers are out of reach ({}): every read goes to a worker",
          e.toString());
      return null;
    }
  }

  /** Starts the selector thread and waits until the port is bound. */
  void startAndAwait(long timeoutMillis) throws Exception {
    Thread t = new Thread(this, threadPrefix + "selector");
    t.setDaemon(true);
    // Java-WebSocket's selector loop catches only RuntimeException: an Error ends the thread.
    t.setUncaughtExceptionHandler(fatalErrors.uncaught());
    selectorThread = t;
    t.start();
    if (!started.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("server did not start in " + timeoutMillis + " ms");
    }
    if (startFailure != null) {
      throw startFailure;
    }
  }

  /**
   * Stops the Java-WebSocket server, waits for its threads to end, then ends every socket it had
   * accepted and left open (see {@link #dropLeftovers}).
   */
  void stopAndJoin(long timeoutMillis) throws InterruptedException {
    stop((int) Math.max(1, timeoutMillis));
    // Each thread gets the whole timeout: the wait reads no clock (the server's time is its ticker's).
    Thread sel = selectorThread;
    if (sel != null) {
      sel.join(Math.max(1, timeoutMillis));
    }
    for (WebSocketWorker w : decoders) {
      w.interrupt();
      w.join(Math.max(1, timeoutMillis));
    }
    dropLeftovers(); // the selector has ended: nothing is accepted any more
  }

  /**
   * Works around a lost-wakeup race in Java-WebSocket 1.6.0: its selector thread ends a write
   * with {@code key.interestOps(OP_READ)} after finding the out-queue empty, and a frame queued by
   * another thread in between (our sends come from worker, store and timer threads) loses its
   * write interest and sits in the queue until the next send. We re-request write interest for
   * a connection that still has queued bytes and no write interest; the timer calls this every few
   * milliseconds. Only the connections that queued bytes are looked at ({@link ServerConnection}
   * writes to the socket itself when it can and queues only the rest), each until its queue is
   * empty: none at all while every client reads.
   */
  void flushStalledWrites() {
    sockets.kick(this::onWriteDemand);
  }

  /**
   * Runs {@link #flushStalledWrites} on {@code timer}, {@code after} a connection queued bytes and
   * again every {@code after} while some connection has bytes queued; never while none has.
   */
  void kickStalledWritesOn(Scheduler timer, Duration after) {
    sockets.scheduleKicksWith(() -> {
      try {
        timer.schedule(after, this::flushStalledWrites);
      } catch (RejectedExecutionException e) {
        // the server is stopping: its sockets are closed
      }
    });
  }

  /** The connections with bytes queued for the selector, as far as the write kick knows. */
  Collection<ServerConnection> queuedConnections() {
    return sockets.queued();
  }

  @Override
  public ServerHandshakeBuilder onWebsocketHandshakeReceivedAsServer(WebSocket conn, Draft draft,
      ClientHandshake request) throws InvalidDataException {
    if (draft instanceof ServerDraft own) {
      own.bind(conn); // before any frame: it closes the socket itself on bad input
    }
    String path = request.getResourceDescriptor();
    try {
      path = URI.create(path).getPath();
    } catch (IllegalArgumentException e) {
      path = null;
    }
    if (!PATH.equals(path)) {
      throw new InvalidDataException(CloseFrame.POLICY_VALIDATION, "not found");
    }
    return super.onWebsocketHandshakeReceivedAsServer(conn, draft, request);
  }

  /** Accepted sockets open now, upgraded or not. */
  int acceptedSockets() {
    return open.size();
  }

  /** Sets the per-address cap on open sockets (0: none). */
  void maxSocketsPerAddress(int max) {
    this.maxSocketsPerAddress = max;
  }

  /**
   * Drops the sockets accepted more than {@code deadlineNanos} ago whose HTTP upgrade has not
   * completed: each holds a file descriptor, and a WebSocket gets a deadline for its DDP {@code
   * connect} only once upgraded. Counts each in {@code timedOut} before it is dropped (a test
   * that sees the socket end must see the count), and returns how many. Called by the server's
   * timer.
   */
  int dropLateUpgrades(long deadlineNanos, AtomicLong timedOut) {
    List<WebSocket> late = open.notUpgradedSince(ticker.read() - deadlineNanos);
    for (WebSocket c : late) {
      timedOut.incrementAndGet();
      Liveness.dropAbruptly(c);
      open.remove(c);
    }
    if (!late.isEmpty()) {
      log.debug("dropped {} sockets that did not complete the upgrade in {} ms", late.size(),
          TimeUnit.NANOSECONDS.toMillis(deadlineNanos));
    }
    return late.size();
  }

  /**
   * Ends, with a reset, every accepted socket still open: after a stop, those whose upgrade the
   * server never read are in no list of Java-WebSocket's and would otherwise stay open, their
   * client waiting for an answer until its connect timeout.
   */
  void dropLeftovers() {
    for (WebSocket c : open.all()) {
      if (!c.isClosed()) {
        Liveness.dropAbruptly(c);
      }
    }
    open.clear();
  }

  @Override
  protected void allocateBuffers(WebSocket conn) throws InterruptedException {
    // Called by the selector thread for every socket it accepts, before any upgrade is read.
    if (++acceptsSincePrune >= PRUNE_EVERY) {
      acceptsSincePrune = 0;
      open.prune();
    }
    int fromAddress = open.add(conn, ticker.read());
    int cap = maxSocketsPerAddress;
    if (cap > 0 && fromAddress > 2 * cap) {
      // Far past the cap: not worth an upgrade to say so (those within twice the cap are told).
      Liveness.dropAbruptly(conn);
    }
    super.allocateBuffers(conn);
  }

  /**
   * Where the library's selector hands the bytes it read to the connection's worker. The selector
   * decodes the read itself instead when {@link SelectorDecodes} says so (a connection's first
   * reads, when they are its whole upgrade or its lone {@code connect}), and gives the buffer back
   * to the library's pool as a worker does. A reconnect then wakes no worker until its first
   * method or subscription; a resumed one, none at all.
   */
  @Override
  protected void queue(WebSocketImpl ws) throws InterruptedException {
    if (ws instanceof ServerConnection c && readBuffers != null) {
      // decodeOnSelector looks at the bytes only while c has handed no read to its worker; every
      // earlier read was then decoded here, to its end, so the buffer just read is the only one.
      ByteBuffer bytes = ws.inQueue.peek();
      if (SelectorDecodes.decodeOnSelector(c, bytes)) {
        c.decodingOnSelector();
        decodedOnSelector++;
        ws.inQueue.poll();
        try {
          c.decode(bytes);
        } catch (RuntimeException e) {
          // As the library's worker does: logged, and the selector goes on with the other sockets.
          log.error("error while decoding a read", e);
        } finally {
          readBuffers.offer(bytes); // back to the library's pool of read buffers
        }
        return;
      }
      c.handedToWorker();
    }
    handedToWorkers++;
    super.queue(ws);
  }

  /** How many reads the selector decoded itself and how many it handed to a worker. */
  record Decodes(long onSelector, long onWorkers) {}

  /** The reads decoded so far, by where (for tests in this package). */
  Decodes decodes() {
    return new Decodes(decodedOnSelector, handedToWorkers);
  }

  @Override
  protected void releaseBuffers(WebSocket conn) throws InterruptedException {
    open.remove(conn);
    super.releaseBuffers(conn);
  }

  @Override
  public void onStart() {
    Thread.currentThread().setName(threadPrefix + "selector");
    started.countDown();
  }

  @Override
  public void onOpen(WebSocket conn, ClientHandshake handshake) {
    int cap = maxSocketsPerAddress;
    int fromAddress = open.from(OpenSockets.addressOf(conn));
    if (cap > 0 && fromAddress > cap) {
      handler.refusedOverAddressCap();
      conn.close(CloseFrame.TRY_AGAIN_LATER, "too many sockets from this address: " + fromAddress
          + " open, the cap is " + cap + "; retry-after=" + ADDRESS_CAP_RETRY_AFTER_MILLIS);
      return;
    }
    handler.opened(conn);
  }

  @Override
  public void onClose(WebSocket conn, int code, String reason, boolean remote) {
    open.remove(conn);
    handler.closed(conn, code, remote);
  }

  @Override
  public void onMessage(WebSocket conn, String message) {
    handler.text(conn, message);
  }

  @Override
  public void onMessage(WebSocket conn, ByteBuffer message) {
    handler.binary(conn);
  }

  @Override
  public void onError(WebSocket conn, Exception ex) {
    // A worker thread that met an Error reports it here (wrapped), then stops the whole server.
    if (fatalErrors.reportIfFatal(ex)) {
      return;
    }
    if (conn == null) {
      if (started.getCount() > 0) {
        startFailure = ex;
        started.countDown();
      } else {
        log.error("server socket error", ex);
      }
      return;
    }
    log.debug("connection error: {}", ex.toString());
  }
}
