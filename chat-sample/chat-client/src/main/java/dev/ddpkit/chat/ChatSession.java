package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.reconnect.Cancellable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one {@link ChatClient}, all of it on its DDP client's loop: every callback, timer
 * and public call lands here, one at a time, so nothing here takes a lock. It wires the jobs
 * together: {@link LoginFlow} (login and sign-out), {@link Streams} (one stream per room), {@link
 * CatchUps} (history and missed messages), {@link Sender} (the outbox) and {@link StatusLine}, all
 * paced by one {@link Pacer}.
 */
final class ChatSession {
  private static final Logger log = LoggerFactory.getLogger(ChatSession.class);
  private static final int MAX_HELD = 10_000;

  final Settings settings;
  final DdpClient ddp;
  final Pacer pacer;
  final Map<String, Room> rooms = new LinkedHashMap<>();
  final LoginFlow login;
  final Streams streams;
  final DeletionStreams deletions;
  final CatchUps catchUps;
  final Sender sender;
  final StatusLine status;
  final CompletableFuture<Void> firstLogin = new CompletableFuture<>();
  private final ChatListener listener;
  private final List<CompletableFuture<Void>> flushWaiters = new ArrayList<>();
  private final List<String> roomOrder;
  private String focus;
  /** The timer that logs in again after a call said the connection was lost but it stayed up. */
  private Cancellable recovery;
  private int recoveries;
  /** The one state of the client: written only by {@link #moveTo}, on the loop; read anywhere. */
  private volatile Phase phase = Phase.NEW;
  /** What the current login started; a closed one before the first login and after the last. */
  private LoginScope scope = closedScope();
  /** Between the DDP client's connected and its disconnected (told at once, on the loop). */
  private boolean socketUp;
  final SessionCounters counters = new SessionCounters();

  ChatSession(Settings settings, DdpClient ddp, ChatListener listener, Consumer<View> publish) {
    this.settings = settings;
    this.ddp = ddp;
    this.listener = listener;
    this.roomOrder = settings.rooms();
    for (String rid : settings.rooms()) {
      rooms.put(rid, new Room(rid, settings.dedupWindow(), MAX_HELD));
    }
    this.pacer =
        new Pacer(settings.limits(), settings.clock(), ddp::schedule,
            () -> settings.random().nextDouble(), this::compareRooms);
    this.login = new LoginFlow(this);
    this.streams = new Streams(this);
    this.deletions = new DeletionStreams(this);
    this.catchUps = new CatchUps(this);
    this.sender = new Sender(this);
    this.status = new StatusLine(this, listener, publish);
  }

  /** Where a chat session is; {@link ChatStatus.State} is what the user sees of it. */
  enum Phase {
    /** Built, not started. */
    NEW,
    /** Started, without a usable connection: dialing, or waiting to. */
    OFFLINE,
    /**
     * The connection dropped while logged in: the login and the room streams are kept until the
     * next connection says whether the server resumed the DDP session (then they simply go on,
     * back to {@link #LOGGED_IN}) or began a new one (then they are dropped: {@link #OFFLINE}).
     */
    SUSPENDED,
    /** Connected and logging in: nothing else is sent before the login is through. */
    LOGGING_IN,
    /** Logged in: streams are joined, catch-ups fetched, messages sent. */
    LOGGED_IN,
    /** Signed out or stopped: nothing more happens. */
    ENDED
  }

  /** The session's state now (any thread). */
  Phase phase() {
    return phase;
  }

  /** Whether the session has a connection (logging in or logged in). */
  boolean connected() {
    Phase p = phase;
    return p == Phase.LOGGING_IN || p == Phase.LOGGED_IN;
  }

  /** Whether the session is logged in. */
  boolean loggedIn() {
    return phase == Phase.LOGGED_IN;
  }

  /** Whether the session signed out or stopped (any thread). */
  boolean closed() {
    return phase == Phase.ENDED;
  }

