package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.WebSocketTransportFactory;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.Ticker;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DDP client. Reconnection is delegated to a {@link ReconnectionManager}; after every reconnect
 * the client runs the {@link ReconnectHook}s (log in with a resume token), re-sends every live
 * subscription and every unanswered call, and resynchronises its collections in one step.
 *
 * <p><b>Threads.</b> The client's work runs on one event loop: one task at a time, in order, each
 * to completion, so listeners are called one at a time and in order. Public methods may be called
 * from any thread; from a listener too, and then what they ask is queued behind the task that
 * called the listener, never run inside it (a reconnect hook's calls are the one exception: they
 * are collected and sent first, see {@link ReconnectHook}). By default the loop runs on a small
 * pool of daemon threads shared by every client of the JVM ({@code ddpkit-loop-N}, as many as the
 * machine has processors and at least 2), so a connected client costs the socket's two threads
 * ({@code <name>-ws-read}, {@code <name>-ws-write}) and nothing more. {@link
 * Builder#executor(Executor)} runs it on an executor the caller owns instead.
 *
 * <p>The listeners (status, stream, collection, subscription and call futures' dependents run
 * where the future is completed) are called on the event loop and must return quickly and never
 * wait for the client (a {@code join()} on one of its futures, say): while one runs, no frame of
 * this client is handled, and it holds one of the threads every client shares.
 *
 * <p>Protocol notes: DDP version 1 is proposed, with {@code pre2} and {@code pre1} as fallbacks; a
 * {@code failed} naming one of them is answered at once by a new connection with that version,
 * within the same attempt of the reconnection manager (it is not counted as a failed attempt).
 * {@code addedBefore} is stored as {@code added} and {@code movedBefore} is ignored: the local
 * stores are unordered. On the first connection, calls queued before it go out before the queued
 * subscriptions (a login made before {@link #connect()} precedes the subscriptions that need it);
 * on a reconnect the order is: {@code connect}, the hooks' calls, the subscriptions, then the calls
 * without a result. During the resynchronisation after a reconnect, call results complete at once
 * but data messages and {@code ready} are held until the revived subscriptions are ready and the
 * re-sent calls {@code updated}. Meanwhile the collections show what they held before the loss:
 * {@link #isResyncing()} and {@link Subscription#isCurrent()} say so.
 */
public final class DdpClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static final char[] ID_CHARS =
      "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz".toCharArray();
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
  /**
   * The mapper of every client built without {@link Builder#objectMapper}: a mapper is thread-safe
   * once configured, and this one is never configured, so one per JVM rather than one per client
   * (its caches cost several KiB each).
   */
  private static final ObjectMapper DEFAULT_MAPPER = new ObjectMapper();

  private final String name;
  private final ObjectMapper mapper;
  private final EjsonParams params;
  private final ReconnectionManager manager;
  private final EventLoop loop;
  private final ClientEngine engine;
  private final LoopTimers timers;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch shutdownDone = new CountDownLatch(1);
  private final AtomicLong methodIds = new AtomicLong();
  private final SecureRandom random = new SecureRandom();

  private DdpClient(Builder b) {
    this.name = b.name != null ? b.name : "ddp-client-" + COUNTER.incrementAndGet();
    this.mapper = b.mapper;
    this.params = new EjsonParams(b.mapper);
    this.manager =
        b.manager != null
            ? b.manager
            : ReconnectionManager.builder()
                .policy(
                    b.reopen != null
                        ? ReconnectPolicy.builder().backoff(Backoff.fixed(b.reopen)).build()
                        : ReconnectPolicy.defaults())
                .scheduler(b.scheduler)
                // The manager no longer guesses its ticker from its scheduler; the client's own
                // rule (ClientEngine reads time the same way) until the builder takes a ticker.
                .ticker(b.scheduler instanceof Ticker t ? t : Ticker.systemTicker())
                .name(name)
                .build();
    this.loop = b.executor != null ? EventLoop.on(name, b.executor) : EventLoop.shared(name);
    TransportFactory transports =
        b.transportFactory != null
            ? b.transportFactory
            : new WebSocketTransportFactory(
                b.sslContext, b.maxFrameBytes, b.connectTimeout, name);
    this.engine =
        new ClientEngine(
            new EngineConfig(name, b.url, b.scheduler,
                b.scheduler instanceof Ticker t ? t : Ticker.systemTicker(), b.clock,
                b.heartbeatInterval, b.heartbeatTimeout, b.connectTimeout, b.resyncTimeout,
                b.maxQueuedCalls, b.maxFrameBytes, b.strictProtocol),
            manager, transports, loop, mapper, b.statusListeners);
    this.timers = new LoopTimers(b.scheduler, loop::execute);
    engine.listeners.connection.addAll(b.connectionListeners);
    engine.bind(this);
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts connecting (returns at once). Calling it again while running does nothing; after a
   * failure for good ({@link DdpStatus.State#FAILED}) it starts again.
   *
   * @throws IllegalStateException if the client was closed
   */
  public void connect() {
    if (closed.get()) {
      throw new IllegalStateException("client closed: " + name);
    }
    loop.execute(engine::start);
  }

  /** Returns the current status. */
  public DdpStatus status() {
    return engine.status();
  }

  /** Returns the client's counters. */
  public DdpStats stats() {
    return engine.stats();
  }

  /** Returns the reconnection manager the client reports to (the default one if none was set). */
  public ReconnectionManager reconnectionManager() {
    return manager;
  }

  /**
   * Returns the client's name: the prefix of its socket threads' names, and its name in logs.
   */
  public String name() {
    return name;
  }

  /** Adds a status listener; returns a handle that removes it. */
  public Cancellable addStatusListener(StatusListener listener) {
    return Listeners.add(engine.listeners.status, Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Adds a listener told when a socket reaches DDP {@code connected} and when such a connection
   * ends (see {@link ConnectionListener}).
   *
   * @return removes the listener
   */
  public Cancellable addConnectionListener(ConnectionListener listener) {
    return Listeners.add(engine.listeners.connection, Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Returns whether the local collections may be out of date because the connection was lost:
   * {@code true} from the loss of an established connection (while waiting, reconnecting and
   * resynchronising) until, after the reconnect, the revived subscriptions are ready, the re-sent
   * calls updated, and the collections replaced by the server's data in one step. {@code false}
   * before the first connection and while in sync. If the client fails for good or is closed in
   * between, it stays {@code true}: what the collections show was never resynchronised. Stream
   * events ({@link #onStreamEvent}) are never held back and are not covered. Safe to call from any
   * thread; {@link #addResyncListener} reports the changes.
   */
  public boolean isResyncing() {
    return engine.resyncing();
  }

  /**
   * Adds a listener told each time {@link #isResyncing()} changes, on the client's event loop;
   * returns a handle that removes it.
   */
  public Cancellable addResyncListener(ResyncListener listener) {
    return Listeners.add(engine.listeners.resync, Objects.requireNonNull(listener, "listener"));
  }

  /** Adds a hook run on every reconnection; returns a handle that removes it. */
  public Cancellable onReconnect(ReconnectHook hook) {
    return Listeners.add(engine.listeners.hooks, Objects.requireNonNull(hook, "hook"));
  }

  /**
   * Calls a method with {@link CallOptions#DEFAULT}. Params are sent as EJSON, see {@link
   * #call(String, List, CallOptions)}.
   */
  public CompletableFuture<JsonNode> call(String method, Object... params) {
    Objects.requireNonNull(params, "params");
    return call(method, Arrays.asList(params), CallOptions.DEFAULT);
  }

  /**
   * Calls a method. The future completes with the result ({@code NullNode} if none), or
   * exceptionally with a {@link DdpMethodException} (server error, {@code invocation-failed}) or a
   * {@link DdpException} (queue full, client closed, or a protocol error: a {@code result} for
   * this call whose {@code error} is malformed fails only this call, and the connection stays).
   *
   * <p>Params are sent as EJSON: {@code byte[]} as {@code {"$binary": base64}}, {@link
   * java.time.Instant} and {@link java.util.Date} as {@code {"$date": millis}}, NaN and infinite
   * numbers as {@code {"$InfNaN": 0|1|-1}}, and a map whose keys look like an EJSON type (say
   * {@code "$date"}) wrapped in {@code {"$escape": ...}}; maps, collections and arrays are walked,
   * a {@link JsonNode} is sent as is, and any other object (a record, a bean) is serialised by the
   * {@linkplain Builder#objectMapper mapper}, with these EJSON forms for the values in it.
   *
   * @throws IllegalArgumentException if a param cannot be encoded (a map key that is not a string,
   *     a cycle, a date outside JavaScript's range, or what the mapper rejects)
   */
  public CompletableFuture<JsonNode> call(String method, List<?> params, CallOptions options) {
    checkName("method", method);
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(options, "options");
    ArrayNode p = toParams(params);
    if (closed.get()) {
      // Not CompletableFuture.failedFuture: Android has it only from API 31.
      CompletableFuture<JsonNode> failed = new CompletableFuture<>();
      failed.completeExceptionally(new DdpException("client closed"));
      return failed;
    }
    PendingCall c =
        new PendingCall(String.valueOf(methodIds.incrementAndGet()), method, p, options);
    if (!(loop.inLoop() && engine.collectHookCall(c))) {
      loop.execute(() -> engine.enqueueCall(c));
    }
    if (closed.get()) {
      c.future.completeExceptionally(new DdpException("client closed"));
    }
    return c.future;
  }

  /** Subscribes to a publication; params are sent as EJSON, as for {@link #call}. */
  public Subscription subscribe(String name, Object... params) {
    Objects.requireNonNull(params, "params");
    return subscribe(name, Arrays.asList(params));
  }

  /**
   * Subscribes to a publication; params are sent as EJSON, as for {@link #call}.
   *
   * @throws IllegalArgumentException if a param cannot be encoded
   */
  public Subscription subscribe(String name, List<?> params) {
    checkName("name", name);
    Objects.requireNonNull(params, "params");
    SubscriptionImpl s =
        new SubscriptionImpl(randomId(), name, toParams(params), this::unsubscribe);
    if (closed.get()) {
      s.markStopped(new DdpException("client closed"));
      return s;
    }
    loop.execute(() -> engine.subscribe(s));
    if (closed.get()) {
      s.markStopped(new DdpException("client closed"));
    }
    return s;
  }

  private void unsubscribe(SubscriptionImpl s) {
    if (!closed.get()) {
      loop.execute(() -> engine.unsubscribe(s));
    }
  }

  /** Returns the local store of a collection (created empty on first use). */
  public DdpCollection collection(String name) {
    checkName("name", name);
    return engine.data.collection(name);
  }

  /**
   * Treats {@code collection} as an event stream: its data messages are delivered to {@code
   * listener} at once and never stored or held back. Returns a handle that removes the listener.
   * The collection is a stream while it has listeners: once the last one is removed, its data
   * messages go to its local store again (see {@link #collection}).
   */
  public Cancellable onStreamEvent(String collection, StreamListener listener) {
    checkName("collection", collection);
    return engine.data.addStreamListener(collection, Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Runs {@code task} on the client's event loop, after every task queued before it: one at a time
   * with the client's own work (frames, timers, listeners), so it may read and change state that
   * only the loop touches without a lock. The task is always queued, never run inside the caller
   * even when called from a listener, so it never re-enters the code that called it. A task that
   * throws is logged and the loop goes on. After {@link #close()} the task is dropped and never
   * runs.
   *
   * @return whether the task was accepted ({@code false} once the client is closed)
   */
  public boolean execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    boolean accepted = loop.execute(task);
    if (!accepted) {
      log.debug("{}: closed, a task was dropped", name);
    }
    return accepted;
  }

  /**
   * Runs {@code task} on the client's event loop (as {@link #execute}) after {@code delay}, on the
   * client's {@linkplain Builder#scheduler scheduler}'s time: a timer of the client's own, with no
   * thread of its own. The handle cancels it; a timer cancelled from the event loop (from a
   * listener, or another loop task) never runs afterwards. {@link #close()} cancels every timer
   * not yet run, and a timer scheduled after {@code close()} never runs.
   *
   * @param delay how long to wait; zero means as soon as possible
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public Cancellable schedule(Duration delay, Runnable task) {
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(task, "task");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    return timers.schedule(delay, task);
  }

  /** Tells the client the network is back: if it is waiting to retry, it dials at once. */
  public void networkAvailable() {
    if (!closed.get()) {
      manager.networkAvailable();
    }
  }

  /**
   * For an app returning to the foreground: traffic seen in the last 2 s, nothing to do; nothing
   * for longer than the heartbeat would have allowed (its interval plus its timeout: 40 s by
   * default), redial at once, since the socket is dead and its timers were held; in between, a
   * ping with a short timeout (2 s) decides, so a quiet room that is merely idle keeps its
   * connection. With the heartbeat off a ping always decides. The future completes with whether
   * the connection was found alive (not connected: {@code false}, and a waiting client dials at
   * once).
   */
  public CompletableFuture<Boolean> checkHealth() {
    CompletableFuture<Boolean> f = new CompletableFuture<>();
    if (closed.get()) {
      f.complete(false);
      return f;
    }
    loop.execute(() -> engine.checkHealth(f));
    if (closed.get()) {
      f.complete(false);
    }
    return f;
  }

  /**
   * Closes the connection for good, fails every pending call and subscription with a {@link
   * DdpException} and cancels every {@linkplain #schedule timer}. Waits (up to a few seconds) for
   * the shutdown to have run on the event loop and for the socket's threads to end, unless called
   * on an event loop's thread (from a listener of this client or another): then it returns at
   * once, and the shutdown runs once the listener has returned.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      timers.cancelAll();
      loop.execute(
          () -> {
            engine.shutdown();
            shutdownDone.countDown();
          });
      loop.shutdown();
    }
    if (loop.inLoop() || LoopPool.onPoolThread()) {
      return; // a listener must not wait: the shutdown runs once it returns
    }
    try {
      long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
      // Another thread may still be running the loop's earlier tasks: the shutdown (which retires
      // the socket awaited below) runs after them.
      boolean ended = shutdownDone.await(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
      ended &= loop.awaitTermination(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      ended &= engine.awaitTransports(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (!ended) {
        log.warn("{}: some threads did not end within {} s of close()", name,
            CLOSE_WAIT.getSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "DdpClient{" + engine.describe() + "}";
  }

  private ArrayNode toParams(List<?> values) {
    return params.encode(values);
  }

  private String randomId() {
    char[] id = new char[17];
    for (int i = 0; i < id.length; i++) {
      id[i] = ID_CHARS[random.nextInt(ID_CHARS.length)];
    }
    return new String(id);
  }

  private static void checkName(String field, String value) {
    Objects.requireNonNull(value, field);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(field + " must not be empty");
    }
  }

  /** Builds a {@link DdpClient}. Defaults are set here; each setter validates its argument. */
  public static final class Builder {
    private URI url;
    private ReconnectionManager manager;
    private Duration reopen;
    private Duration heartbeatInterval = Duration.ofSeconds(25);
    private Duration heartbeatTimeout = Duration.ofSeconds(15);
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration resyncTimeout = Duration.ofSeconds(30);
    private Scheduler scheduler = Scheduler.systemScheduler();
    private int maxQueuedCalls = 1_000;
    private int maxFrameBytes = WebSocketTransportFactory.DEFAULT_MAX_FRAME_BYTES;
    private SSLContext sslContext;
    private final List<StatusListener> statusListeners = new ArrayList<>();
    private final List<ConnectionListener> connectionListeners = new ArrayList<>();
    private String name;
    private TransportFactory transportFactory;
    private Executor executor;
    private boolean strictProtocol;
    private Clock clock = Clock.systemUTC();
    private ObjectMapper mapper = DEFAULT_MAPPER;

    private Builder() {}

    /** The server URL: {@code ws://host:port/websocket} or {@code wss://...}. Required. */
    public Builder url(String url) {
      Objects.requireNonNull(url, "url");
      try {
        return url(new URI(url));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("url is not a valid URI: " + e.getReason(), e);
      }
    }

    /** The server URL. */
    public Builder url(URI url) {
      Objects.requireNonNull(url, "url");
      String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("ws") && !scheme.equals("wss")) {
        throw new IllegalArgumentException("url must start with ws:// or wss://, got scheme '"
            + scheme + "'");
      }
      if (url.getHost() == null || url.getHost().isEmpty()) {
        throw new IllegalArgumentException("url has no host");
      }
      this.url = url;
      return this;
    }

    /**
     * The reconnection manager (the default: DDP close profile, RFC curve, stable after 10 s).
     * Conflicts with {@link #reopen(Duration)}. The client starts it, reports to it and stops it
     * on {@link DdpClient#close()}; it must not be started by anyone else.
     */
    public Builder reconnection(ReconnectionManager manager) {
      this.manager = Objects.requireNonNull(manager, "manager");
      return this;
    }

    /**
     * Legacy fixed-interval reconnection, as the Rocket.Chat SDK's {@code reopen: 5000}. Off by
     * default; prefer {@link #reconnection(ReconnectionManager)}.
     */
    public Builder reopen(Duration interval) {
      this.reopen = positive("reopen", interval);
      return this;
    }

    /**
     * Send a ping after this long without inbound traffic (default 25 s); {@link Duration#ZERO}
     * turns the heartbeat off.
     */
    public Builder heartbeatInterval(Duration interval) {
      Objects.requireNonNull(interval, "heartbeatInterval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("heartbeatInterval must not be negative: " + interval);
      }
      this.heartbeatInterval = interval;
      return this;
    }

    /** Declare the socket dead if nothing arrives this long after a ping (default 15 s). */
    public Builder heartbeatTimeout(Duration timeout) {
      this.heartbeatTimeout = positive("heartbeatTimeout", timeout);
      return this;
    }

    /**
     * How long the resynchronisation after a reconnect may wait for revived subscriptions' {@code
     * ready} and re-sent calls' {@code updated} (default 30 s). Past it, the client logs a warning
     * and shows the data received so far: a server that never answers one of them would otherwise
     * leave {@link DdpClient#isResyncing()} true, and the collections stale, until the next
     * reconnect. A subscription still not ready then becomes current when its {@code ready}
     * arrives.
     */
    public Builder resyncTimeout(Duration timeout) {
      this.resyncTimeout = positive("resyncTimeout", timeout);
      return this;
    }

    /** Give up on a dial that has not reached DDP {@code connected} after this long (default 10 s). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive("connectTimeout", timeout);
      return this;
    }

    /**
     * The scheduler for heartbeat and connect timers (default: the shared real-time one). If it is
     * also a {@link dev.ddpkit.reconnect.Ticker} (a {@link dev.ddpkit.reconnect.VirtualScheduler})
     * the client reads time from it; the default reconnection manager uses it too.
     */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * How many calls may wait unsent (while offline, or behind a wait call such as a login) before
     * new ones fail at once; at least 1 (default 1,000).
     */
    public Builder maxQueuedCalls(int max) {
      if (max < 1) {
        // 0 would fail every call, even while connected: a call waits unsent until it is sent.
        throw new IllegalArgumentException("maxQueuedCalls must be at least 1: " + max);
      }
      this.maxQueuedCalls = max;
      return this;
    }

    /**
     * The largest frame accepted from the server (default 16 MiB); a larger one is a protocol
     * error and the connection is dropped and redialed.
     */
    public Builder maxFrameBytes(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxFrameBytes must be positive: " + max);
      }
      this.maxFrameBytes = max;
      return this;
    }

    /**
     * How the client takes frames that are not DDP as the spec writes it. Tolerant ({@code
     * false}, the default), as Meteor's own client: a frame that is malformed or unknown but
     * leaves the client's state intact (not JSON, no {@code msg}, a field of the wrong type, an
     * unknown {@code msg}, a result for an unknown call) is counted in {@link
     * DdpStats#protocolErrors()}, logged at WARN (at most a few lines a minute) and dropped, and
     * the connection stays; the well-known deviations of real servers are read as what they mean
     * (an {@code updated} with {@code id} naming one call, a method error without {@code msg}
     * keyed by the call's {@code id}: see {@link DdpStats#deviations()}). Strict ({@code true}),
     * for tests against a server that must speak the spec: any frame that does not parse drops
     * the connection. In both modes a frame that would corrupt the client's state (a {@code
     * connected} in the middle of a session) or is over {@link #maxFrameBytes} drops the
     * connection, and the reconnection backs off as from any other close, the status giving the
     * reason. Extra fields in a known message are ignored in both modes.
     */
    public Builder strictProtocol(boolean strict) {
      this.strictProtocol = strict;
      return this;
    }

    /** The TLS context for {@code wss://} (default: the JVM's, with host name verification on). */
    public Builder sslContext(SSLContext context) {
      this.sslContext = Objects.requireNonNull(context, "sslContext");
      return this;
    }

    /**
     * Adds a listener told of each connection's start and end from the first connection on (see
     * {@link ConnectionListener}); more can be added later with {@link
     * DdpClient#addConnectionListener}.
     */
    public Builder connectionListener(ConnectionListener listener) {
      connectionListeners.add(Objects.requireNonNull(listener, "connectionListener"));
      return this;
    }

    /** Adds a status listener. */
    public Builder statusListener(StatusListener listener) {
      statusListeners.add(Objects.requireNonNull(listener, "statusListener"));
      return this;
    }

    /** Names the client in thread names and logs (default {@code ddp-client-N}). */
    public Builder name(String name) {
      Objects.requireNonNull(name, "name");
      if (name.trim().isEmpty()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return this;
    }

    /**
     * The transport (default: Java-WebSocket, {@link WebSocketTransportFactory}). A seam for tests
     * (an in-memory transport) and for other socket libraries. Conflicts with {@link
     * #sslContext(SSLContext)}: TLS is then the factory's business.
     */
    public Builder transportFactory(TransportFactory factory) {
      this.transportFactory = Objects.requireNonNull(factory, "transportFactory");
      return this;
    }

    /**
     * Runs the client's event loop on this executor instead of the pool every client shares by
     * default. The client still runs its tasks one at a time, in order, each to completion, and
     * still queues what a listener asks rather than run it inside the listener. {@code
     * Runnable::run} makes every step run on the calling thread, which with a {@link
     * dev.ddpkit.reconnect.VirtualScheduler} makes tests fully deterministic; an executor of the
     * application's own suits listeners that may block (a UI thread's, say). The executor is not
     * shut down by {@link DdpClient#close()}. If it rejects the loop, the thread that submitted the
     * task runs the queued tasks itself (logged).
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** The wall clock used for {@link DdpStatus#retryTime()} (default: the system clock, UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The Jackson mapper for params and frames (default: a plain {@link ObjectMapper}, shared by
     * the clients that use the default; the client never configures it); register
     * modules on it for custom types.
     */
    public Builder objectMapper(ObjectMapper mapper) {
      this.mapper = Objects.requireNonNull(mapper, "objectMapper");
      return this;
    }

    /**
     * Returns the client, not yet connected: call {@link DdpClient#connect()}.
     *
     * @throws IllegalStateException if no url is set, or both {@code reconnection} and {@code
     *     reopen}, or both {@code transportFactory} and {@code sslContext} are set
     */
    public DdpClient build() {
      if (url == null) {
        throw new IllegalStateException("url is required");
      }
      if (manager != null && reopen != null) {
        throw new IllegalStateException(
            "set either reconnection(manager) or the legacy reopen(interval), not both");
      }
      if (transportFactory != null && sslContext != null) {
        throw new IllegalStateException(
            "sslContext applies to the default transport only: configure TLS in the "
                + "transportFactory instead");
      }
      return new DdpClient(this);
    }

    private static Duration positive(String field, Duration d) {
      Objects.requireNonNull(d, field);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(field + " must be positive: " + d);
      }
      return d;
    }
  }
}
