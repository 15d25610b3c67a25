package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded Rocket.Chat-compatible chat server speaking DDP v1 over WebSocket at
 * {@code /websocket}: password and resume-token login, {@code sendMessage} (idempotent by the
 * client's {@code _id}), {@code loadHistory}, {@code loadMissedMessages}, and the
 * {@code stream-room-messages} stream, with server pings, admission control and a graceful
 * drain. Messages, users, rooms and (hashed) tokens live in a journal file in the data
 * directory, and every answer is sent only once what it acknowledges is on disk, so a new server
 * on the same directory (and port) carries on after {@link #stop()} or {@link #kill()}.
 *
 * <p>It is the backend of the demo and a test peer a test suite depends on (artifact {@code
 * dev.ddpkit:chat-server}, test scope): start it, seed users and rooms, inject faults through the
 * {@link ServerFaults} it was built with, read {@link #stats()}, stop it.
 *
 * <pre>{@code
 * ScriptedFaults faults = new ScriptedFaults();
 * try (ChatServer server = ChatServer.builder().dataDir(tempDir).faults(faults).build()) {
 *   server.start();                                   // a free port on 127.0.0.1
 *   server.createUser("alice", "alice-pw");
 *   server.createRoom("general", "alice");
 *   // ... point a client at server.url() ...
 *   faults.loseNextAcknowledgement();                 // stored, but its answer is lost
 *   faults.dropAll();                                 // every socket reset mid-session
 *   assertThat(server.messageCount("general")).isEqualTo(1);
 * }                                                   // close(): stops it, waits for its threads
 * }</pre>
 *
 * <p>With {@link Builder#ticker} and {@link Builder#scheduler} both a {@link
 * dev.ddpkit.reconnect.VirtualScheduler} (and a {@link Builder#clock} on the same time), its
 * heartbeats, holds and token expiry run on virtual time.
 */
public final class ChatServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ChatServer.class);
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
  /** Period of the work-around for Java-WebSocket's lost write wakeup, see Endpoint. */
  private static final long WRITE_KICK_MILLIS = 10;
  /** How often every socket's send queue is checked against its limit. */
  private static final long SEND_QUEUE_CHECK_MILLIS = 100;

  private enum State { NEW, STARTING, RUNNING, STOPPING, TERMINATED }

  private final ServerConfig cfg;
  private final String threadPrefix;
  private final Secrets secrets = new Secrets();
  private final Counters counters = new Counters();
  private final Object lock = new Object();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private State state = State.NEW;
  private volatile ChatStore store;
  private volatile DdpHandler handler;
  private volatile Endpoint endpoint;
  private volatile ScheduledExecutorService timer;
  private volatile int boundPort = -1;

  private ChatServer(ServerConfig cfg) {
    this.cfg = cfg;
    this.threadPrefix = "chat-server-" + INSTANCES.incrementAndGet() + "-";
  }

  /** A builder with every default set; only {@link Builder#dataDir(Path)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Opens the store and starts listening; returns once the port is bound.
   *
   * @throws IllegalStateException if already started, or if the store or port cannot be opened
   */
  public void start() {
    synchronized (lock) {
      if (state != State.NEW) {
        throw new IllegalStateException("server can be started once; it is " + state);
      }
      state = State.STARTING;
    }
    try {
      Files.createDirectories(cfg.dataDir);
      FatalErrors fatal = new FatalErrors(this, cfg.fatalErrorHandler);
      ScheduledExecutorService t = new GuardedTimer(threadPrefix + "timer", fatal);
      timer = t;
      store = ChatStore.open(cfg.dataDir, threadPrefix + "store", cfg.clock, this::onDurable,
          this::onDurableChanges);
      store.onWriterError(fatal::reportIfFatal);
      DdpHandler h = new DdpHandler(store, secrets, counters, cfg,
          cfg.scheduler != null ? cfg.scheduler : onThread(t));
      handler = h;
      Endpoint ep = new Endpoint(new InetSocketAddress(cfg.host, cfg.port), cfg.workers,
          cfg.maxFrameBytes, h, threadPrefix, fatal, cfg.ticker);
      ep.setMaxPendingConnections(cfg.listenBacklog);
      h.attach(ep);
      endpoint = ep;
      ep.startAndAwait(10_000);
      boundPort = ep.getPort();
      h.startHeartbeat();
      cfg.faults.attached(new FaultTargets());
      t.scheduleWithFixedDelay(ep::flushStalledWrites, WRITE_KICK_MILLIS, WRITE_KICK_MILLIS,
          TimeUnit.MILLISECONDS);
      ep.maxSocketsPerAddress(cfg.maxSocketsPerAddress);
      long upgradeNanos = cfg.upgradeTimeout.toNanos();
      long sweep = Math.max(10, Math.min(1000, cfg.upgradeTimeout.toMillis() / 4));
      t.scheduleWithFixedDelay(
          () -> counters.upgradesTimedOut.addAndGet(ep.dropLateUpgrades(upgradeNanos)),
          sweep, sweep, TimeUnit.MILLISECONDS);
      t.scheduleWithFixedDelay(h::dropSlowReaders, SEND_QUEUE_CHECK_MILLIS,
          SEND_QUEUE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      abortStart();
      throw new IllegalStateException("cannot start the chat server: " + e, e);
    }
    synchronized (lock) {
      state = State.RUNNING;
    }
    log.info("chat server listening on {} (data in {})", url(), cfg.dataDir);
  }

  /** The server's own timer thread as a {@link Scheduler}: the default one. */
  private static Scheduler onThread(ScheduledExecutorService timer) {
    return (delay, task) -> {
      ScheduledFuture<?> f = timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
      Cancellable cancel = () -> f.cancel(false);
      return cancel;
    };
  }

  private void abortStart() {
    Endpoint ep = endpoint;
    if (ep != null) {
      try {
        ep.stopAndJoin(1000);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
    ScheduledExecutorService t = timer;
    if (t != null) {
      t.shutdownNow();
    }
    ChatStore s = store;
    if (s != null) {
      s.close();
    }
    synchronized (lock) {
      state = State.TERMINATED;
    }
    terminated.countDown();
  }

  private void onDurable(List<ObjectNode> messages) {
    DdpHandler h = handler;
    if (h != null) {
      h.broadcast(messages);
    } else {
      counters.messagesStored.addAndGet(messages.size());
    }
  }

  private void onDurableChanges(List<ChatStore.Change> changes) {
    DdpHandler h = handler;
    if (h != null) {
      h.broadcastChanges(changes);
    }
  }

  /** The port the server listens on (the real one when built with port 0). */
  public int port() {
    int p = boundPort;
    if (p < 0) {
      throw new IllegalStateException("server is not started");
    }
    return p;
  }

  /** The WebSocket URL clients dial, such as {@code ws://127.0.0.1:3000/websocket}. */
  public String url() {
    return "ws://" + cfg.dialHost() + ":" + port() + Endpoint.PATH;
  }

  /**
   * Graceful drain: turns new connections away (1012 with a {@code retry-after} hint), closes
   * the open ones with 1012 "service restart" in batches spread over the drain period, then
   * stops listening, stops every thread and closes the store. Idempotent; blocks until done.
   */
  public void stop() {
    shutdown(null);
  }

  /**
   * Planned restart by appointment: the next server is expected to be ready {@code readyIn} from
   * now and to admit this server's {@linkplain Builder#acceptRate accept rate}; see {@link
   * #stopForRestart(Duration, int)}.
   */
  public void stopForRestart(Duration readyIn) {
    stopForRestart(readyIn, cfg.acceptRate);
  }

  /**
   * Planned restart by appointment: closes every connection at once with 1012 "service restart"
   * and its own {@code retry-after}, the time until {@code readyIn + k / capacityAfter} for the
   * connection in place k of the queue (oldest first; a connection that arrives meanwhile joins
   * the end), so that N clients come back one slot each and are all back at {@code readyIn +
   * N / capacityAfter}; then stops as {@link #stop()} does. A client that keeps its appointment
   * finds the next server's admission (empty when it starts) with a token for it.
   *
   * @param readyIn the expected time from now until the next server is ready
   * @param capacityAfter the connections per second the next server admits; 0 for all at once
   *     (then every appointment is {@code readyIn})
   * @throws IllegalArgumentException if {@code readyIn} is negative or {@code capacityAfter} is
   */
  public void stopForRestart(Duration readyIn, int capacityAfter) {
    shutdown(new RestartPlan(readyIn, capacityAfter, cfg.ticker));
  }

  private void shutdown(RestartPlan plan) {
    if (!beginShutdown()) {
      return;
    }
    try {
      if (plan == null) {
        long drainMillis = cfg.drainPeriod.toMillis();
        String reason = "service restart; retry-after=" + Math.max(1000, drainMillis);
        handler.mode(DdpHandler.Mode.DRAINING, () -> reason);
        drain(drainMillis, reason);
      } else {
        handler.mode(DdpHandler.Mode.DRAINING, plan::nextCloseReason);
        List<Session> queue = handler.sessions();
        queue.sort(java.util.Comparator.comparingLong(s -> s.seq));
        queue.forEach(s -> handler.closeGracefully(s, 1012, plan.nextCloseReason()));
        log.info("planned restart: {} connections given appointments from {} ms on",
            queue.size(), plan.readyInMillis());
      }
      awaitNoConnections(2000);
      endpoint.stopAndJoin(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopTimer();
      store.close();
      finishShutdown();
    }
    log.info("chat server on port {} stopped", boundPort);
  }

  /**
   * Hard stop, for tests and the demo: drops every TCP connection with no close frame, stops
   * listening and closes the store without any further write. Whatever was acknowledged is
   * already on disk. Idempotent; blocks until done.
   */
  public void kill() {
    if (!beginShutdown()) {
      return;
    }
    try {
      handler.mode(DdpHandler.Mode.KILLED, () -> "killed");
      handler.sessions().forEach(s -> Liveness.dropAbruptly(s.conn));
      endpoint.stopAndJoin(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopTimer();
      store.closeImmediately();
      finishShutdown();
    }
    log.info("chat server on port {} killed", boundPort);
  }

  /** Same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  private boolean beginShutdown() {
    synchronized (lock) {
      switch (state) {
        case NEW:
          state = State.TERMINATED;
          terminated.countDown();
          return false;
        case RUNNING:
          state = State.STOPPING;
          return true;
        case STARTING:
        case STOPPING:
        case TERMINATED:
          break;
        default:
          throw new AssertionError("Unexpected state: " + state);
      }
    }
    try {
      terminated.await(); // another thread is starting or stopping it: wait for that
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  private void finishShutdown() {
    synchronized (lock) {
      state = State.TERMINATED;
    }
    terminated.countDown();
  }

  private void drain(long drainMillis, String reason) throws InterruptedException {
    List<Session> open = handler.sessions();
    if (open.isEmpty()) {
      return;
    }
    int batches = (int) Math.max(1, Math.min(open.size(), drainMillis / 50));
    long step = drainMillis / batches;
    CountDownLatch done = new CountDownLatch(batches);
    for (int i = 0; i < batches; i++) {
      int from = (int) ((long) open.size() * i / batches);
      int to = (int) ((long) open.size() * (i + 1) / batches);
      List<Session> batch = open.subList(from, to);
      timer.schedule(() -> {
        try {
          batch.forEach(s -> handler.closeGracefully(s, 1012, reason));
        } finally {
          done.countDown();
        }
      }, step * i, TimeUnit.MILLISECONDS);
    }
    if (!done.await(drainMillis + 5000, TimeUnit.MILLISECONDS)) {
      log.warn("drain batches did not all run in time");
    }
  }

  /** Waits up to about {@code timeoutMillis} (in 10 ms naps, no clock read) for no connection. */
  private void awaitNoConnections(long timeoutMillis) {
    for (long naps = timeoutMillis / 10; handler.currentConnections() > 0 && naps > 0; naps--) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  private void stopTimer() {
    ScheduledExecutorService t = timer;
    t.shutdownNow();
    try {
      if (!t.awaitTermination(2, TimeUnit.SECONDS)) {
        log.warn("timer thread did not stop in 2 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ------------------------------------------------------------------ admin API

  /**
   * Creates a user with a password (stored as a salted hash of its SHA-256 digest); returns the
   * new user's id.
   *
   * @throws IllegalArgumentException if the username is malformed or taken
   */
  public String createUser(String username, String password) {
    requireName("username", username);
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("password must not be empty");
    }
    ChatStore s = runningStore();
    ObjectNode user = Frames.object();
    String id = secrets.newId();
    user.put("_id", id);
    user.put("username", username);
    user.put("password", secrets.hashDigest(Secrets.sha256Hex(password)));
    user.put("createdAt", cfg.clock.millis());
    await(s.createUser(username, user));
    return id;
  }

  /**
   * Creates a room with the given members (existing usernames).
   *
   * @throws IllegalArgumentException if the id is malformed, the room exists or a member does not
   */
  public void createRoom(String rid, String... members) {
    requireName("rid", rid);
    Objects.requireNonNull(members, "members");
    ChatStore s = runningStore();
    List<String> names = new ArrayList<>();
    for (String m : members) {
      requireName("member", m);
      if (s.reads().user(m) == null) {
        throw new IllegalArgumentException("no such user: " + m);
      }
      names.add(m);
    }
    await(s.createRoom(rid, names));
  }

  /**
   * Seeds the demo data when the database has no user yet: users alice, bob and carol (passwords
   * {@code alice-pw}, {@code bob-pw}, {@code carol-pw}) in room {@code general}.
   *
   * @return true if it seeded, false if the database already had users
   */
  public boolean seedDemo() {
    if (!runningStore().reads().hasNoUsers()) {
      return false;
    }
    for (String u : List.of("alice", "bob", "carol")) {
      createUser(u, u + "-pw");
    }
    createRoom("general", "alice", "bob", "carol");
    return true;
  }

  /**
   * For tests: issues a resume token for a user, stored (hashed) like one from a password login,
   * with the configured time to live.
   */
  public String issueToken(String username) {
    ChatStore s = runningStore();
    ObjectNode user = username == null ? null : s.reads().user(username);
    if (user == null) {
      throw new IllegalArgumentException("no such user: " + username);
    }
    String token = secrets.newToken();
    long now = cfg.clock.millis();
    ObjectNode record = Frames.object();
    record.put("userId", Frames.text(user, "_id"));
    record.put("username", username);
    record.put("created", now);
    record.put("expires", now + cfg.tokenTtl.toMillis());
    await(s.putToken(Secrets.tokenKey(token), record));
    return token;
  }

  /** For tests: the number of messages stored in a room (0 for an unknown room). */
  public long messageCount(String rid) {
    return runningStore().reads().messageCount(rid);
  }

  /**
   * The room's messages as the server holds them now (live ones only, oldest first): what every
   * client's view of the room must converge to.
   */
  public List<StoredMessage> storedMessages(String rid) {
    List<StoredMessage> out = new ArrayList<>();
    for (ObjectNode m : runningStore().reads().history(rid, Long.MAX_VALUE, Integer.MAX_VALUE)) {
      out.add(new StoredMessage(m.path("_id").asText(), m.path("u").path("username").asText(),
          m.path("msg").asText(), m.path("ts").path("$date").asLong(), m.has("editedAt")));
    }
    java.util.Collections.reverse(out);
    return out;
  }

  /**
   * Admin: deletes the room's messages with {@code from <= ts <= to} (epoch ms) of these users
   * (any user if none), as Rocket.Chat's history pruning does, and tells the room's {@code
   * stream-notify-room} subscribers with one {@code <rid>/deleteMessageBulk} event, listing the
   * ids when {@code withIds} (else only the range and the users, as older servers did). Returns
   * how many were deleted, once durable.
   */
  public int pruneMessages(String rid, long from, long to, List<String> usernames,
      boolean withIds) {
    Objects.requireNonNull(rid, "rid");
    List<String> users = List.copyOf(usernames);
    return await(runningStore().prune(rid, from, to, users, withIds));
  }

  private ChatStore runningStore() {
    synchronized (lock) {
      if (state != State.RUNNING) {
        throw new IllegalStateException("server is not running: " + state);
      }
    }
    return store;
  }

  private static void requireName(String field, String value) {
    if (value == null || !DdpHandler.NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          field + " must be 1 to 64 characters of A-Z a-z 0-9 . _ -: " + value);
    }
  }

  private static <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("store write took over " + ADMIN_TIMEOUT, e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      throw new IllegalStateException("store write failed: " + c, c);
    }
  }

  // ------------------------------------------------------------------ test hooks

  /** Test hook: how many accepted sockets are open, upgraded to WebSocket or not yet. */
  int acceptedSockets() {
    Endpoint ep = endpoint;
    return ep == null ? 0 : ep.acceptedSockets();
  }

  /** What the installed {@link ServerFaults} may do to the open connections. */
  private final class FaultTargets implements ServerFaults.Connections {
    @Override
    public void closeAll(int code, String reason) {
      DdpHandler h = runningHandler();
      h.sessions().forEach(s -> h.closeGracefully(s, code, reason == null ? "" : reason));
    }

    @Override
    public void dropAll() {
      runningHandler().sessions().forEach(s -> Liveness.dropAbruptly(s.conn));
    }
  }

  private DdpHandler runningHandler() {
    runningStore();
    return handler;
  }

  /** An immutable snapshot of the counters. */
  public ChatServerStats stats() {
    DdpHandler h = handler;
    return new ChatServerStats(
        counters.connectionsOpened.get(),
        counters.connectionsRejected.get(),
        counters.connectionsTotal.get(),
        h == null ? 0 : h.currentConnections(),
        h == null ? 0 : h.authenticatedSessions(),
        counters.loginsOk.get(),
        counters.loginsFailed.get(),
        h == null ? java.util.Map.of() : h.subscriptionsByRoom(),
        counters.messagesStored.get(),
        counters.duplicatesIgnored.get(),
        counters.protocolErrors.get(),
        counters.acknowledgementsLost.get(),
        counters.heartbeatTimeouts.get(),
        counters.rateLimited.get(),
        counters.acceptsPerSecond(),
        counters.rejectsPerSecond(),
        counters.socketsRefusedPerAddress.get(),
        counters.upgradesTimedOut.get(),
        counters.slowReadersDropped.get());
  }

  /** The counters of DDP traffic and session resumption, as a snapshot. */
  public SessionStats sessionStats() {
    DdpHandler h = handler;
    return new SessionStats(counters.framesIn.get(), counters.methodCalls.get(),
        counters.subscriptionRequests.get(), counters.sessionsHeld.get(),
        counters.sessionsResumed.get(), counters.sessionsExpired.get(),
        h == null ? 0 : h.heldSessions());
  }

  @Override
  public String toString() {
    return "ChatServer{" + cfg.host + ":" + (boundPort < 0 ? cfg.port : boundPort) + ", "
        + cfg.dataDir + "}";
  }

  // ------------------------------------------------------------------ builder

  /** Settings of a {@link ChatServer}; every setter validates its argument. */
  public static final class Builder {
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

    private Builder() {}

    /**
     * The most bytes queued for one socket and not yet written (default 4 MiB, checked every
     * 100 ms, so what arrives for it within one check comes on top): past it the client is not
     * reading, and it is dropped with 1008, whether or not it pings (counted in {@link
     * ChatServerStats#slowReadersDropped}).
     */
    public Builder maxSendQueueBytes(long bytes) {
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
    public Builder upgradeTimeout(Duration timeout) {
      this.upgradeTimeout = positive("upgradeTimeout", timeout);
      return this;
    }

    /**
     * The most sockets one IP address may hold open, upgraded or not (default 0: no cap, since a
     * test or a benchmark on loopback is one address). Past it a WebSocket
     * is closed with 1013, a reason that says so and {@code retry-after}; past twice the cap a
     * socket is dropped when accepted, before its upgrade.
     */
    public Builder maxSocketsPerAddress(int max) {
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
    public Builder fatalErrorHandler(FatalErrorHandler handler) {
      this.fatalErrorHandler = Objects.requireNonNull(handler, "fatalErrorHandler");
      return this;
    }

    /**
     * Which Rocket.Chat the server acts as for the catch-up methods (default {@link
     * Compatibility#CURRENT}): {@link Compatibility#BEFORE_MESSAGES_GET} answers {@code
     * messages/get} with a 404, {@link Compatibility#ROCKET_CHAT_9} {@code loadMissedMessages}.
     */
    public Builder compatibility(Compatibility compatibility) {
      this.compatibility = Objects.requireNonNull(compatibility, "compatibility");
      return this;
    }

    /** The TCP port; 0 (the default) picks a free one, see {@link ChatServer#port()}. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in [0, 65535]: " + port);
      }
      this.port = port;
      return this;
    }

    /** The address to listen on (default 127.0.0.1). */
    public Builder host(String host) {
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      this.host = host;
      return this;
    }

    /** The directory of the database (required); created if missing. */
    public Builder dataDir(Path dataDir) {
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
    public Builder acceptRate(int perSecond) {
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
    public Builder acceptBurst(int burst) {
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
    public Builder warmUp(Duration warmUp) {
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
    public Builder retryAfterHints(boolean hints) {
      this.retryAfterHints = hints;
      return this;
    }

    /** Quiet time after which the server pings a client (default 25 s). */
    public Builder heartbeatInterval(Duration d) {
      this.heartbeatInterval = positive("heartbeatInterval", d);
      return this;
    }

    /** Time a client has to answer a server ping before it is closed (default 15 s). */
    public Builder heartbeatTimeout(Duration d) {
      this.heartbeatTimeout = positive("heartbeatTimeout", d);
      return this;
    }

    /** The period over which {@link ChatServer#stop()} spreads its closes (default 5 s). */
    public Builder drainPeriod(Duration d) {
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
    public Builder sessionGrace(Duration d) {
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
    public Builder sessionQueueLimit(int frames) {
      if (frames < 0) {
        throw new IllegalArgumentException("sessionQueueLimit must be >= 0: " + frames);
      }
      this.sessionQueueLimit = frames;
      return this;
    }

    /** Lifetime of the resume tokens a login issues (default 90 days). */
    public Builder tokenTtl(Duration d) {
      this.tokenTtl = positive("tokenTtl", d);
      return this;
    }

    /** The largest frame accepted, in bytes (default 1 MiB); bigger ones close with 1009. */
    public Builder maxFrameBytes(int bytes) {
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
    public Builder listenBacklog(int backlog) {
      if (backlog < 1 || backlog > 65535) {
        throw new IllegalArgumentException("listenBacklog must be in [1, 65535]: " + backlog);
      }
      this.listenBacklog = backlog;
      return this;
    }

    /** Socket worker threads that decode frames (default: the number of cores, at least 2). */
    public Builder workers(int workers) {
      if (workers < 1 || workers > 64) {
        throw new IllegalArgumentException("workers must be in [1, 64]: " + workers);
      }
      this.workers = workers;
      return this;
    }

    /** The wall clock for message timestamps and token expiry (default the system UTC clock). */
    public Builder clock(Clock clock) {
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
    public Builder ticker(Ticker ticker) {
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
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * The faults a test injects (default {@link ServerFaults#NONE}): a lost acknowledgement, a
     * held catch-up, every connection cut; {@link ScriptedFaults} is a ready one.
     */
    public Builder faults(ServerFaults faults) {
      this.faults = Objects.requireNonNull(faults, "faults");
      return this;
    }

    /**
     * The DDP rate limits, default {@link RateLimits#rocketChatDefaults()} as on a real Rocket.Chat
     * server; {@link RateLimits#none()} for benchmarks that must go past them.
     */
    public Builder rateLimits(RateLimits limits) {
      if (limits == null) {
        throw new IllegalArgumentException("rateLimits must not be null");
      }
      this.rateLimits = limits;
      return this;
    }

    /** A hook told about every accepted and turned-away connection. */
    public Builder connectionListener(ServerConnectionListener listener) {
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
    public Builder loginRateLimit(int failures, Duration window) {
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
    public Builder addressLoginRateLimit(int failures, Duration window) {
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
}