  /** The one place the state changes; a move the session never makes is a bug. */
  private void moveTo(Phase next) {
    Phase from = phase;
    boolean allowed;
    switch (next) {
      case OFFLINE:
        allowed = from == Phase.NEW || from == Phase.LOGGING_IN || from == Phase.SUSPENDED;
        break;
      case SUSPENDED:
        allowed = from == Phase.LOGGED_IN;
        break;
      case LOGGING_IN:
        allowed = from == Phase.NEW || from == Phase.OFFLINE;
        break;
      case LOGGED_IN:
        // From SUSPENDED only when the server resumed the session the connection had logged in on.
        allowed = from == Phase.LOGGING_IN || from == Phase.SUSPENDED;
        break;
      case ENDED:
        allowed = from != Phase.ENDED;
        break;
      case NEW:
        allowed = false;
        break;
      default:
        throw new AssertionError("Unexpected phase: " + next);
    }
    if (!allowed) {
      throw new IllegalStateException("chat session cannot go from " + from + " to " + next);
    }
    phase = next;
  }

  /** The client started: it connects (once; a second start does nothing). */
  void start() {
    if (phase != Phase.NEW) {
      return;
    }
    moveTo(Phase.OFFLINE);
    status.refresh();
    try {
      ddp.connect();
    } catch (IllegalStateException e) {
      log.debug("{}: closed before it connected", settings.name());
    }
  }

  // ---- the connection ----

  void onDdpStatus(DdpStatus s) {
    status.ddpStatus(s);
    if (closed()) {
      return;
    }
    if (s.state() == DdpStatus.State.FAILED) {
      stop(s.reason());
      return;
    }
    if (s.connected() && !connected()) {
      cancelRecovery();
      recoveries = 0;
      if (phase == Phase.SUSPENDED && s.resumed()) {
        onResumed();
      } else {
        finishTearDown();
        beginLogin();
        login.onConnected();
      }
    } else if (!s.connected()) {
      cancelRecovery(); // really lost: the next connection logs in
      tearDown();
    }
    status.refresh();
  }

  /**
   * A call failed as if the connection were gone: shut the gate and drop what belonged to it
   * (nothing may be re-sent before the next login). The DDP client fails the calls of a lost
   * connection just before it says the connection is lost; if it never says so, the socket stayed
   * up and only an answer (a server-sent {@code invocation-failed}, a malformed error) said the
   * connection was unusable. Then no "connected" will ever come, so after a backoff the session
   * logs in again on the same socket.
   */
  void connectionLost() {
    if (!connected()) {
      return;
    }
    tearDown();
    cancelRecovery();
    recovery = ddp.schedule(settings.retryDelay(++recoveries), this::recoverIfStillUp);
    // A lost connection fails its calls just before it says it is lost: once this task is over,
    // a socket still up means the server's answer only said so, and the streams go now.
    ddp.execute(() -> {
      if (socketUp && !closed()) {
        finishTearDown();
      }
    });
  }

  private void tearDown() {
    if (!connected()) {
      return;
    }
    boolean wasLoggedIn = loggedIn();
    // A login is kept for a resume; finishTearDown drops it if there is none.
    moveTo(wasLoggedIn ? Phase.SUSPENDED : Phase.OFFLINE);
    if (!wasLoggedIn) {
      scope.close(); // a login that never went through
    }
    pacer.open(false);
    login.onConnectionLost();
    if (wasLoggedIn) {
      streams.onSuspended();
    } else {
      streams.onConnectionLost();
      deletions.onConnectionLost();
    }
    catchUps.onConnectionLost();
    status.refresh();
  }

  /**
   * The DDP client reached {@code connected} (on the loop, before it sends anything again): a
   * session that was not resumed drops the kept streams now, so the DDP client does not send
   * them again ahead of the login.
   */
  void onDdpConnected(boolean resumed) {
    socketUp = true;
    if (!resumed && !closed()) {
      finishTearDown();
    }
  }

  /** The DDP client's connection ended (told at once, on the loop). */
  void onDdpDisconnected(int code) {
    socketUp = false;
    catchUps.onDisconnected(code);
  }

  /** What a lost connection ends unless its session is resumed: the login and the streams. */
  private void finishTearDown() {
    if (phase != Phase.SUSPENDED) {
      return;
    }
    moveTo(Phase.OFFLINE);
    scope.close();
    streams.onConnectionLost();
    deletions.onConnectionLost();
  }

