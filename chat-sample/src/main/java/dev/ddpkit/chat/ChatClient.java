package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpException;
import dev.ddpkit.ddp.DdpMethodException;
import dev.ddpkit.ddp.DdpStats;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.Scheduler;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Thread-safe. Listener calls come in order, one at a time, never under a lock. Build with
 * {@link #builder()}, then {@link #start()}; {@link #close()} when done.
 */
public final class ChatClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ChatClient.class);

  /** The stream collection carrying room messages. */
  public static final String STREAM = "stream-room-messages";

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final int MAX_SEEN_IDS = 10_000;
  private static final int MAX_HELD = 10_000;
  /** The longest wait before joining again a room whose stream ended. */
  private static final Duration REJOIN_CAP = Duration.ofSeconds(30);

  private final DdpClient ddp;
  private final ChatListener listener;
  private final String username;
  private final String passwordDigest;
  private final List<String> rooms;
  private final Clock clock;
  private final Duration catchUpOverlap;
  private final Duration resendDelay;
  private final int historyLimit;
  private final Scheduler scheduler;
  private final RandomIds ids;
  private final String name;

  private final Object lock = new Object();
  // Taken before lock, never while holding it: see sendQueued.
  private final Object sendLock = new Object();
  // Everything below is guarded by lock.
  private final Map<String, RoomTimeline> timelines = new LinkedHashMap<>();
  private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
  private final Set<String> joined = new LinkedHashSet<>();
  /** Rooms whose stream ended for a transient reason at least once. */
  private final Map<String, Rejoin> rejoins = new LinkedHashMap<>();
  /**
   * Catch-ups refused for want of a login after a reconnect, by room: still begun (live messages
   * held), they fetch again once logged in.
   */
  private final Map<String, RoomTimeline.CatchUp> catchUpsAfterLogin = new LinkedHashMap<>();
  private final Outbox outbox;
  private final ArrayDeque<Runnable> events = new ArrayDeque<>();
  private final List<CompletableFuture<Void>> flushWaiters = new ArrayList<>();
  private final CompletableFuture<Void> firstLogin = new CompletableFuture<>();
  private boolean draining;
  private boolean started;
  private boolean closed;
  private boolean loggedIn;
  private boolean resendScheduled;
  private String token;
  private DdpStatus lastDdpStatus;
  private boolean terminal;
  private ChatStatus status =
      new ChatStatus(ChatStatus.State.STOPPED, 0, Duration.ZERO, "not started");
  private long logins;
  private long resends;
  private long malformed;
  private long catchUps;

  private ChatClient(Builder b) {
    this.listener = b.listener;
    this.username = b.username;
    this.passwordDigest = b.password == null ? null : PasswordDigest.sha256Hex(b.password);
    this.token = b.token;
    this.rooms = List.copyOf(b.rooms);
    this.clock = b.clock;
    this.catchUpOverlap = b.catchUpOverlap;
    this.resendDelay = b.resendDelay;
    this.historyLimit = b.historyLimit;
    this.scheduler = b.scheduler != null ? b.scheduler : Scheduler.systemScheduler();
    this.ids = b.ids;
    this.name = b.name != null ? b.name : "chat-" + SEQ.incrementAndGet();
    this.outbox = new Outbox(b.outboxCapacity);
    for (String rid : rooms) {
      timelines.put(rid, new RoomTimeline(rid, MAX_SEEN_IDS, MAX_HELD));
    }
    DdpClient.Builder db =
        DdpClient.builder()
            .url(b.url)
            .name(this.name)
            // Room of its own above the outbox, so queued sends never fail for want of space.
            .maxQueuedCalls(Math.max(1_000, 2 * b.outboxCapacity + 100))
            .statusListener(this::onDdpStatus);
    ReconnectionManager manager = b.reconnection();
    if (manager != null) {
      db.reconnection(manager);
    }
    if (b.heartbeatInterval != null) {
      db.heartbeatInterval(b.heartbeatInterval);
    }
    if (b.heartbeatTimeout != null) {
      db.heartbeatTimeout(b.heartbeatTimeout);
    }
    if (b.connectTimeout != null) {
      db.connectTimeout(b.connectTimeout);
    }
    if (b.scheduler != null) {
      db.scheduler(b.scheduler);
    }
    if (b.sslContext != null) {
      db.sslContext(b.sslContext);
    }
    if (b.executor != null) {
      db.executor(b.executor);
    }
    if (b.direct) {
      db.directExecution();
    }
    if (b.transportFactory != null) {
      db.transportFactory(b.transportFactory);
    }
    db.clock(b.clock);
    this.ddp = db.build();
    ddp.onReconnect(client -> onReconnect());
    // The revived room streams count as caught up only once the DDP resync swapped them in.
    ddp.addResyncListener(resyncing -> onDdpResync(resyncing));
    ddp.onStreamEvent(STREAM, (collection, id, fields) -> onStreamEvent(fields));
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Connects and logs in (returns at once). Rooms are joined once logged in. */
  public void start() {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("closed");
      }
      if (started) {
        return;
      }
      started = true;
      setStatusLocked(ChatStatus.of(ChatStatus.State.CONNECTING));
    }
    drain();
    ddp.connect();
    // Queued until the first connection is up. Not retried by the DDP client if the connection is
    // lost before the answer: the reconnect hook logs in afresh instead.
    login();
  }

  /** Returns the client's name (its thread and log name). */
  public String name() {
    return name;
  }

  /** Returns the current status. */
  public ChatStatus status() {
    synchronized (lock) {
      return status;
    }
  }

  /** Returns the rooms asked for at build time. */
  public List<String> rooms() {
    return rooms;
  }

  /** Returns the rooms whose stream the server accepted. */
  public Set<String> joinedRooms() {
    synchronized (lock) {
      return Set.copyOf(joined);
    }
  }

  /**
   * Returns whether a room's timeline may be missing messages: its stream is not (yet, or no
   * longer) live, for instance while disconnected or rejoining, or its history or what was sent
   * while offline is still being fetched. {@code false} once the room caught up, and for a room not
   * followed (never asked for, or left after a refusal). A failed catch-up ends it too (the failure
   * is reported through {@link ChatListener#onError}).
   */
  public boolean isCatchingUp(String rid) {
    Objects.requireNonNull(rid, "rid");
    synchronized (lock) {
      return behindLocked(rid);
    }
  }

  /** Returns the number of messages written but not yet acknowledged. */
  public int outboxSize() {
    synchronized (lock) {
      return outbox.size();
    }
  }

  /**
   * Returns the resume token of the current login, if any, for an app to keep (it is never
   * logged).
   */
  public Optional<String> resumeToken() {
    synchronized (lock) {
      return Optional.ofNullable(token);
    }
  }

  /** Returns counters for monitoring and tests. */
  public Stats stats() {
    synchronized (lock) {
      return new Stats(logins, resends, malformed, catchUps);
    }
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
    return firstLogin.copy();
  }

  /**
   * Completes when every message written so far has been acknowledged; fails if the client signs
   * out or stops first.
   */
  public CompletableFuture<Void> flush() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    synchronized (lock) {
      if (outbox.isEmpty()) {
        f.complete(null);
      } else if (closed || terminal) {
        f.completeExceptionally(new IllegalStateException("client " + status.text()));
      } else {
        flushWaiters.add(f);
      }
    }
    return f;
  }

  /**
   * Writes a message: it gets a fresh id, waits in the outbox while offline, and is sent (and
   * re-sent with the same id after a failure) until the server acknowledges it, which {@link
   * ChatListener#onSent} reports.
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
    String id = ids.next();
    synchronized (lock) {
      if (closed || terminal) {
        throw new IllegalStateException("cannot send: client " + status.text());
      }
      outbox.add(new Outbox.Entry(id, rid, text));
    }
    sendQueued();
    return id;
  }

  /** Closes the connection for good. Unacknowledged messages are dropped. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      loggedIn = false;
      setStatusLocked(ChatStatus.of(ChatStatus.State.STOPPED));
      failWaitersLocked();
    }
    drain();
    ddp.close();
  }

  @Override
  public String toString() {
    return "ChatClient{" + name + " " + status() + "}";
  }

  // ---- login ----

  private void login() {
    Map<String, Object> params;
    boolean resume;
    synchronized (lock) {
      if (closed) {
        return;
      }
      resume = token != null;
      params = resume ? Map.of("resume", token) : passwordParams();
    }
    call("login", List.of(params), CallOptions.WAIT.withNoRetry(true))
        .whenComplete((result, error) -> onLoginResult(result, error, resume));
  }

  private Map<String, Object> passwordParams() {
    return Map.of(
        "user", Map.of("username", username),
        "password", Map.of("digest", passwordDigest, "algorithm", "sha-256"));
  }

  private void onLoginResult(JsonNode result, Throwable error, boolean resume) {
    Throwable cause = unwrap(error);
    if (cause != null) {
      if (!(cause instanceof DdpMethodException e)
          || DdpMethodException.INVOCATION_FAILED.equals(e.error())) {
        // The connection went away before the answer: the reconnect hook logs in again.
        log.debug("{}: login interrupted: {}", name, cause.toString());
      } else if (retryable(e)) {
        // Busy or rate-limited: try again on this connection a little later.
        emitError("login failed, retrying: " + e.getMessage());
        scheduler.schedule(resendDelay.multipliedBy(2), this::retryLogin);
      } else {
        signOut((resume ? "token refused" : "login refused") + " (" + e.getMessage() + ")");
      }
      return;
    }
    JsonNode tokenNode = result == null ? null : result.get("token");
    if (tokenNode == null || !tokenNode.isTextual() || tokenNode.textValue().isEmpty()) {
      signOut("login answer without a token");
      return;
    }
    List<String> toJoin = new ArrayList<>();
    Map<String, RoomTimeline.CatchUp> toCatchUp;
    synchronized (lock) {
      if (closed) {
        return;
      }
      toCatchUp = new LinkedHashMap<>(catchUpsAfterLogin);
      catchUpsAfterLogin.clear();
      token = tokenNode.textValue();
      loggedIn = true;
      logins++;
      for (String rid : rooms) {
        if (!subscriptions.containsKey(rid) && timelines.containsKey(rid)) {
          toJoin.add(rid);
        }
      }
      // SYNCING while rooms are joined and caught up (the calls below), CONNECTED if none is behind.
      showSyncLocked();
      // Completed in the event order, so a waiter sees the status line first.
      events.add(() -> firstLogin.complete(null));
    }
    drain();
    toJoin.forEach(this::join);
    sendQueued();
    toCatchUp.forEach(this::fetchMissed);
  }

  private void retryLogin() {
    synchronized (lock) {
      if (closed || loggedIn || lastDdpStatus == null || !lastDdpStatus.connected()) {
        return; // logged in meanwhile, or the reconnect hook will do it
      }
    }
    login();
  }

  private void emitError(String message) {
    synchronized (lock) {
      events.add(() -> listener.onError(message));
    }
    drain();
  }

  private void signOut(String reason) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      loggedIn = false;
      token = null;
      setStatusLocked(new ChatStatus(ChatStatus.State.SIGNED_OUT, 0, Duration.ZERO, reason));
      failWaitersLocked();
    }
    drain();
    log.info("{}: signed out: {}", name, reason);
    closeDdpElsewhere();
  }

  /** Closes the DDP client from a thread of its own: we may be on its event loop, which it stops. */
  private void closeDdpElsewhere() {
    Thread t = new Thread(ddp::close, name + "-close");
    t.setDaemon(true);
    t.start();
  }

  // ---- reconnect ----

  /** Runs on the DDP event loop on every reconnection, before subscriptions are re-sent. */
  private void onReconnect() {
    synchronized (lock) {
      loggedIn = false;
    }
    // A wait call: everything issued after it, here or by the DDP client, goes out after it.
    login();
    List<String> rids;
    synchronized (lock) {
      rids = new ArrayList<>(joined);
    }
    for (String rid : rids) {
      catchUp(rid);
    }
  }

  private void catchUp(String rid) {
    RoomTimeline.CatchUp catchUp;
    synchronized (lock) {
      RoomTimeline t = timelines.get(rid);
      if (t == null || closed || catchUpsAfterLogin.containsKey(rid)) {
        return; // gone, or a refused catch-up already waits for the login
      }
      catchUp = t.beginCatchUp();
    }
    fetchMissed(rid, catchUp);
  }

  /** Fetches what was missed in a room, ending {@code catchUp}, begun for it. */
  private void fetchMissed(String rid, RoomTimeline.CatchUp catchUp) {
    Instant since;
    synchronized (lock) {
      RoomTimeline t = timelines.get(rid);
      if (t == null || closed) {
        return;
      }
      catchUps++;
      since = t.catchUpSince(catchUpOverlap, clock.instant());
    }
    // noRetry: after another reconnect the hook asks again from the then newest message.
    call(
            "loadMissedMessages",
            List.of(rid, since), // EJSON on the wire: {"$date": millis}
            CallOptions.DEFAULT.withNoRetry(true))
        .whenComplete((result, error) -> onCatchUpResult(rid, catchUp, result, error, "catch-up"));
  }

  private void onCatchUpResult(
      String rid, RoomTimeline.CatchUp catchUp, JsonNode result, Throwable error, String what) {
    Throwable cause = unwrap(error);
    List<ChatMessage> show;
    String problem = null;
    synchronized (lock) {
      RoomTimeline t = timelines.get(rid);
      if (t == null || closed) {
        return; // nothing is shown after the client stopped
      }
      if (cause instanceof DdpMethodException e && awaitingLoginLocked(e)) {
        // Sent before the login went through after a reconnect: fetch again once logged in,
        // holding live messages until then.
        log.debug("{}: {} of room {} refused before the login; again after it", name, what, rid);
        if (catchUpsAfterLogin.putIfAbsent(rid, catchUp) == null) {
          show = List.of();
        } else {
          show = t.abortCatchUp(catchUp); // the one waiting already covers this gap
        }
      } else if (cause != null) {
        show = t.abortCatchUp(catchUp);
        if (!(cause instanceof DdpMethodException e
            && DdpMethodException.INVOCATION_FAILED.equals(e.error()))) {
          // Said, since the room now counts as caught up: what it missed may not all be shown.
          // (Cut by a lost connection, it is fetched again after the reconnect instead.)
          problem = what + " of room " + rid + " failed: " + cause.getMessage();
        }
      } else {
        int[] bad = {0};
        List<ChatMessage> fetched = MessageParser.parseList(result, rid, bad);
        malformed += bad[0];
        show = t.completeCatchUp(catchUp, fetched);
        if ("history".equals(what)) {
          t.markHistoryLoaded();
        }
      }
      emitMessagesLocked(show);
      if (problem != null) {
        String p = problem;
        events.add(() -> listener.onError(p));
      }
      showSyncLocked(); // after the messages: "connected" comes once they are shown
    }
    drain();
  }

  // ---- rooms ----

  private void join(String rid) {
    Subscription sub;
    boolean rejoin;
    RoomTimeline.CatchUp catchUp = null;
    synchronized (lock) {
      RoomTimeline t = timelines.get(rid);
      if (closed || subscriptions.containsKey(rid) || t == null) {
        return;
      }
      Rejoin r = rejoins.get(rid);
      rejoin = r != null && r.pending;
      if (!rejoin && historyLimit == 0) {
        // With no history there is no server time stamp to start a catch-up from: the device's
        // clock is the best guess. With history, the newest message loaded is the start (or the
        // room's beginning if it was empty), and a rejoin starts from what was last shown.
        t.markJoined(clock.instant());
      }
      if (historyLimit > 0 || rejoin) {
        // Live messages are held until the history (or what was missed) is in, so the screen
        // fills in order. Ended by onJoinResult, whatever the answer.
        catchUp = t.beginCatchUp();
      }
    }
    sub = ddp.subscribe(STREAM, rid, Map.of("useCollection", false, "args", List.of()));
    synchronized (lock) {
      subscriptions.put(rid, sub);
    }
    RoomTimeline.CatchUp joinCatchUp = catchUp;
    sub.ready().whenComplete((v, error) -> onJoinResult(rid, error, rejoin, joinCatchUp));
    sub.ended().whenComplete((v, error) -> onStreamEnded(rid, sub, error));
  }

  /** {@code catchUp}: the one {@link #join} began, or {@code null}; this ends it. */
  private void onJoinResult(
      String rid, Throwable error, boolean rejoin, RoomTimeline.CatchUp catchUp) {
    Throwable cause = unwrap(error);
    if (cause == null) {
      synchronized (lock) {
        if (closed) {
          return;
        }
        joined.add(rid);
        Rejoin r = rejoins.get(rid);
        if (r != null) {
          r.pending = false;
          r.liveSince = clock.instant();
        }
        showSyncLocked();
      }
      drain();
      if (rejoin) {
        fetchMissed(rid, catchUp); // what came while the stream was gone
      } else if (historyLimit > 0) {
        List<Object> params = Arrays.asList(rid, null, historyLimit, null);
        call("loadHistory", params, CallOptions.DEFAULT.withNoRetry(true))
            .whenComplete((result, e) -> onCatchUpResult(rid, catchUp, result, e, "history"));
      }
      return;
    }
    Duration retryIn;
    synchronized (lock) {
      if (closed) {
        return;
      }
      subscriptions.remove(rid);
      RoomTimeline t = timelines.get(rid);
      if (t != null && catchUp != null) {
        // Refused: the catch-up this join began ends here, or the room's live messages would be
        // held for good once a later join succeeds.
        emitMessagesLocked(t.abortCatchUp(catchUp));
      }
      retryIn = rejoin ? rejoinLaterLocked(rid, cause) : null;
      if (retryIn == null && cause instanceof DdpMethodException m && awaitingLoginLocked(m)) {
        // Refused before the login went through after a reconnect: the next login joins every
        // room without a stream, this one included.
        log.debug("{}: room {} refused before the login; joined again after it", name, rid);
      } else if (retryIn == null) {
        // The server refused the stream (not a member, no such room): forget the room.
        timelines.remove(rid);
        rejoins.remove(rid);
        events.add(() -> listener.onError("cannot join room " + rid + ": " + cause.getMessage()));
      }
      showSyncLocked();
    }
    drain();
    if (retryIn != null) {
      scheduler.schedule(retryIn, () -> rejoin(rid));
    }
  }

  /**
   * A room's stream ended without our asking: refused when revived after a reconnect, or ended by
   * the server. A refusal (no longer a member, no such room) is final: the room is left. Anything
   * else (ended with no error, or an error worth retrying) is rejoined with backoff, and what was
   * missed meanwhile fetched. Either way the user is told through {@link ChatListener#onError}.
   */
  private void onStreamEnded(String rid, Subscription sub, Throwable error) {
    Throwable cause = unwrap(error);
    if (cause == null) {
      return; // stopped by us
    }
    Duration retryIn;
    synchronized (lock) {
      if (closed || subscriptions.get(rid) != sub || !joined.contains(rid)) {
        return; // closing, or refused before its first ready: onJoinResult reports that
      }
      if (!(cause instanceof DdpMethodException)
          && (lastDdpStatus == null || !lastDdpStatus.connected())) {
        return; // the DDP client gave up for good: the status says so
      }
      joined.remove(rid);
      subscriptions.remove(rid);
      retryIn = rejoinLaterLocked(rid, cause);
      if (retryIn == null) {
        timelines.remove(rid);
        rejoins.remove(rid);
        events.add(() -> listener.onError("left room " + rid + ": " + cause.getMessage()));
      }
      showSyncLocked();
    }
    drain();
    if (retryIn != null) {
      scheduler.schedule(retryIn, () -> rejoin(rid));
    }
  }

  /**
   * If {@code cause} is worth another try, counts the attempt, queues the user's notice and
   * returns the delay before rejoining (from {@code resendDelay}, doubling, capped at 30 s, +-25
   * %); else returns {@code null}.
   */
  private Duration rejoinLaterLocked(String rid, Throwable cause) {
    if (cause instanceof DdpMethodException m && !retryable(m) && !awaitingLoginLocked(m)) {
      return null;
    }
    Rejoin r = rejoins.computeIfAbsent(rid, k -> new Rejoin());
    if (!r.pending && r.liveSince != null
        && !Duration.between(r.liveSince, clock.instant()).minus(REJOIN_CAP).isNegative()) {
      r.attempts = 0; // the last stream lived long enough: start the curve again
    }
    r.attempts++;
    r.pending = true;
    Duration delay = Backoff.proportional(resendDelay, REJOIN_CAP, 0.25)
        .delay(r.attempts, ThreadLocalRandom.current().nextDouble());
    String text = "stream of room " + rid + " ended (" + cause.getMessage() + "); rejoining in "
        + ChatStatus.humanDelay(delay);
    events.add(() -> listener.onError(text));
    return delay;
  }

  private void rejoin(String rid) {
    synchronized (lock) {
      if (closed || !loggedIn) {
        return; // the next login joins every room without a stream
      }
    }
    join(rid);
  }

  private void onStreamEvent(ObjectNode fields) {
    JsonNode eventName = fields.get("eventName");
    JsonNode args = fields.get("args");
    String rid = eventName != null && eventName.isTextual() ? eventName.textValue() : null;
    Optional<ChatMessage> parsed =
        args != null && args.isArray() && args.size() > 0
            ? MessageParser.parse(args.get(0), rid)
            : Optional.empty();
    synchronized (lock) {
      if (parsed.isEmpty() || rid == null || !rid.equals(parsed.get().rid())) {
        malformed++;
        log.debug("{}: malformed stream event ignored", name);
        return;
      }
      RoomTimeline t = timelines.get(rid);
      if (t == null || closed) {
        return;
      }
      emitMessagesLocked(t.offerLive(parsed.get()));
    }
    drain();
  }

  // ---- sending ----

  /**
   * Sends what waits in the outbox, oldest first, if logged in. Taking the entries and handing
   * them to the DDP client is one step under {@code sendLock}: with two steps, a re-send on the
   * scheduler's thread and a new message on the caller's could each take their entries in order
   * and still reach the DDP client the other way round, and the newer message would be stored
   * first. The results are attached after the lock is released, so no listener runs under it.
   */
  private void sendQueued() {
    List<Outbox.Entry> entries;
    List<CompletableFuture<JsonNode>> results = new ArrayList<>();
    synchronized (sendLock) {
      synchronized (lock) {
        if (closed || !loggedIn) {
          return; // the next login sends them
        }
        entries = outbox.takeQueued();
      }
      for (Outbox.Entry e : entries) {
        Map<String, Object> msg = Map.of("_id", e.id(), "rid", e.rid(), "msg", e.text());
        results.add(call("sendMessage", List.of(msg), CallOptions.DEFAULT));
      }
    }
    for (int i = 0; i < entries.size(); i++) {
      Outbox.Entry e = entries.get(i);
      results.get(i).whenComplete((result, error) -> onSendResult(e, error));
    }
  }

  private void onSendResult(Outbox.Entry e, Throwable error) {
    Throwable cause = unwrap(error);
    boolean scheduleResend = false;
    synchronized (lock) {
      if (cause == null) {
        if (outbox.acknowledge(e.id()).isPresent()) {
          events.add(() -> listener.onSent(e.rid(), e.id()));
        }
      } else if (closed) {
        return;
      } else if (cause instanceof DdpMethodException m && !retryable(m)
          && !awaitingLoginLocked(m)) {
        outbox.reject(e.id());
        String text = "message " + e.id() + " to room " + e.rid() + " rejected: " + m.getMessage();
        events.add(() -> listener.onError(text));
      } else {
        // Lost with the connection, refused for a while, or refused before the login went
        // through after a reconnect: same id again (the next login sends it if we are logged
        // out), and the server ignores a second copy of a message it already has.
        outbox.requeue(e.id());
        resends++;
        if (loggedIn && !resendScheduled) {
          resendScheduled = true;
          scheduleResend = true;
        }
      }
      if (outbox.isEmpty()) {
        List<CompletableFuture<Void>> done = new ArrayList<>(flushWaiters);
        flushWaiters.clear();
        events.add(() -> done.forEach(f -> f.complete(null)));
      }
    }
    drain();
    if (scheduleResend) {
      scheduler.schedule(resendDelay, this::resendQueued);
    }
  }

  /**
   * Whether a server error is worth another try with the same id: the call was cut by a reconnect,
   * or the server is busy, rate-limiting or failing for now (5xx). Anything else (not a member, bad
   * message) is final.
   */
  static boolean retryable(DdpMethodException e) {
    String code = e.error();
    return DdpMethodException.INVOCATION_FAILED.equals(code)
        || code.contains("too-many-requests")
        || code.contains("too-busy")
        || code.matches("5\\d\\d");
  }

  /**
   * Whether a server error refuses a call for want of a login: Rocket.Chat's {@code
   * error-not-allowed} and {@code not-allowed} (a refused stream), {@code error-invalid-user}, or
   * 401 / 403.
   */
  static boolean notAllowed(DdpMethodException e) {
    String code = e.error();
    return code.contains("not-allowed")
        || code.equals("error-invalid-user")
        || code.equals("401")
        || code.equals("403");
  }

  /**
   * Whether a refusal came while the client is not logged in (again, after a reconnect whose
   * resume login failed for a while or is still under way): the call, the stream or the catch-up
   * went out unauthenticated, so it is tried again after the login. Once logged in, such a refusal
   * is final.
   */
  private boolean awaitingLoginLocked(DdpMethodException e) {
    return !loggedIn && !closed && notAllowed(e);
  }

  private void resendQueued() {
    synchronized (lock) {
      resendScheduled = false;
    }
    sendQueued();
  }

  private CompletableFuture<JsonNode> call(String method, List<?> params, CallOptions options) {
    try {
      return ddp.call(method, params, options);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  // ---- status ----

  private void onDdpStatus(DdpStatus s) {
    boolean stopDdp = false;
    synchronized (lock) {
      lastDdpStatus = s;
      if (closed) {
        return;
      }
      if (!s.connected()) {
        loggedIn = false;
      }
      switch (s.state()) {
        case CONNECTING:
          setStatusLocked(
              new ChatStatus(ChatStatus.State.CONNECTING, s.retryCount(), Duration.ZERO, ""));
          break;
        case CONNECTED:
          if (loggedIn) {
            showSyncLocked();
          } else {
            setStatusLocked(
                new ChatStatus(ChatStatus.State.CONNECTING, s.retryCount(), Duration.ZERO, ""));
          }
          break;
        case WAITING:
        case OFFLINE:
          setStatusLocked(
              new ChatStatus(ChatStatus.State.WAITING, s.retryCount(), retryIn(s), s.reason()));
          break;
        case FAILED:
          closed = true;
          setStatusLocked(
              new ChatStatus(ChatStatus.State.STOPPED, s.retryCount(), Duration.ZERO, s.reason()));
          failWaitersLocked();
          stopDdp = true;
          break;
        default:
          throw new AssertionError("Unexpected state: " + s.state());
      }
    }
    drain();
    if (stopDdp) {
      closeDdpElsewhere();
    }
  }

  /** The DDP resync after a reconnect ended: the revived room streams are live again. */
  private void onDdpResync(boolean resyncing) {
    if (resyncing) {
      return; // the connection was lost: the DDP status brings WAITING
    }
    synchronized (lock) {
      showSyncLocked();
    }
    drain();
  }

  /**
   * Once logged in and connected, shows {@code SYNCING} while any room is behind, else {@code
   * CONNECTED}; otherwise leaves the status alone. Queued after the events queued so far, so the
   * messages a catch-up fetched are shown before "connected".
   */
  private void showSyncLocked() {
    if (closed || !loggedIn || (lastDdpStatus != null && !lastDdpStatus.connected())) {
      return;
    }
    int behind = 0;
    for (String rid : timelines.keySet()) {
      if (behindLocked(rid)) {
        behind++;
      }
    }
    setStatusLocked(behind == 0 ? ChatStatus.of(ChatStatus.State.CONNECTED)
        : ChatStatus.syncing(behind));
  }

  /**
   * Whether a followed room may be missing messages: not joined (a join or rejoin is due or under
   * way), its stream not current (lost with the connection, until the DDP resync swapped it in
   * again), or a history or catch-up fetch outstanding.
   */
  private boolean behindLocked(String rid) {
    RoomTimeline t = timelines.get(rid);
    if (t == null) {
      return false; // not followed, or left for good (the user was told)
    }
    Subscription sub = subscriptions.get(rid);
    return !joined.contains(rid) || sub == null || !sub.isCurrent() || t.catchingUp();
  }

  private Duration retryIn(DdpStatus s) {
    if (s.retryTime() == null) {
      return Duration.ZERO;
    }
    Duration d = Duration.between(clock.instant(), s.retryTime());
    return d.isNegative() ? Duration.ZERO : d;
  }

  private void setStatusLocked(ChatStatus next) {
    if (terminal) {
      return; // signed out or stopped: that is what the user must keep seeing
    }
    terminal = next.terminal();
    if (next.equals(status)) {
      return;
    }
    status = next;
    events.add(() -> listener.onStatus(next));
  }

  /** Fails the waiters after the events queued so far, outside the lock (see drain). */
  private void failWaitersLocked() {
    IllegalStateException e = new IllegalStateException("client " + status.text());
    List<CompletableFuture<Void>> waiters = new ArrayList<>(flushWaiters);
    flushWaiters.clear();
    waiters.add(firstLogin);
    events.add(() -> waiters.forEach(f -> f.completeExceptionally(e)));
  }

  // ---- listener delivery ----

  private void emitMessagesLocked(List<ChatMessage> messages) {
    for (ChatMessage m : messages) {
      events.add(() -> listener.onMessage(m));
    }
  }

  /** Delivers queued events in order, outside the lock, one thread at a time. */
  private void drain() {
    while (true) {
      Runnable next;
      synchronized (lock) {
        if (draining || events.isEmpty()) {
          return;
        }
        draining = true;
        next = events.poll();
      }
      try {
        next.run();
      } catch (RuntimeException e) {
        log.warn("{}: listener failed", name, e);
      } finally {
        synchronized (lock) {
          draining = false;
        }
      }
    }
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The rejoin state of a room whose stream ended: a stream that ends again soon after a rejoin
   * backs off further, as a connection that drops right after it opened does.
   */
  private static final class Rejoin {
    int attempts;
    /** A rejoin is scheduled or under way. */
    boolean pending;
    /** When the last rejoined stream became ready. */
    Instant liveSince;
  }

  /**
   * Counters of one client.
   *
   * @param logins successful logins (the first and one per reconnect)
   * @param resends messages queued again after a failed send
   * @param malformed server documents ignored because of their shape
   * @param catchUps catch-ups started after reconnects
   */
  public record Stats(long logins, long resends, long malformed, long catchUps) {}

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
    private boolean direct;
    private dev.ddpkit.ddp.transport.TransportFactory transportFactory;
    private Clock clock = Clock.systemUTC();
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

    /** How long to wait before re-sending a message whose send failed while online (default 1 s). */
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
     * The executor the DDP client's event loop runs on (default: a thread of its own). Many
     * clients in one JVM can share a small pool this way (each still runs its work in order); a
     * listener that blocks then stalls the other clients on the same pool thread.
     */
    public Builder executor(java.util.concurrent.Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Runs the DDP client's event loop on no thread of its own ({@link
     * DdpClient.Builder#directExecution()}): a connected client costs the socket's two threads
     * only, and each frame is handled on the socket's reader thread. The {@link ChatListener} is
     * then called on the socket's thread, the scheduler's thread or the thread calling this
     * client, and must not block. Conflicts with {@link #executor}: {@link #build()} refuses both.
     */
    public Builder directExecution() {
      this.direct = true;
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
        rb.scheduler(scheduler);
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
