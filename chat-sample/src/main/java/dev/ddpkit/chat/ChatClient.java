package dev.ddpkit.chat;

import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpStats;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

/**
 * A Rocket.Chat-style chat client over DDP: it logs in (password digest, then the resume token
 * after every reconnect), follows one {@code stream-room-messages} stream per room, sends messages
 * through a bounded outbox with client-chosen ids, and after each reconnect fetches what it missed,
 * so that every message is shown once and in order.
 *
 * <p>It never shows stale data without saying so: after each login the status is {@link
 * ChatStatus.State#SYNCING} ("catching up (2 rooms)") until every room's stream is ready and its
 * history or missed messages are shown, and only then {@link ChatStatus.State#CONNECTED}; {@link
 * #isCatchingUp} tells the same per room.
 *
 * <p>It keeps to the server's rate limits ({@link ChatLimits}, Rocket.Chat's defaults unless told
 * otherwise): after a reconnect the streams, the catch-ups and the outbox go out within budget, the
 * room in {@link #focus focus} first, then the most recently active. A call the server holds back
 * ({@code too-many-requests} with {@code timeToReset}) waits exactly that long; every other retry
 * follows a {@link Backoff} with injected randomness. A refusal for now is never final.
 *
 * <p>Thread-safe: every public call, callback and timer runs on the DDP client's event loop, one
 * at a time, so listener calls come in order and never under a lock. Build with {@link
 * #builder()}, then {@link #start()}; {@link #close()} when done.
 */
public final class ChatClient implements AutoCloseable {
  /** The stream collection carrying room messages. */
  public static final String STREAM = "stream-room-messages";

  /** The status before {@link #start()}. */
  static final ChatStatus NOT_STARTED =
      new ChatStatus(ChatStatus.State.STOPPED, 0, Duration.ZERO, "not started");

  private static final AtomicInteger SEQ = new AtomicInteger();

  private final DdpClient ddp;
  private final ChatSession session;
  private final RandomIds ids;
  private final String name;
  private final List<String> rooms;
  private volatile ChatSession.View view;
  private volatile boolean started;

  private ChatClient(Builder b) {
    this.ids = b.ids;
    this.name = b.name != null ? b.name : "chat-" + SEQ.incrementAndGet();
    this.rooms = List.copyOf(b.rooms);
    ChatSession[] holder = new ChatSession[1];
    DdpClient.Builder db =
        DdpClient.builder()
            .url(b.url)
            .name(this.name)
            .clock(b.clock)
            // Room of its own above the outbox, so queued sends never fail for want of space.
            .maxQueuedCalls(Math.max(1_000, 2 * b.outboxCapacity + 100))
            .statusListener(s -> holder[0].onDdpStatus(s));
    b.configure(db);
    this.ddp = db.build();
    Settings settings =
        new Settings(
            name,
            b.username,
            b.password == null ? null : PasswordDigest.sha256Hex(b.password),
            b.token,
            rooms,
            b.historyLimit,
            b.catchUpOverlap,
            b.retryBackoff != null
                ? b.retryBackoff
                : Backoff.proportional(b.resendDelay, Settings.STABLE_STREAM, 0.25),
            b.limits,
            b.clock,
            b.random != null ? b.random : new SplittableRandom(),
            b.outboxCapacity);
    this.session = new ChatSession(settings, ddp, b.listener, v -> view = v);
    holder[0] = session;
    this.view =
        new ChatSession.View(
            NOT_STARTED,
            Set.of(), Set.copyOf(rooms), null, new Stats(0, 0, 0, 0, 0));
    ddp.onStreamEvent(STREAM, (collection, id, fields) -> session.onStreamEvent(fields));
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Connects and logs in (returns at once). Rooms are joined once logged in. */
  public void start() {
    if (session.closed) {
      throw new IllegalStateException("closed");
    }
    if (started) {
      return;
    }
    started = true;
    if (!ddp.execute(session::start)) {
      throw new IllegalStateException("closed");
    }
    ddp.connect();
  }

  /** Returns the client's name (its thread and log name). */
  public String name() {
    return name;
  }

  /** Returns the current status. */
  public ChatStatus status() {
    return view.status();
  }

  /** Returns the rooms asked for at build time. */
  public List<String> rooms() {
    return rooms;
  }

  /** Returns the rooms whose stream is live. */
  public Set<String> joinedRooms() {
    return view.joined();
  }

  /**
   * Returns whether a room's timeline may be missing messages: its stream is not (yet, or no
   * longer) live, for instance while disconnected or rejoining, or its history or what was sent
   * while offline is still being fetched. {@code false} once the room caught up, and for a room not
   * followed (never asked for, or left after a permanent refusal, which {@link
   * ChatListener#onError} reports).
   */
  public boolean isCatchingUp(String rid) {
    Objects.requireNonNull(rid, "rid");
    return view.behind().contains(rid);
  }

  /**
   * Says which room the user is looking at: when the budgets are spent, its stream and catch-up go
   * before every other room's (the others go by recent activity). {@code null} for none.
   */
  public void focus(String rid) {
    ddp.execute(() -> session.focus(rid));
  }

  /** Returns the number of messages written but not yet acknowledged. */
  public int outboxSize() {
    return session.sender.size();
  }

  /**
   * Returns the resume token of the current login, if any, for an app to keep (it is never
   * logged).
   */
  public Optional<String> resumeToken() {
    return Optional.ofNullable(view.token());
  }

  /** Returns counters for monitoring and tests. */
  public Stats stats() {
    return view.stats();
  }

  /**
   * Returns the counters of the DDP connection under the client (reconnects, heartbeat and connect
   * timeouts, protocol errors), for monitoring and tests.
   */
  public DdpStats connectionStats() {
    return ddp.stats();
  }

  /**
   * Completes at the first successful login; fails if the client signs out or stops before.
   */
  public CompletableFuture<Void> loggedIn() {
    return session.firstLogin.copy();
  }

  /**
   * Completes when every message written so far has been acknowledged; fails if the client signs
   * out or stops first.
   */
  public CompletableFuture<Void> flush() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    if (!ddp.execute(() -> session.flush(f))) {
      f.completeExceptionally(new IllegalStateException("client " + view.status().text()));
    }
    return f;
  }

