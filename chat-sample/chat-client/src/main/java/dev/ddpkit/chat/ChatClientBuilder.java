package dev.ddpkit.chat;

import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpClientBuilder;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Builds a {@link ChatClient} ({@link ChatClient#builder()}). Defaults are set here; each setter
 * validates its argument.
 */
public final class ChatClientBuilder {
  URI url;
  String username;
  String password;
  String token;
  final List<String> rooms = new ArrayList<>();
  ChatListener listener = ChatListener.NONE;
  ReconnectPolicy reconnection;
  Ticker ticker;
  Backoff backoff;
  Duration stableAfter;
  int maxAttempts;
  Duration heartbeatInterval;
  Duration heartbeatTimeout;
  Duration connectTimeout;
  int maxFrameBytes;
  boolean sessionResumption = true;
  int outboxCapacity = 100;
  int dedupWindow = 10_000;
  boolean liveDeletions = true;
  boolean messagesGet = true;
  int historyLimit = 50;
  Duration catchUpOverlap = Duration.ofSeconds(2);
  Duration resendDelay = Duration.ofSeconds(1);
  Scheduler scheduler;
  javax.net.ssl.SSLContext sslContext;
  java.util.concurrent.Executor executor;
  dev.ddpkit.ddp.transport.TransportFactory transportFactory;
  Clock clock; // the deprecated adapter; null: the scheduler's wall time
  ChatLimits limits = ChatLimits.rocketChatDefaults();
  Backoff retryBackoff;
  Random random;
  SplittableRandom splittable; // the deprecated adapter
  RandomIds ids; // the deprecated adapter; null: from random, else a secure one
  String name;

  ChatClientBuilder() {}

  /** The server URL, {@code ws://host:port/websocket}. Required. */
  public ChatClientBuilder url(String url) {
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
  public ChatClientBuilder username(String username) {
    this.username = nonBlank("username", username);
    return this;
  }

  /** The password (sent only as its SHA-256 digest). Conflicts with {@link #token}. */
  public ChatClientBuilder password(String password) {
    this.password = nonBlank("password", password);
    return this;
  }

  /** A resume token to log in with instead of a password. Conflicts with {@link #password}. */
  public ChatClientBuilder token(String token) {
    this.token = nonBlank("token", token);
    return this;
  }

  /** Adds a room to join. */
  public ChatClientBuilder room(String rid) {
    String r = nonBlank("room", rid);
    if (!rooms.contains(r)) {
      rooms.add(r);
    }
    return this;
  }

  /** Adds rooms to join. */
  public ChatClientBuilder rooms(List<String> rids) {
    Objects.requireNonNull(rids, "rooms").forEach(this::room);
    return this;
  }

  /** Receives messages, acknowledgements, status and errors (default: none). */
  public ChatClientBuilder listener(ChatListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * How to reconnect: the DDP client makes its own manager from it. Conflicts with {@link
   * #backoff}, {@link #stableAfter} and {@link #maxAttempts}, which set parts of it. Default:
   * {@link ReconnectPolicy#defaults()} (RFC curve, stable after 10 s).
   */
  public ChatClientBuilder reconnection(ReconnectPolicy policy) {
    this.reconnection = Objects.requireNonNull(policy, "reconnection");
    return this;
  }

  /** The backoff curve of a manager built for this client. */
  public ChatClientBuilder backoff(Backoff backoff) {
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    return this;
  }

  /** How long a connection must last before the attempt counter resets. */
  public ChatClientBuilder stableAfter(Duration stableAfter) {
    this.stableAfter = nonNegative("stableAfter", stableAfter);
    return this;
  }

  /** Give up (status STOPPED) after this many failed attempts in a row; 0 never gives up. */
  public ChatClientBuilder maxAttempts(int maxAttempts) {
    if (maxAttempts < 0) {
      throw new IllegalArgumentException("maxAttempts must not be negative: " + maxAttempts);
    }
    this.maxAttempts = maxAttempts;
    return this;
  }

  /** Ping after this long without traffic (default: the DDP client's). */
  public ChatClientBuilder heartbeatInterval(Duration interval) {
    this.heartbeatInterval = positive("heartbeatInterval", interval);
    return this;
  }

  /** Declare the connection dead this long after an unanswered ping (default: the DDP client's). */
  public ChatClientBuilder heartbeatTimeout(Duration timeout) {
    this.heartbeatTimeout = positive("heartbeatTimeout", timeout);
    return this;
  }

  /**
   * The largest message accepted from the server (default: the DDP client's, 16 MiB); a larger
   * one closes the connection with 1009. A catch-up answer over it makes the client catch up in
   * pages from then on.
   */
  public ChatClientBuilder maxFrameBytes(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be positive: " + max);
    }
    this.maxFrameBytes = max;
    return this;
  }

  /** Give up on a dial after this long (default: the DDP client's). */
  public ChatClientBuilder connectTimeout(Duration timeout) {
    this.connectTimeout = positive("connectTimeout", timeout);
    return this;
  }

  /** How many unacknowledged messages may wait (default 100). */
  public ChatClientBuilder outboxCapacity(int capacity) {
    if (capacity < 1 || capacity > 100_000) {
      throw new IllegalArgumentException("outboxCapacity must be in 1..100000: " + capacity);
    }
    this.outboxCapacity = capacity;
    return this;
  }

  /**
   * How many shown message ids per room the client remembers, to drop a message it has shown
   * already when a catch-up or a re-sent stream event brings it again (default 10,000; the oldest
   * are forgotten first). Each id costs some 100 bytes; a window smaller than the messages a room
   * receives during the longest outage plus the catch-up overlap lets duplicates through.
   */
  public ChatClientBuilder dedupWindow(int ids) {
    if (ids < 1 || ids > 1_000_000) {
      throw new IllegalArgumentException("dedupWindow must be in 1..1000000: " + ids);
    }
    this.dedupWindow = ids;
    return this;
  }

  /**
   * Whether to follow each room's deletions live on {@code stream-notify-room} ({@code
   * <rid>/deleteMessage} and {@code <rid>/deleteMessageBulk}; default true). Without, deletions
   * are seen only by the {@code messages/get} catch-up after a reconnect.
   */
  public ChatClientBuilder liveDeletions(boolean follow) {
    this.liveDeletions = follow;
    return this;
  }

  /**
   * Whether to catch up with {@code messages/get} (default true: edits and deletions made while
   * away are applied); false starts as on a server that answered it with a 404, with {@code
   * loadMissedMessages} (new messages only).
   */
  public ChatClientBuilder messagesGet(boolean use) {
    this.messagesGet = use;
    return this;
  }

  /** How many past messages per room to show on joining; 0 for none (default 50). */
  public ChatClientBuilder historyLimit(int limit) {
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
  public ChatClientBuilder catchUpOverlap(Duration overlap) {
    this.catchUpOverlap = nonNegative("catchUpOverlap", overlap);
    return this;
  }

  /**
   * The first delay of the default {@link #retryBackoff} (default 1 s): before re-sending a
   * message or rejoining a stream that failed for now, doubling each time.
   */
  public ChatClientBuilder resendDelay(Duration delay) {
    this.resendDelay = positive("resendDelay", delay);
    return this;
  }

  /**
   * The one time source, passed on to the DDP client (default: the shared real-time one): every
   * timer runs on it, and every time is read from it, the monotonic ones (heartbeat, next
   * attempt) from {@link Scheduler#nanoTime()}, the wall-clock ones (catch-up times, "retry in",
   * a server's {@code timeToReset}) from {@link Scheduler#wallTime()}. A {@link
   * dev.ddpkit.reconnect.VirtualScheduler} passed here puts the whole client on virtual time.
   */
  public ChatClientBuilder scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return this;
  }

  /**
   * A ticker passed on to the DDP client instead of the scheduler's {@link Scheduler#nanoTime()}.
   *
   * @deprecated the scheduler is the one time source
   */
  @Deprecated
  public ChatClientBuilder ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return this;
  }

  /**
   * The TLS context for {@code wss://}, passed on to the DDP client (default: the JVM's, with
   * certificate and host name checks on). Use it to trust a private CA, never to turn checks off.
   */
  public ChatClientBuilder sslContext(javax.net.ssl.SSLContext context) {
    this.sslContext = Objects.requireNonNull(context, "sslContext");
    return this;
  }

  /**
   * The executor the DDP client's event loop runs on (default: the small pool every client of the
   * JVM shares, so a connected client costs its socket's two threads only). Each client still
   * runs its work in order; an executor of the application's own suits a listener that may block
   * (on the shared pool it holds one of the threads every client needs).
   */
  public ChatClientBuilder executor(java.util.concurrent.Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /**
   * Opens the connections instead of Java-WebSocket (default: the DDP client's): an in-memory
   * transport lets tests and benchmarks drive a client frame by frame, with no socket.
   */
  public ChatClientBuilder transportFactory(dev.ddpkit.ddp.transport.TransportFactory factory) {
    this.transportFactory = Objects.requireNonNull(factory, "transportFactory");
    return this;
  }

  /**
   * Whether to resume the DDP session after a blip where the server allows it (default {@code
   * true}; see {@link DdpClientBuilder#sessionResumption}): a resumed session needs no login, no
   * rejoin and no catch-up call. {@code false}: every reconnect logs in and catches up.
   */
  public ChatClientBuilder sessionResumption(boolean resume) {
    this.sessionResumption = resume;
    return this;
  }

  /**
   * A wall clock for catch-up times and "retry in" instead of the scheduler's {@link
   * Scheduler#wallTime()}.
   *
   * @deprecated the scheduler is the one time source; a device clock that runs ahead is a
   *     scheduler whose {@code wallTime()} does
   */
  @Deprecated
  public ChatClientBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * The source of message ids.
   *
   * @deprecated use {@link #random(Random)}, which feeds the ids too
   */
  @Deprecated
  public ChatClientBuilder ids(RandomIds ids) {
    this.ids = Objects.requireNonNull(ids, "ids");
    return this;
  }

  /**
   * The call budgets to keep to (default {@link ChatLimits#rocketChatDefaults()}); {@link
   * ChatLimits#none()} for a server without limits.
   */
  public ChatClientBuilder limits(ChatLimits limits) {
    this.limits = Objects.requireNonNull(limits, "limits");
    return this;
  }

  /**
   * The backoff of every retry the server gave no time for: a login or fetch failing for now, a
   * stream ended or refused for now, a send failing for now (default: {@link #resendDelay}
   * doubling to 30 s, +-25 %).
   */
  public ChatClientBuilder retryBackoff(Backoff backoff) {
    this.retryBackoff = Objects.requireNonNull(backoff, "retryBackoff");
    return this;
  }

  /**
   * The one source of randomness: every jitter (the reconnection manager's, the chat's own
   * retries') and every id (the DDP client's subscription ids, the message ids) is drawn from it,
   * each part from a stream of its own split from it at {@link #build()}. Seed it ({@code new
   * Random(42)}) in tests and benchmarks: the same seed sends the same frames. Default: a fresh
   * source per part, the ids from a {@link java.security.SecureRandom}.
   */
  public ChatClientBuilder random(Random random) {
    this.random = Objects.requireNonNull(random, "random");
    return this;
  }

  /**
   * The randomness of every jitter.
   *
   * @deprecated use {@link #random(Random)}, which feeds the ids too
   */
  @Deprecated
  public ChatClientBuilder random(SplittableRandom random) {
    this.splittable = Objects.requireNonNull(random, "random");
    return this;
  }

  /** Names the client in thread names and logs. */
  public ChatClientBuilder name(String name) {
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
    if (random != null && (splittable != null || ids != null)) {
      throw new IllegalStateException(
          "random(Random) feeds the jitter and the ids: drop the deprecated random/ids setters");
    }
    if (reconnection != null && (backoff != null || stableAfter != null || maxAttempts > 0)) {
      throw new IllegalStateException(
          "reconnection conflicts with backoff, stableAfter and maxAttempts: set them in the policy");
    }
    return new ChatClient(this);
  }

  /**
   * The randomness of each part, each a stream of its own split from {@link #random} in this
   * order (so that one seed repeats them all): the DDP client's (its jitter and subscription ids),
   * the chat's retries, the message ids.
   */
  record Randomness(Random ddp, Random retries, RandomIds ids) {}

  /** Splits {@link #random} (or the deprecated setters' sources) into the parts' streams. */
  Randomness randomness() {
    if (random != null) {
      Random ddp = new Random(random.nextLong());
      Random retries = new Random(random.nextLong());
      return new Randomness(ddp, retries, new RandomIds(new Random(random.nextLong())));
    }
    RandomIds messageIds = ids != null ? ids : RandomIds.secure();
    if (splittable != null) {
      // As before: the manager's stream split from it first, the chat's retries from the rest.
      Random ddp = new Random(splittable.nextLong());
      return new Randomness(ddp, new Random(splittable.nextLong()), messageIds);
    }
    return new Randomness(null, new Random(), messageIds);
  }

  /** The wall clock of the chat's own times: the scheduler's, or the deprecated clock. */
  Clock wallClock() {
    if (clock != null) {
      return clock;
    }
    return new SchedulerClock(scheduler != null ? scheduler : Scheduler.systemScheduler());
  }

  /** Passes the settings the DDP client takes on to its builder. */
  @SuppressWarnings("deprecation") // passes the deprecated ticker on, as an adapter
  void configure(DdpClientBuilder db, Randomness randomness) {
    db.sessionResumption(sessionResumption);
    ReconnectPolicy policy = reconnection();
    if (policy != null) {
      db.reconnection(policy);
    }
    if (maxFrameBytes > 0) {
      db.maxFrameBytes(maxFrameBytes);
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
    if (ticker != null) {
      db.ticker(ticker);
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
    if (randomness.ddp() != null) {
      db.random(randomness.ddp());
    }
  }

  /** The policy of the DDP client's manager: {@link #reconnection}, or one from the settings. */
  private ReconnectPolicy reconnection() {
    if (reconnection != null) {
      return reconnection;
    }
    if (backoff == null && stableAfter == null && maxAttempts == 0) {
      return null; // the DDP client's default
    }
    ReconnectPolicy.Builder rb = ReconnectPolicy.builder().maxAttempts(maxAttempts);
    if (backoff != null) {
      rb.backoff(backoff);
    }
    if (stableAfter != null) {
      rb.stableAfter(stableAfter);
    }
    return rb.build();
  }

  private static String nonBlank(String field, String value) {
    if (value == null || value.trim().isEmpty()) {
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
