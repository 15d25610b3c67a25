package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link ChatServer}, from {@link ChatServer#builder()}: every default set here,
 * every setter validates its argument, and {@link #build()} hands the server an immutable copy.
 */
public final class ChatServerBuilder {
  /**
   * The default {@link #listenBacklog(int) listen backlog}: a few seconds of a reconnect wave at
   * hundreds of dials per second while the accept loop is slow.
   */
  public static final int DEFAULT_LISTEN_BACKLOG = 1024;

  int port = 0;
  int listenBacklog = DEFAULT_LISTEN_BACKLOG;
  String host = "127.0.0.1";
  Path dataDir;
  int acceptRate = 0;
  int acceptBurst = 0;
  boolean retryAfterHints = true;
  Duration warmUp = Duration.ZERO;
  Duration heartbeatInterval = Duration.ofSeconds(25);
  Duration heartbeatTimeout = Duration.ofSeconds(15);
  Duration drainPeriod = Duration.ofSeconds(5);
  Duration sessionGrace = Duration.ofSeconds(15);
  int sessionQueueLimit = 100;
  Duration tokenTtl = Duration.ofDays(90);
  int maxTokensPerUser = 100;
  int maxFrameBytes = 1 << 20;
  int workers = Math.max(2, Runtime.getRuntime().availableProcessors());
  Clock clock = Clock.systemUTC();
  Ticker ticker = Ticker.systemTicker();
  /** Null: the server's own timer thread. */
  Scheduler scheduler;
  ServerFaults faults = ServerFaults.NONE;
  RateLimits rateLimits = RateLimits.rocketChatDefaults();
  ServerConnectionListener connectionListener = ServerConnectionListener.NONE;
  int loginFailures = 5;
  Duration loginWindow = Duration.ofSeconds(10);
  int addressLoginFailures = 20;
  Duration addressLoginWindow = Duration.ofMinutes(1);
  Compatibility compatibility = Compatibility.CURRENT;
  FatalErrorHandler fatalErrorHandler = FatalErrorHandler.KILL_SERVER;
  Duration upgradeTimeout = Duration.ofSeconds(5);
  int maxSocketsPerAddress = 0;
  long maxSendQueueBytes = 4L << 20;

  ChatServerBuilder() {}

  /**
   * The most bytes queued for one socket and not yet written (default 4 MiB, checked every
   * 100 ms, so what arrives for it within one check comes on top): past it the client is not
   * reading, and it is dropped with 1008, whether or not it pings (counted in {@link
   * ChatServerStats#slowReadersDropped}).
   */
  public ChatServerBuilder maxSendQueueBytes(long bytes) {
    if (bytes < 1024) {
      throw new IllegalArgumentException("maxSendQueueBytes must be >= 1024: " + bytes);
    }
    this.maxSendQueueBytes = bytes;
    return this;
  }

  /**
   * How long an accepted socket may take to complete its HTTP upgrade before it is dropped
   * (default 5 s). Once upgraded, a WebSocket has the heartbeat's time to send DDP {@code
   * connect}; before, nothing else would ever close it.
   */
  public ChatServerBuilder upgradeTimeout(Duration timeout) {
    this.upgradeTimeout = positive("upgradeTimeout", timeout);
    return this;
  }

  /**
   * The most sockets one IP address may hold open, upgraded or not (default 0: no cap, since a
   * test or a benchmark on loopback is one address). Past it a WebSocket
   * is closed with 1013, a reason that says so and {@code retry-after}; past twice the cap a
   * socket is dropped when accepted, before its upgrade.
   */
  public ChatServerBuilder maxSocketsPerAddress(int max) {
    if (max < 0) {
      throw new IllegalArgumentException("maxSocketsPerAddress must be >= 0: " + max);
    }
    this.maxSocketsPerAddress = max;
    return this;
  }

  /**
   * What to do once a thread of the server meets an {@link Error} such as {@code
   * OutOfMemoryError} (default {@link FatalErrorHandler#KILL_SERVER}; {@code serve} ends the
   * process with {@link FatalErrorHandler#haltProcess}).
   */
  public ChatServerBuilder fatalErrorHandler(FatalErrorHandler handler) {
    this.fatalErrorHandler = Objects.requireNonNull(handler, "fatalErrorHandler");
    return this;
  }

  /**
   * Which Rocket.Chat the server acts as for the catch-up methods (default {@link
   * Compatibility#CURRENT}): {@link Compatibility#BEFORE_MESSAGES_GET} answers {@code
   * messages/get} with a 404, {@link Compatibility#ROCKET_CHAT_9} {@code loadMissedMessages}.
   */
  public ChatServerBuilder compatibility(Compatibility compatibility) {
    this.compatibility = Objects.requireNonNull(compatibility, "compatibility");
    return this;
  }

  /** The TCP port; 0 (the default) picks a free one, see {@link ChatServer#port()}. */
  public ChatServerBuilder port(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in [0, 65535]: " + port);
    }
    this.port = port;
    return this;
  }

  /** The address to listen on (default 127.0.0.1). */
  public ChatServerBuilder host(String host) {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    this.host = host;
    return this;
  }

  /** The directory of the database (required); created if missing. */
  public ChatServerBuilder dataDir(Path dataDir) {
    if (dataDir == null) {
      throw new IllegalArgumentException("dataDir must not be null");
    }
    this.dataDir = dataDir;
    return this;
  }

  /**
   * The most new connections accepted per second, by the {@link
   * dev.ddpkit.reconnect.admission.Admission} token bucket (empty when the server starts); past
   * it a connection is closed at once with 1013 and a {@code retry-after=<ms>} reason naming the
   * next free slot, which is reserved for the client that comes back in it. 0 (the default)
   * means unlimited.
   */
  public ChatServerBuilder acceptRate(int perSecond) {
    if (perSecond < 0) {
      throw new IllegalArgumentException("acceptRate must be >= 0: " + perSecond);
    }
    this.acceptRate = perSecond;
    return this;
  }

  /**
   * The depth of the admission bucket in connections (default 0: the same as the accept rate).
   * With retry-after hints on, the admission never lets more than the accept rate start in one
   * second, and a connection admitted past that is held (kept open, served later) for up to
   * about {@code burst / acceptRate} seconds: keep that well under the clients' connect
   * timeout.
   */
  public ChatServerBuilder acceptBurst(int burst) {
    if (burst < 0) {
      throw new IllegalArgumentException("acceptBurst must be >= 0: " + burst);
    }
    this.acceptBurst = burst;
    return this;
  }

  /**
   * How long after it starts the server admits nobody (default zero): it listens while it is
   * still getting ready, and turns every connection away with 1013 and its appointment, a slot
   * after the warm-up at the accept rate (the {@link
   * dev.ddpkit.reconnect.admission.Admission.Builder#warmUp warm-up} of its admission). A
   * restart that binds the port at once and warms up for D books every client that dials
   * meanwhile, instead of refusing it and leaving it to sleep on its own backoff curve. The port
   * is bound once the store is open, so a dial during a slow open is still refused. Needs an
   * {@linkplain #acceptRate accept rate}; at most 10 minutes (see {@link
   * dev.ddpkit.reconnect.admission.Admission.Builder#warmUp}).
   */
  public ChatServerBuilder warmUp(Duration warmUp) {
    Objects.requireNonNull(warmUp, "warmUp");
    if (warmUp.isNegative() || warmUp.compareTo(ClosePolicy.MAX_RETRY_AFTER) > 0) {
      throw new IllegalArgumentException("warmUp must be in 0..10 minutes: " + warmUp);
    }
    this.warmUp = warmUp;
    return this;
  }

  /**
   * Whether a 1013 past the accept rate carries the {@code retry-after=<ms>} hint (default true).
   * Off, the close reason is a bare "try again later", as from a server that gives no hint; for
   * benchmarks comparing client backoff with and without the hint.
   */
  public ChatServerBuilder retryAfterHints(boolean hints) {
    this.retryAfterHints = hints;
    return this;
  }

  /** Quiet time after which the server pings a client (default 25 s). */
  public ChatServerBuilder heartbeatInterval(Duration d) {
    this.heartbeatInterval = positive("heartbeatInterval", d);
    return this;
  }

  /** Time a client has to answer a server ping before it is closed (default 15 s). */
  public ChatServerBuilder heartbeatTimeout(Duration d) {
    this.heartbeatTimeout = positive("heartbeatTimeout", d);
    return this;
  }

  /** The period over which {@link ChatServer#stop()} spreads its closes (default 5 s). */
  public ChatServerBuilder drainPeriod(Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException("drainPeriod must be >= 0: " + d);
    }
    this.drainPeriod = d;
    return this;
  }

  /**
   * How long a DDP session whose socket dropped is kept for its client to resume it (Meteor
   * 3.5's session resumption; default 15 s, as Meteor's {@code disconnectGracePeriod}); zero
   * turns resumption off. A session closed by the server (drain, protocol error, policy) or
   * ended by {@code disconnect} or {@code logout} is never kept; a kill or restart loses them.
   */
  public ChatServerBuilder sessionGrace(Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException("sessionGrace must be >= 0: " + d);
    }
    this.sessionGrace = d;
    return this;
  }

  /**
   * How many frames a held session keeps for its replay (default 100, as Meteor's {@code
   * maxMessageQueueLength}); one more ends the session, and its client gets a new one.
   */
  public ChatServerBuilder sessionQueueLimit(int frames) {
    if (frames < 0) {
      throw new IllegalArgumentException("sessionQueueLimit must be >= 0: " + frames);
    }
    this.sessionQueueLimit = frames;
    return this;
  }

  /** Lifetime of the resume tokens a login issues (default 90 days). */
  public ChatServerBuilder tokenTtl(Duration d) {
    this.tokenTtl = positive("tokenTtl", d);
    return this;
  }

  /**
   * The most resume tokens a user keeps (default 100): a login past it forgets the user's oldest
   * token, whose device must log in again with its password. Without a cap a client that logs in
   * again and again (each login within the rate limits) would grow the store for as long as the
   * tokens live.
   */
  public ChatServerBuilder maxTokensPerUser(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("maxTokensPerUser must be positive: " + max);
    }
    this.maxTokensPerUser = max;
    return this;
  }

  /** The largest frame accepted, in bytes (default 1 MiB); bigger ones close with 1009. */
  public ChatServerBuilder maxFrameBytes(int bytes) {
    if (bytes < 1024 || bytes > (64 << 20)) {
      throw new IllegalArgumentException("maxFrameBytes must be in [1024, 64 MiB]: " + bytes);
    }
    this.maxFrameBytes = bytes;
    return this;
  }

  /**
   * How many connections the kernel queues for the accept loop (default {@link
   * #DEFAULT_LISTEN_BACKLOG}; Linux caps it at {@code net.core.somaxconn}). When the queue is
   * full the kernel drops the next SYNs and each such client's TCP retries only 1 s, 3 s, 7 s
   * later: a reconnect wave needs room here (Java-WebSocket would pass the JDK's 50).
   */
  public ChatServerBuilder listenBacklog(int backlog) {
    if (backlog < 1 || backlog > 65535) {
      throw new IllegalArgumentException("listenBacklog must be in [1, 65535]: " + backlog);
    }
    this.listenBacklog = backlog;
    return this;
  }

  /**
   * Socket worker threads that decode what connections send (default: the number of cores, at
   * least 2); the selector thread decodes a connection's first read itself when it is the whole
   * upgrade or a lone DDP {@code connect} (see {@code SelectorDecodes}).
   */
  public ChatServerBuilder workers(int workers) {
    if (workers < 1 || workers > 64) {
      throw new IllegalArgumentException("workers must be in [1, 64]: " + workers);
    }
    this.workers = workers;
    return this;
  }

  /** The wall clock for message timestamps and token expiry (default the system UTC clock). */
  public ChatServerBuilder clock(Clock clock) {
    if (clock == null) {
      throw new IllegalArgumentException("clock must not be null");
    }
    this.clock = clock;
    return this;
  }

  /**
   * The monotonic time source of everything the server times (default {@link
   * Ticker#systemTicker()}): rate limits, admission, heartbeats; a test passes a virtual one (with
   * the {@link #scheduler} on the same time) to step through them without waiting.
   */
  public ChatServerBuilder ticker(Ticker ticker) {
    if (ticker == null) {
      throw new IllegalArgumentException("ticker must not be null");
    }
    this.ticker = ticker;
    return this;
  }

  /**
   * Where the server's timers run: its heartbeat, the end of a held connection's hold, the drop
   * after a close the peer never completes (default: the server's own timer thread). A test passes
   * a {@link dev.ddpkit.reconnect.VirtualScheduler}, with the same object as {@link #ticker}, and
   * runs them on virtual time. The drain's batches and the write kicks stay on the server's thread.
   */
  public ChatServerBuilder scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return this;
  }

  /**
   * The faults a test injects (default {@link ServerFaults#NONE}): a lost acknowledgement, a
   * held catch-up, every connection cut; {@link ScriptedFaults} is a ready one.
   */
  public ChatServerBuilder faults(ServerFaults faults) {
    this.faults = Objects.requireNonNull(faults, "faults");
    return this;
  }

  /**
   * The DDP rate limits, default {@link RateLimits#rocketChatDefaults()} as on a real Rocket.Chat
   * server; {@link RateLimits#none()} for benchmarks that must go past them.
   */
  public ChatServerBuilder rateLimits(RateLimits limits) {
    if (limits == null) {
      throw new IllegalArgumentException("rateLimits must not be null");
    }
    this.rateLimits = limits;
    return this;
  }

  /** A hook told about every accepted and turned-away connection. */
  public ChatServerBuilder connectionListener(ServerConnectionListener listener) {
    if (listener == null) {
      throw new IllegalArgumentException("connectionListener must not be null");
    }
    this.connectionListener = listener;
    return this;
  }

  /**
   * Login rate limit: at most {@code failures} failed logins per connection, and per username
   * from one address, within {@code window} (default 5 per 10 s); further attempts get {@code
   * too-many-requests}. Never per username alone: the same username from another address is not
   * held back, so guessing alice's password does not lock alice out.
   */
  public ChatServerBuilder loginRateLimit(int failures, Duration window) {
    if (failures < 1) {
      throw new IllegalArgumentException("loginRateLimit failures must be >= 1: " + failures);
    }
    this.loginWindow = positive("loginRateLimit window", window);
    this.loginFailures = failures;
    return this;
  }

  /**
   * Login rate limit per remote address: at most {@code failures} failed logins (password or
   * resume token) from one IP address within {@code window} (default 20 a minute), across all
   * its connections and usernames; further attempts from it get {@code too-many-requests}.
   * Only failures count, so many clients behind one address (a NAT, a load test on loopback)
   * log in freely; what it stops is spraying usernames or guessing tokens from fresh sockets.
   */
  public ChatServerBuilder addressLoginRateLimit(int failures, Duration window) {
    if (failures < 1) {
      throw new IllegalArgumentException(
          "addressLoginRateLimit failures must be >= 1: " + failures);
    }
    this.addressLoginWindow = positive("addressLoginRateLimit window", window);
    this.addressLoginFailures = failures;
    return this;
  }

  /** Builds the server (not started). */
  public ChatServer build() {
    if (dataDir == null) {
      throw new IllegalStateException("dataDir is required");
    }
    if (!warmUp.isZero() && acceptRate == 0) {
      throw new IllegalStateException(
          "warmUp needs an acceptRate: the appointments after it are booked at that rate");
    }
    return new ChatServer(config());
  }

  /** The settings as the immutable value the server's parts are given. */
  ServerConfig config() {
    return new ServerConfig(this);
  }

  private static Duration positive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0: " + d);
    }
    return d;
  }
}