  /**
   * Writes a message: it gets a fresh id, waits in the outbox while offline, and is sent (and
   * re-sent with the same id after a failure) until the server acknowledges it, which {@link
   * ChatListener#onSent} reports. The server stamps its time when it arrives.
   *
   * @return the message id
   * @throws OutboxFullException if the outbox is full
   * @throws IllegalStateException if the client is closed or signed out
   */
  public String sendMessage(String rid, String text) {
    Objects.requireNonNull(rid, "rid");
    Objects.requireNonNull(text, "text");
    if (rid.isEmpty()) {
      throw new IllegalArgumentException("rid must not be empty");
    }
    if (session.closed) {
      throw new IllegalStateException("cannot send: client " + view.status().text());
    }
    if (!session.sender.reserve()) {
      throw new OutboxFullException(session.settings.outboxCapacity());
    }
    String id = ids.next();
    Outbox.Entry entry = new Outbox.Entry(id, rid, text);
    if (!ddp.execute(() -> session.send(entry))) {
      session.sender.release(1);
      throw new IllegalStateException("cannot send: client " + view.status().text());
    }
    return id;
  }

  /** Closes the connection for good. Unacknowledged messages are dropped. */
  @Override
  public void close() {
    ddp.execute(session::close);
    ddp.close();
  }

  @Override
  public String toString() {
    return "ChatClient{" + name + " " + status() + "}";
  }

  /**
   * Counters of one client.
   *
   * @param logins successful logins (the first and one per reconnect)
   * @param resends messages queued again after a failed send
   * @param malformed server documents ignored because of their shape
   * @param catchUps {@code loadMissedMessages} calls made after reconnects
   * @param rateLimited calls and streams the server held back ({@code too-many-requests})
   */
  public record Stats(long logins, long resends, long malformed, long catchUps, long rateLimited) {}

  /** Builds a {@link ChatClient}. Defaults are set here; each setter validates its argument. */
  public static final class Builder {
    private URI url;
    private String username;
    private String password;
    private String token;
    private final List<String> rooms = new ArrayList<>();
    private ChatListener listener = ChatListener.NONE;
    private ReconnectionManager reconnection;
    private Backoff backoff;
    private Duration stableAfter;
    private int maxAttempts;
    private Duration heartbeatInterval;
    private Duration heartbeatTimeout;
    private Duration connectTimeout;
    private int outboxCapacity = 100;
    private int historyLimit = 50;
    private Duration catchUpOverlap = Duration.ofSeconds(2);
    private Duration resendDelay = Duration.ofSeconds(1);
    private Scheduler scheduler;
    private javax.net.ssl.SSLContext sslContext;
    private java.util.concurrent.Executor executor;
    private dev.ddpkit.ddp.transport.TransportFactory transportFactory;
    private Clock clock = Clock.systemUTC();
    private ChatLimits limits = ChatLimits.rocketChatDefaults();
    private Backoff retryBackoff;
    private RandomGenerator random;
    private RandomIds ids = RandomIds.secure();
    private String name;