  /**
   * The server resumed the DDP session: still logged in, every stream still subscribed, and what
   * was published meanwhile replayed in order. So every room is live at once with no catch-up
   * call (the replay is the catch-up), and the outbox drains as after a login.
   */
  private void onResumed() {
    moveTo(Phase.LOGGED_IN); // from SUSPENDED
    counters.resumed();
    log.debug("{}: session resumed: no login, no rejoin, no catch-up", settings.name());
    streams.onResumed();
    catchUps.onResumed();
    sender.onLoggedIn();
    pacer.open(true);
  }

  private void recoverIfStillUp() {
    recovery = null;
    if ((phase != Phase.OFFLINE && phase != Phase.SUSPENDED) || !ddp.status().connected()) {
      return; // gone for real (or closed): the status says what comes next
    }
    log.warn("{}: a call failed as if the connection were lost, but it is up: logging in again",
        settings.name());
    finishTearDown();
    beginLogin();
    login.onSameConnection();
    status.refresh();
  }

  private void cancelRecovery() {
    if (recovery != null) {
      recovery.cancel();
      recovery = null;
    }
  }

  /** A login went through: everything held behind it may go. */
  void onLoggedIn() {
    moveTo(Phase.LOGGED_IN);
    counters.loggedIn();
    streams.joinAll();
    catchUps.onLoggedIn();
    sender.onLoggedIn();
    pacer.open(true);
    status.refresh();
    firstLogin.complete(null);
  }

  void onStreamEvent(ObjectNode fields) {
    JsonNode eventName = fields.get("eventName");
    JsonNode args = fields.get("args");
    String rid = eventName != null && eventName.isTextual() ? eventName.textValue() : null;
    Optional<ChatMessage> parsed =
        args != null && args.isArray() && args.size() > 0
            ? MessageParser.parse(args.get(0), rid)
            : Optional.empty();
    if (!parsed.isPresent() || rid == null || !rid.equals(parsed.get().rid())) {
      counters.malformed(1);
      log.debug("{}: malformed stream event ignored", settings.name());
      status.refresh(); // publishes the count (rare: the hot path publishes nothing)
      return;
    }
    Room room = rooms.get(rid);
    if (room == null || closed()) {
      return;
    }
    emitEvents(room.timeline.offer(parsed.get()));
  }

  /** A {@code stream-notify-room} event: a live deletion. */
  void onRoomEvent(ObjectNode fields) {
    if (!closed()) {
      deletions.onEvent(fields);
    }
  }

  // ---- public calls, on the loop ----

  void send(Outbox.Entry entry) {
    if (closed()) {
      sender.release(1);
      return;
    }
    sender.add(entry);
    status.refresh();
  }

  /** An edit or a deletion from the application. */
  void change(Outbox.Entry entry, CompletableFuture<Void> done) {
    if (closed()) {
      sender.release(1);
      done.completeExceptionally(new IllegalStateException("client " + status.current().text()));
      return;
    }
    sender.add(entry, done);
    status.refresh();
  }

  void flush(CompletableFuture<Void> f) {
    if (sender.isEmpty()) {
      f.complete(null);
    } else if (closed()) {
      f.completeExceptionally(new IllegalStateException("client " + status.current().text()));
    } else {
      flushWaiters.add(f);
    }
  }

  /** Every message written so far was acknowledged. */
  void flushed() {
    List<CompletableFuture<Void>> done = new ArrayList<>(flushWaiters);
    flushWaiters.clear();
    done.forEach(f -> f.complete(null));
  }

  /** The room the user is looking at: its work goes first. */
  void focus(String rid) {
    focus = rid;
    pacer.pump();
  }

  /** Closed by the application. */
  void close() {
    stop("");
  }

  /** The server refused the credentials: stop, and say why. */
  void signOut(String reason) {
    end(new ChatStatus(ChatStatus.State.SIGNED_OUT, 0, java.time.Duration.ZERO, reason));
    log.info("{}: signed out: {}", settings.name(), reason);
    ddp.close(); // on the loop: returns at once
  }

  private void stop(String reason) {
    boolean wasClosed = closed();
    end(new ChatStatus(ChatStatus.State.STOPPED, status.attempt(), java.time.Duration.ZERO, reason));
    if (!wasClosed) {
      ddp.close();
    }
  }

