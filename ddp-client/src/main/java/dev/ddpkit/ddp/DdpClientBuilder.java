package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.WebSocketTransportFactory;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.function.DoubleSupplier;
import javax.net.ssl.SSLContext;

/**
 * Builds a {@link DdpClient} ({@link DdpClient#builder()}). Defaults are set here; each setter
 * validates its argument, and {@link #build()} refuses settings that conflict.
 */
public final class DdpClientBuilder {
  /**
   * The mapper of every client built without {@link #objectMapper}: a mapper is thread-safe once
   * configured, and this one is never configured, so one per JVM rather than one per client (its
   * caches cost several KiB each).
   */
  private static final ObjectMapper DEFAULT_MAPPER = new ObjectMapper();

  URI url;
  ReconnectPolicy reconnection;
  Runnable credentialsRefresher = () -> {};
  DoubleSupplier jitter;
  Random random;
  Duration reopen;
  Duration heartbeatInterval = Duration.ofSeconds(25);
  Duration heartbeatTimeout = Duration.ofSeconds(15);
  Duration connectTimeout = Duration.ofSeconds(10);
  Duration resyncTimeout = Duration.ofSeconds(30);
  Scheduler scheduler = Scheduler.systemScheduler();
  Ticker ticker;
  int maxQueuedCalls = 1_000;
  int maxFrameBytes = WebSocketTransportFactory.DEFAULT_MAX_FRAME_BYTES;
  SSLContext sslContext;
  final List<StatusListener> statusListeners = new ArrayList<>();
  final List<ConnectionListener> connectionListeners = new ArrayList<>();
  String name;
  TransportFactory transportFactory;
  Executor executor;
  boolean strictProtocol;
  boolean sessionResumption = true;
  Clock clock;
  ObjectMapper mapper = DEFAULT_MAPPER;

  DdpClientBuilder() {}

  /** The server URL: {@code ws://host:port/websocket} or {@code wss://...}. Required. */
  public DdpClientBuilder url(String url) {
    Objects.requireNonNull(url, "url");
    try {
      return url(new URI(url));
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("url is not a valid URI: " + e.getReason(), e);
    }
  }