    private Builder() {}

    /** The server URL, {@code ws://host:port/websocket}. Required. */
    public Builder url(String url) {
      Objects.requireNonNull(url, "url");
      URI uri;
      try {
        uri = URI.create(url);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("url is not a URI: " + url, e);
      }
      if (!"ws".equals(uri.getScheme()) && !"wss".equals(uri.getScheme())) {
        throw new IllegalArgumentException("url must start with ws:// or wss://: " + url);
      }
      if (uri.getHost() == null) {
        throw new IllegalArgumentException("url has no host: " + url);
      }
      this.url = uri;
      return this;
    }

    /** The user name to log in with a password. */
    public Builder username(String username) {
      this.username = nonBlank("username", username);
      return this;
    }

    /** The password (sent only as its SHA-256 digest). Conflicts with {@link #token}. */
    public Builder password(String password) {
      this.password = nonBlank("password", password);
      return this;
    }

    /** A resume token to log in with instead of a password. Conflicts with {@link #password}. */
    public Builder token(String token) {
      this.token = nonBlank("token", token);
      return this;
    }

    /** Adds a room to join. */
    public Builder room(String rid) {
      String r = nonBlank("room", rid);
      if (!rooms.contains(r)) {
        rooms.add(r);
      }
      return this;
    }

    /** Adds rooms to join. */
    public Builder rooms(List<String> rids) {
      Objects.requireNonNull(rids, "rooms").forEach(this::room);
      return this;
    }