  private void end(ChatStatus last) {
    if (closed()) {
      return;
    }
    moveTo(Phase.ENDED);
    scope.close();
    cancelRecovery();
    pacer.clear();
    streams.onClosed();
    rooms.values().forEach(deletions::forget);
    status.end(last);
    IllegalStateException e = new IllegalStateException("client " + last.text());
    List<CompletableFuture<Void>> waiters = new ArrayList<>(flushWaiters);
    flushWaiters.clear();
    waiters.add(firstLogin);
    waiters.forEach(f -> f.completeExceptionally(e));
    sender.onClosed(e);
  }

  // ---- shared helpers ----

  /** Leaves a room for good after a permanent refusal, and tells the user which. */
  void leave(Room room, String why) {
    if (rooms.remove(room.rid) == null) {
      return;
    }
    streams.forget(room);
    deletions.forget(room);
    catchUps.forget(room);
    if (room.catchUp != null) {
      emit(room.timeline.abortCatchUp(room.catchUp));
      room.catchUp = null;
    }
    error(why);
    status.refresh();
  }

  /** A login begins on this connection: what the one before started is dropped. */
  private void beginLogin() {
    scope.close();
    scope = new LoginScope();
    moveTo(Phase.LOGGING_IN);
  }

  private static LoginScope closedScope() {
    LoginScope s = new LoginScope();
    s.close();
    return s;
  }

  /** What the current login started (closed when there is none). */
  LoginScope scope() {
    return scope;
  }

  /**
   * Calls a method for the current login: {@code then} runs with its answer unless the returned
   * watch is cancelled or the login ends first.
   */
  LoginScope.Watch call(String method, List<?> params,
      java.util.function.BiConsumer<JsonNode, Throwable> then) {
    return scope.watch(call(method, params), then);
  }

  /** Calls a method that the DDP client never re-sends: the chat layer owns every retry. */
  CompletableFuture<JsonNode> call(String method, List<?> params) {
    try {
      return ddp.call(method, params, CallOptions.DEFAULT.withNoRetry(true));
    } catch (RuntimeException e) {
      CompletableFuture<JsonNode> failed = new CompletableFuture<>();
      failed.completeExceptionally(e);
      return failed;
    }
  }

  void emit(List<ChatMessage> messages) {
    for (ChatMessage m : messages) {
      tell(() -> listener.onMessage(m));
    }
  }

  /** Tells the listener of each change, in order. */
  void emitEvents(List<RoomEvent> events) {
    for (RoomEvent e : events) {
      switch (e.kind()) {
        case MESSAGE -> tell(() -> listener.onMessage(e.message()));
        case EDITED -> tell(() -> listener.onEdited(e.message()));
        case DELETED -> tell(() -> listener.onDeleted(e.rid(), e.id()));
        default -> throw new AssertionError("Unexpected event: " + e.kind());
      }
    }
  }

  void sent(String rid, String id) {
    tell(() -> listener.onSent(rid, id));
  }

  void error(String message) {
    tell(() -> listener.onError(message));
  }

  /** Calls the listener; one that throws is logged and the client goes on. */
  static void tell(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn("chat listener failed", e);
    }
  }

  /** The room in focus first, then the most recently active, then the order asked for. */
  private int compareRooms(String a, String b) {
    if (a.equals(b)) {
      return 0;
    }
    if (a.equals(focus) || b.equals(focus)) {
      return a.equals(focus) ? -1 : 1;
    }
    Instant la = lastActive(a);
    Instant lb = lastActive(b);
    int c = Comparator.nullsLast(Comparator.<Instant>reverseOrder()).compare(la, lb);
    return c != 0 ? c : Integer.compare(roomOrder.indexOf(a), roomOrder.indexOf(b));
  }

  private Instant lastActive(String rid) {
    Room r = rooms.get(rid);
    return r == null ? null : r.timeline.lastSeen().orElse(null);
  }

  /**
   * What other threads may read, published after every change.
   *
   * @param status the status line
   * @param joined rooms whose stream is live
   * @param behind rooms that may be missing messages
   * @param token the resume token, or null
   * @param stats the counters
   */
  record View(
      ChatStatus status,
      java.util.Set<String> joined,
      java.util.Set<String> behind,
      String token,
      ChatClient.Stats stats) {}
}