  /** The server URL. */
  public DdpClientBuilder url(URI url) {
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
   * How to reconnect (default {@link ReconnectPolicy#defaults()}: DDP close profile, RFC curve,
   * stable after 10 s). The client makes its own {@link ReconnectionManager} from it, on the
   * client's {@linkplain #scheduler scheduler} and {@linkplain #random randomness} ({@link
   * DdpClient#reconnectionManager()} returns it), so one policy can serve any number of clients.
   * Conflicts with {@link #reopen(Duration)}.
   */
  public DdpClientBuilder reconnection(ReconnectPolicy policy) {
    this.reconnection = Objects.requireNonNull(policy, "reconnection");
    return this;
  }

  /**
   * The one source of randomness: the reconnection manager's jitter and the subscription ids
   * are drawn from it, each from a stream of its own split from it at {@link #build()}. Seed it
   * ({@code new Random(42)}) for runs that must repeat, such as a test or a benchmark: the same
   * seed sends the same frames. Default: a {@link java.util.SplittableRandom} of the manager's
   * own for the jitter, a {@link java.security.SecureRandom} for the ids. Give each client its
   * own.
   */
  public DdpClientBuilder random(Random random) {
    this.random = Objects.requireNonNull(random, "random");
    return this;
  }

  /**
   * Where the reconnection manager draws the jitter of its backoff, uniform in [0, 1).
   *
   * @deprecated use {@link #random(Random)}, which feeds the jitter and the ids
   */
  @Deprecated
  public DdpClientBuilder jitter(DoubleSupplier random) {
    this.jitter = Objects.requireNonNull(random, "jitter");
    return this;
  }

  /**
   * What the reconnection manager runs before its one immediate retry after a 4401 close (fetch
   * fresh credentials); default: nothing.
   */
  public DdpClientBuilder credentialsRefresher(Runnable refresher) {
    this.credentialsRefresher = Objects.requireNonNull(refresher, "credentialsRefresher");
    return this;
  }

  /**
   * Legacy fixed-interval reconnection, as the Rocket.Chat SDK's {@code reopen: 5000}. Off by
   * default; prefer {@link #reconnection(ReconnectPolicy)}.
   */
  public DdpClientBuilder reopen(Duration interval) {
    this.reopen = positive("reopen", interval);
    return this;
  }

  /**
   * Send a ping after this long without inbound traffic (default 25 s); {@link Duration#ZERO}
   * turns the heartbeat off.
   */
  public DdpClientBuilder heartbeatInterval(Duration interval) {
    Objects.requireNonNull(interval, "heartbeatInterval");
    if (interval.isNegative()) {
      throw new IllegalArgumentException("heartbeatInterval must not be negative: " + interval);
    }
    this.heartbeatInterval = interval;
    return this;
  }

  /** Declare the socket dead if nothing arrives this long after a ping (default 15 s). */
  public DdpClientBuilder heartbeatTimeout(Duration timeout) {
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
  public DdpClientBuilder resyncTimeout(Duration timeout) {
    this.resyncTimeout = positive("resyncTimeout", timeout);
    return this;
  }

  /** Give up on a dial that has not reached DDP {@code connected} after this long (default 10 s). */
  public DdpClientBuilder connectTimeout(Duration timeout) {
    this.connectTimeout = positive("connectTimeout", timeout);
    return this;
  }

  /**
   * The one time source (default: the shared real-time scheduler on the system's clocks): the
   * client's timers run on it (heartbeat, connect timeout, {@link DdpClient#schedule},
   * reconnection), idle times and the time of the next attempt are read from its {@link
   * Scheduler#nanoTime()}, and {@link DdpStatus#retryTime()} from its {@link
   * Scheduler#wallTime()}. A {@link VirtualScheduler} passed here puts the whole client, and its
   * reconnection manager, on virtual time.
   */
  public DdpClientBuilder scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return this;
  }

  /**
   * A ticker to read idle times and the time of the next attempt from, instead of the
   * scheduler's {@link Scheduler#nanoTime()}; it must agree with the scheduler.
   *
   * @deprecated the scheduler is the one time source: a {@link VirtualScheduler} is its own
   *     ticker and wall clock
   */
  @Deprecated
  public DdpClientBuilder ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return this;
  }

  /**
   * How many calls may wait unsent (while offline, or behind a wait call such as a login) before
   * new ones fail at once; at least 1 (default 1,000).
   */
  public DdpClientBuilder maxQueuedCalls(int max) {
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
  public DdpClientBuilder maxFrameBytes(int max) {
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
  public DdpClientBuilder strictProtocol(boolean strict) {
    this.strictProtocol = strict;
    return this;
  }

  /**
   * Whether to resume the DDP session after an unexpected drop, where the server allows it (Meteor
   * 3.5's session resumption; default {@code true}). The {@code connect} after a drop then names
   * the last session and the count of frames received in it; a server that still holds that
   * session answers with the same id and replays what it queued, and the client goes on as if the
   * socket had never dropped: no reconnect hooks (no login), no subscription sent again, the
   * collections kept, the calls unanswered at the drop handled as after any reconnect. Any other
   * answer is a new session, recovered as always. {@link DdpClient#close()} says {@code
   * disconnect} first, so the server lets the session go at once. Servers without resumption
   * ignore the extra fields. {@code false}: neither is sent, and every reconnect is a new session.
   */
  public DdpClientBuilder sessionResumption(boolean resume) {
    this.sessionResumption = resume;
    return this;
  }

  /** The TLS context for {@code wss://} (default: the JVM's, with host name verification on). */
  public DdpClientBuilder sslContext(SSLContext context) {
    this.sslContext = Objects.requireNonNull(context, "sslContext");
    return this;
  }

  /**
   * Adds a listener told of each connection's start and end from the first connection on (see
   * {@link ConnectionListener}); more can be added later with {@link
   * DdpClient#addConnectionListener}.
   */
  public DdpClientBuilder addConnectionListener(ConnectionListener listener) {
    connectionListeners.add(Objects.requireNonNull(listener, "connectionListener"));
    return this;
  }


  /**
   * Adds a status listener, told of every status from the first on; each call adds one more
   * (more can be added later with {@link DdpClient#addStatusListener}).
   */
  public DdpClientBuilder addStatusListener(StatusListener listener) {
    statusListeners.add(Objects.requireNonNull(listener, "statusListener"));
    return this;
  }


  /** Names the client in thread names and logs (default {@code ddp-client-N}). */
  public DdpClientBuilder name(String name) {
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
  public DdpClientBuilder transportFactory(TransportFactory factory) {
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
  public DdpClientBuilder executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /**
   * A wall clock to take {@link DdpStatus#retryTime()} from, instead of the scheduler's {@link
   * Scheduler#wallTime()}.
   *
   * @deprecated the scheduler is the one time source: a {@link VirtualScheduler} made with its
   *     wall-clock start ({@code new VirtualScheduler(start)}) drives the wall time too
   */
  @Deprecated
  public DdpClientBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * The Jackson mapper for params and frames (default: a plain {@link ObjectMapper}, shared by
   * the clients that use the default; the client never configures it); register
   * modules on it for custom types.
   */
  public DdpClientBuilder objectMapper(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "objectMapper");
    return this;
  }

  /**
   * Returns the client, not yet connected: call {@link DdpClient#connect()}.
   *
   * @throws IllegalStateException if no url is set, or both {@code reconnection} and {@code
   *     reopen}, or both {@code transportFactory} and {@code sslContext} are set, or both {@code
   *     random} and the deprecated {@code jitter}, or a deprecated {@code ticker} other than a
   *     {@link VirtualScheduler} scheduler
   */
  public DdpClient build() {
    if (url == null) {
      throw new IllegalStateException("url is required");
    }
    if (reconnection != null && reopen != null) {
      throw new IllegalStateException(
          "set either reconnection(policy) or the legacy reopen(interval), not both");
    }
    if (ticker != null && ticker != scheduler && scheduler instanceof VirtualScheduler) {
      // Not guessed: a client reading another clock over virtual timers misreads every idle time
      // and every "retry in" without a word.
      throw new IllegalStateException(
          "scheduler is a VirtualScheduler, its own ticker: drop the deprecated ticker(...)");
    }
    if (random != null && jitter != null) {
      throw new IllegalStateException("set random(...) only: it feeds the jitter too");
    }
    if (transportFactory != null && sslContext != null) {
      throw new IllegalStateException(
          "sslContext applies to the default transport only: configure TLS in the "
              + "transportFactory instead");
    }
    return new DdpClient(this);
  }

  /** The policy the client's manager follows: {@link #reconnection}, or {@link #reopen}'s. */
  ReconnectPolicy reconnectPolicy() {
    if (reconnection != null) {
      return reconnection;
    }
    return reopen != null
        ? ReconnectPolicy.builder().backoff(Backoff.fixed(reopen)).build()
        : ReconnectPolicy.defaults();
  }

  /** The ticker: the deprecated {@link #ticker} if set, else the scheduler's. */
  Ticker tickerOrDefault() {
    if (ticker != null) {
      return ticker;
    }
    Scheduler s = scheduler;
    return s instanceof Ticker t ? t : s::nanoTime;
  }

  /** The wall clock: the deprecated {@link #clock} if set, else the scheduler's. */
  WallClock wallClock() {
    Clock c = clock;
    Scheduler s = scheduler;
    return c != null ? c::instant : s::wallTime;
  }

  private static Duration positive(String field, Duration d) {
    Objects.requireNonNull(d, field);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + " must be positive: " + d);
    }
    return d;
  }
}