    /** Receives messages, acknowledgements, status and errors (default: none). */
    public Builder listener(ChatListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * A reconnection manager of its own (one per client, never shared). Conflicts with {@link
     * #backoff}, {@link #stableAfter} and {@link #maxAttempts}. Default: the DDP client's (RFC
     * curve, stable after 10 s).
     */
    public Builder reconnection(ReconnectionManager manager) {
      this.reconnection = Objects.requireNonNull(manager, "reconnection");
      return this;
    }

    /** The backoff curve of a manager built for this client. */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /** How long a connection must last before the attempt counter resets. */
    public Builder stableAfter(Duration stableAfter) {
      this.stableAfter = nonNegative("stableAfter", stableAfter);
      return this;
    }

    /** Give up (status STOPPED) after this many failed attempts in a row; 0 never gives up. */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 0) {
        throw new IllegalArgumentException("maxAttempts must not be negative: " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Ping after this long without traffic (default: the DDP client's). */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = positive("heartbeatInterval", interval);
      return this;
    }

    /** Declare the connection dead this long after an unanswered ping (default: the DDP client's). */
    public Builder heartbeatTimeout(Duration timeout) {
      this.heartbeatTimeout = positive("heartbeatTimeout", timeout);
      return this;
    }

    /** Give up on a dial after this long (default: the DDP client's). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive("connectTimeout", timeout);
      return this;
    }

    /** How many unacknowledged messages may wait (default 100). */
    public Builder outboxCapacity(int capacity) {
      if (capacity < 1 || capacity > 100_000) {
        throw new IllegalArgumentException("outboxCapacity must be in 1..100000: " + capacity);
      }
      this.outboxCapacity = capacity;
      return this;
    }

    /** How many past messages per room to show on joining; 0 for none (default 50). */
    public Builder historyLimit(int limit) {
      if (limit < 0 || limit > 1_000) {
        throw new IllegalArgumentException("historyLimit must be in 0..1000: " + limit);
      }
      this.historyLimit = limit;
      return this;
    }

    /**
     * How far before the newest message shown a catch-up starts (default 2 s): messages stored
     * concurrently may carry slightly older time stamps; duplicates are dropped by id.
     */
    public Builder catchUpOverlap(Duration overlap) {
      this.catchUpOverlap = nonNegative("catchUpOverlap", overlap);
      return this;
    }

    /**
     * The first delay of the default {@link #retryBackoff} (default 1 s): before re-sending a
     * message or rejoining a stream that failed for now, doubling each time.
     */
    public Builder resendDelay(Duration delay) {
      this.resendDelay = positive("resendDelay", delay);
      return this;
    }

    /** The scheduler for timers, passed on to the DDP client (default: the shared one). */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * The TLS context for {@code wss://}, passed on to the DDP client (default: the JVM's, with
     * certificate and host name checks on). Use it to trust a private CA, never to turn checks off.
     */
    public Builder sslContext(javax.net.ssl.SSLContext context) {
      this.sslContext = Objects.requireNonNull(context, "sslContext");
      return this;
    }

    /**
     * The executor the DDP client's event loop runs on (default: the small pool every client of
     * the JVM shares, so a connected client costs its socket's two threads only). Each client
     * still runs its work in order; an executor of the application's own suits a listener that
     * may block (on the shared pool it holds one of the threads every client needs).
     */
    public Builder executor(java.util.concurrent.Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Opens the connections instead of Java-WebSocket (default: the DDP client's): an in-memory
     * transport lets tests and benchmarks drive a client frame by frame, with no socket.
     */
    public Builder transportFactory(dev.ddpkit.ddp.transport.TransportFactory factory) {
      this.transportFactory = Objects.requireNonNull(factory, "transportFactory");
      return this;
    }

    /** The wall clock, for catch-up times and "retry in" (default: the system's). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The source of message ids (default: a secure random one). */
    public Builder ids(RandomIds ids) {
      this.ids = Objects.requireNonNull(ids, "ids");
      return this;
    }

    /**
     * The call budgets to keep to (default {@link ChatLimits#rocketChatDefaults()}); {@link
     * ChatLimits#none()} for a server without limits.
     */
    public Builder limits(ChatLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * The backoff of every retry the server gave no time for: a login or fetch failing for now, a
     * stream ended or refused for now, a send failing for now (default: {@link #resendDelay}
     * doubling to 30 s, +-25 %).
     */
    public Builder retryBackoff(Backoff backoff) {
      this.retryBackoff = Objects.requireNonNull(backoff, "retryBackoff");
      return this;
    }

    /** The randomness of every jitter (default: a fresh {@link SplittableRandom}); seed it in tests. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** Names the client in thread names and logs. */
    public Builder name(String name) {
      this.name = nonBlank("name", name);
      return this;
    }

    /**
     * Returns the client, not started.
     *
     * @throws IllegalStateException if the url is missing, if neither or both of password and token
     *     are set, if a password has no user name, or if a manager is combined with backoff settings
     */
    public ChatClient build() {
      if (url == null) {
        throw new IllegalStateException("url is required");
      }
      if (password == null && token == null) {
        throw new IllegalStateException("a password or a token is required");
      }
      if (password != null && token != null) {
        throw new IllegalStateException("set a password or a token, not both");
      }
      if (password != null && username == null) {
        throw new IllegalStateException("a password needs a username");
      }
      if (reconnection != null && (backoff != null || stableAfter != null || maxAttempts > 0)) {
        throw new IllegalStateException(
            "reconnection conflicts with backoff, stableAfter and maxAttempts: configure the manager");
      }
      return new ChatClient(this);
    }

    /** Passes the settings the DDP client takes on to its builder. */
    private void configure(DdpClient.Builder db) {
      ReconnectionManager manager = reconnection();
      if (manager != null) {
        db.reconnection(manager);
      }
      if (heartbeatInterval != null) {
        db.heartbeatInterval(heartbeatInterval);
      }
      if (heartbeatTimeout != null) {
        db.heartbeatTimeout(heartbeatTimeout);
      }
      if (connectTimeout != null) {
        db.connectTimeout(connectTimeout);
      }
      if (scheduler != null) {
        db.scheduler(scheduler);
      }
      if (sslContext != null) {
        db.sslContext(sslContext);
      }
      if (executor != null) {
        db.executor(executor);
      }
      if (transportFactory != null) {
        db.transportFactory(transportFactory);
      }
    }

    private ReconnectionManager reconnection() {
      if (reconnection != null) {
        return reconnection;
      }
      if (backoff == null && stableAfter == null && maxAttempts == 0) {
        return null;
      }
      ReconnectionManager.Builder rb = ReconnectionManager.builder().maxAttempts(maxAttempts);
      if (backoff != null) {
        rb.backoff(backoff);
      }
      if (stableAfter != null) {
        rb.stableAfter(stableAfter);
      }
      if (scheduler != null) {
        // The manager no longer guesses its ticker from its scheduler: the time source the
        // DdpClient reads, until the builder takes a ticker of its own.
        rb.scheduler(scheduler)
            .ticker(scheduler instanceof Ticker t ? t : Ticker.systemTicker());
      }
      if (name != null) {
        rb.name(name);
      }
      return rb.build();
    }

    private static String nonBlank(String field, String value) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(field + " must not be blank");
      }
      return value;
    }

    private static Duration positive(String field, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(field + " must be positive: " + d);
      }
      return d;
    }

    private static Duration nonNegative(String field, Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException(field + " must not be negative: " + d);
      }
      return d;
    }
  }
}
