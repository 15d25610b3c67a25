package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.ddp.protocol.DdpMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.reconnect.Attempt;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection state machine behind {@link DdpClient}: one {@link EngineState}, changed only by
 * {@link #transitionTo}, which tears a connection down once and in one order. The jobs are split
 * out: {@link Connection} (a socket with its attempt and timers), {@link Heartbeat}, {@link
 * Calls}, {@link Subscriptions}, {@link DataRouter}, {@link Resync}, {@link Listeners}. Every
 * method not marked otherwise runs on the event loop.
 */
final class ClientEngine {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  /** The DDP versions this client speaks, preferred first. */
  static final List<String> SUPPORTED_VERSIONS = List.of("1", "pre2", "pre1");

  /**
   * Why a transition happens: the close code and reason reported (to the manager and the
   * connection listeners), and the code and reason sent on the socket if it is still open.
   */
  record Cause(int code, String reason, int sendCode, String sendReason) {
    static Cause of(int code, String reason) {
      return new Cause(code, reason, code, reason);
    }
  }

  private final EngineConfig config;
  private final String name;
  private final ReconnectionManager manager;
  private final TransportFactory transports;
  private final EventLoop loop;
  private final DdpMessages parser;
  private final ClientMessages out;
  private final WarnLimiter warnings;
  private final Cancellable managerListener;
  private DdpClient client;

  final Counters counters = new Counters();
  final Listeners listeners;
  final DataRouter data;
  private final RetiredTransports retired;
  private final Subscriptions subs;
  private final Calls calls;
  private final Resync resync;
  private final Heartbeat heartbeat;

  private volatile EngineState state = EngineState.IDLE;
  private volatile DdpStatus status;
  private Connection conn;
  private Cancellable connectTimer;
  private String version = SUPPORTED_VERSIONS.get(0);
  private int negotiations;
  private String session;
  private boolean everConnected;
  private String failure;
  private ReconnectStatus lastManager;
  private Instant lastRetryTime;

  ClientEngine(EngineConfig config, ReconnectionManager manager, TransportFactory transports,
      EventLoop loop, ObjectMapper mapper, List<StatusListener> initialListeners) {
    this.config = config;
    this.name = config.name();
    this.manager = manager;
    this.transports = transports;
    this.loop = loop;
    this.parser = new DdpMessages(mapper);
    this.out = new ClientMessages(mapper);
    this.warnings = new WarnLimiter(config.ticker());
    this.listeners = new Listeners(name);
    this.listeners.status.addAll(initialListeners);
    this.data = new DataRouter(name);
    this.retired = new RetiredTransports(name);
    this.subs = new Subscriptions(this, name, out);
    this.calls = new Calls(this, name, out, config.maxQueuedCalls());
    this.resync = new Resync(name, config.resyncTimeout(), data, subs, listeners,
        this::maybeFinishResync);
    this.heartbeat = new Heartbeat(this, name, config.ticker(), config.heartbeatInterval(),
        config.heartbeatTimeout(), out, counters);
    this.lastManager = manager.status();
    this.status = StatusMapping.map(lastManager, null, false, false, null);
    this.managerListener = manager.addListener(this::onManagerChange);
  }

  void bind(DdpClient client) {
    this.client = client;
  }

  // ---- any thread ----

  DdpStatus status() {
    return status;
  }

  DdpStats stats() {
    return counters.snapshot();
  }

  boolean resyncing() {
    return resync.stale();
  }

  /** Waits for the sockets closed so far to release their threads (after close, any thread). */
  boolean awaitTransports(Duration timeout) throws InterruptedException {
    return retired.awaitAll(timeout);
  }

  String describe() {
    return name + " " + Redaction.uri(config.uri()) + " " + status.state();
  }

  // ---- for the parts, on the loop ----

  EngineState state() {
    return state;
  }

  ResyncState resyncState() {
    return resync.current();
  }

  /** Sends a frame on the current socket, if any. */
  void send(String frame) {
    Connection c = conn;
    if (c != null && c.send(frame)) {
      counters.framesOut.incrementAndGet();
    }
  }

  /** Runs {@code task} on the loop after {@code after}, whatever becomes of the connection. */
  Cancellable scheduleOnLoop(Duration after, Runnable task) {
    return config.scheduler().schedule(after, () -> loop.execute(task));
  }

  /** The socket is known dead (heartbeat, health check): drop it and let the manager redial. */
  void connectionDead(String sendReason, String reportReason) {
    transitionTo(EngineState.WAITING,
        new Cause(CloseCodes.ABNORMAL, reportReason, CloseCodes.NORMAL, sendReason));
  }

  /** If the manager is waiting, it dials now. */
  void dialNow() {
    manager.networkAvailable();
  }

  /** Swaps in the resync's data if nothing is awaited any more: the connection is in sync. */
  void maybeFinishResync() {
    if (resync.finishIfQuiet() && state == EngineState.RESYNCING) {
      transitionTo(EngineState.CONNECTED, null);
    }
  }

  // ---- the state machine ----

  /**
   * Moves to {@code next}. Leaving a state with a socket for one without tears the connection down,
   * always in this order: the socket closed and its timers cancelled (one {@link Connection}), the
   * per-connection state reset, the manager told, the calls that cannot survive failed, the resync
   * listeners told, the status refreshed, the connection listeners told.
   */
  void transitionTo(EngineState next, Cause cause) {
    EngineState prev = state;
    if (prev == EngineState.CLOSED || prev == next) {
      return;
    }
    state = next;
    log.debug("{}: {} -> {}{}", name, prev, next, cause == null ? "" : " (" + cause.reason() + ")");
    List<PendingCall> cut = List.of();
    Connection ended = null;
    if (prev.hasConnection() && !next.hasConnection()) {
      ended = conn;
      conn = null;
      ended.close(cause.sendCode(), cause.sendReason());
      heartbeat.stop();
      resync.connectionLost(everConnected && next != EngineState.CLOSED);
      subs.connectionLost();
      cut = calls.connectionLost();
    }
    switch (next) {
      case WAITING -> {
        if (ended != null) {
          reportClosed(ended.attempt(), cause);
          for (PendingCall c : cut) {
            c.future.completeExceptionally(new DdpMethodException(
                DdpMethodException.INVOCATION_FAILED,
                "the connection was lost before the result of " + c.method, null));
          }
        }
      }
      case FAILED -> failEverything(cut, new DdpException("connection failed: " + failure));
      case CLOSED -> {
        managerListener.cancel();
        manager.stop();
        failEverything(cut, new DdpException("client closed"));
      }
      case IDLE, DIALING, HANDSHAKE, CONNECTED, RESYNCING -> { }
      default -> throw new AssertionError("Unexpected state: " + next);
    }
    if (next == EngineState.WAITING || next == EngineState.FAILED) {
      resync.announce();
    }
    // WAITING: the manager's own change brings the status; recomputing now from its previous
    // snapshot would flash a CONNECTING.
    if (next == EngineState.FAILED) {
      refreshStatus();
    } else if (next == EngineState.CLOSED) {
      setStatus(StatusMapping.map(manager.status(), null, false, true, null));
    }
    if (prev.isConnected() && !next.isConnected()) {
      listeners.tellEach(listeners.connection, "connection listener",
          l -> l.onDisconnected(cause.code(), cause.reason()));
    }
  }

  private void reportClosed(Attempt attempt, Cause cause) {
    try {
      attempt.closed(cause.code(), cause.reason());
    } catch (IllegalStateException e) {
      // The manager's backoff failed: it stopped, and its STOPPED snapshot fails the client.
      log.warn("{}: the reconnection manager failed: {}", name, e.getMessage());
    }
  }

  private void failEverything(List<PendingCall> alreadyRemoved, DdpException ex) {
    calls.failAll(alreadyRemoved, ex);
    subs.failAll(ex);
  }

  // ---- lifecycle ----

  void start() {
    if (state == EngineState.CLOSED) {
      return;
    }
    if (state != EngineState.IDLE
        && manager.status().state() != ReconnectionManager.State.STOPPED) {
      return;
    }
    failure = null;
    if (state == EngineState.IDLE || state == EngineState.FAILED) {
      transitionTo(EngineState.WAITING, Cause.of(CloseCodes.NORMAL, "connect()"));
    }
    try {
      manager.start(attempt -> loop.execute(() -> dial(attempt)));
    } catch (IllegalStateException e) {
      fail("the reconnection manager is already in use: " + e.getMessage(), false);
    }
    refreshStatus();
  }

  void shutdown() {
    transitionTo(EngineState.CLOSED, Cause.of(CloseCodes.NORMAL, "client closed"));
  }

  /** A failure for good: nothing more will be tried until {@link #start()}. */
  private void fail(String reason, boolean stopManager) {
    failure = reason;
    log.warn("{}: giving up: {}", name, reason);
    if (stopManager) {
      manager.stop(); // before the FAILED status: a listener may connect() again at once
    }
    transitionTo(EngineState.FAILED,
        new Cause(CloseCodes.NORMAL, "giving up: " + reason, CloseCodes.NORMAL, "giving up"));
  }

  private void dial(Attempt attempt) {
    if (state == EngineState.CLOSED || state == EngineState.FAILED) {
      return;
    }
    if (state.hasConnection()) { // overtaken: reporting on its attempt is a no-op
      transitionTo(EngineState.WAITING, Cause.of(CloseCodes.NORMAL, "redial"));
    }
    log.debug("{}: dialing {} (attempt {})", name, Redaction.uri(config.uri()), attempt.number());
    negotiations = 0;
    open(attempt);
  }

  private void open(Attempt attempt) {
    Connection c = new Connection(attempt, config.scheduler(), loop, retired);
    conn = c;
    transitionTo(EngineState.DIALING, null);
    connectTimer = c.schedule(config.connectTimeout(), this::onConnectTimeout);
    try {
      c.open(transports, config.uri(), new Events());
    } catch (Exception | LinkageError e) {
      log.info("{}: could not start a connection: {}", name, e.toString());
      transitionTo(EngineState.WAITING,
          Cause.of(CloseCodes.ABNORMAL, "connect failed: " + e.getClass().getSimpleName()));
    }
  }

  private void onConnectTimeout() {
    counters.connectTimeouts.incrementAndGet();
    log.info("{}: no DDP 'connected' within {} ms", name, config.connectTimeout().toMillis());
    transitionTo(EngineState.WAITING, new Cause(
        CloseCodes.ABNORMAL, "connect timeout", CloseCodes.NORMAL, "connect timeout"));
  }

  /** The current connection's transport events (a closed connection's never get here). */
  private final class Events implements Connection.Events {
    @Override
    public void onOpen() {
      if (state == EngineState.DIALING) {
        transitionTo(EngineState.HANDSHAKE, null);
        send(out.connect(version, SUPPORTED_VERSIONS, session));
      }
    }

    @Override
    public void onFrame(String text) {
      ClientEngine.this.onFrame(text);
    }

    @Override
    public void onClosed(int code, String reason, boolean remote) {
      conn.transportClosed();
      if (code == CloseCodes.TOO_BIG && !remote) {
        countProtocolError("a frame was over the size limit");
      }
      log.info("{}: connection closed ({} {}{})", name, code,
          Redaction.abbreviate(reason, 120), remote ? ", by the server" : "");
      transitionTo(EngineState.WAITING, Cause.of(code, reason));
    }

    @Override
    public void onTransportProtocolError(DdpProtocolException error) {
      countProtocolError(error.getMessage());
    }
  }

  // ---- frames in ----

  private void onFrame(String text) {
    counters.framesIn.incrementAndGet();
    heartbeat.inbound();
    if (tooBig(text)) {
      protocolError("a frame of " + text.length() + " characters is over the limit of "
          + config.maxFrameBytes() + " bytes", CloseCodes.TOO_BIG);
      return;
    }
    DdpMessage m;
    if (config.strictProtocol()) {
      try {
        m = parser.parse(text);
      } catch (DdpProtocolException e) {
        protocolError(e.getMessage(), CloseCodes.PROTOCOL_ERROR);
        return;
      }
    } else {
      m = parser.read(text); // a frame that is not DDP comes back as Invalid, dropped below
    }
    try {
      dispatch(m);
    } catch (RuntimeException e) {
      log.error("{}: failed to handle a '{}' message", name, kind(m), e);
      protocolError("internal error handling '" + kind(m) + "': " + e, CloseCodes.INTERNAL_ERROR);
    }
  }

  private boolean tooBig(String text) {
    int max = config.maxFrameBytes();
    if (text.length() > max) {
      return true;
    }
    if ((long) text.length() * 3 <= max) {
      return false;
    }
    return text.getBytes(StandardCharsets.UTF_8).length > max;
  }

  private void dispatch(DdpMessage m) {
    if (m instanceof DdpMessage.Ping p) {
      send(out.pong(p.id()));
    } else if (m instanceof DdpMessage.Pong || m instanceof DdpMessage.ServerId) {
      return; // counted as traffic already
    } else if (m instanceof DdpMessage.ServerError e) {
      counters.serverErrors.incrementAndGet();
      // Not the offending message: it is one of ours and may carry a password.
      log.warn("{}: the server reported an error: {}", name, Redaction.abbreviate(e.reason(), 200));
    } else if (m instanceof DdpMessage.Unknown u) {
      countProtocolError("unknown message type '" + Redaction.abbreviate(u.msg(), 40) + "'");
    } else if (m instanceof DdpMessage.Invalid bad) {
      countProtocolError(bad.problem() + " (frame dropped, connection kept)");
    } else if (m instanceof DdpMessage.Deviation d) {
      counters.deviations.incrementAndGet();
      warn("a frame bent the spec, read as '" + kind(d.meaning()) + "': " + d.problem());
      dispatch(d.meaning());
    } else if (!state.isConnected()) {
      if (m instanceof DdpMessage.Connected c) {
        onConnected(c.session());
      } else if (m instanceof DdpMessage.Failed f) {
        onFailed(f.version());
      } else {
        countProtocolError("'" + kind(m) + "' before 'connected'");
      }
    } else if (m instanceof DdpMessage.DataMessage d) {
      if (!data.route(d, resync.current())) {
        countProtocolError("'" + kind(d) + "' for an unknown document of " + d.collection());
      }
    } else if (m instanceof DdpMessage.Ready r) {
      subs.onReady(r.subs());
    } else if (m instanceof DdpMessage.NoSub n) {
      subs.onNoSub(n.id(), s -> Subscriptions.nosubCause(s, n.error()));
    } else if (m instanceof DdpMessage.Result r) {
      if (!calls.onResult(r)) {
        countProtocolError("'result' for an unknown method id");
      }
    } else if (m instanceof DdpMessage.Updated u) {
      calls.onUpdated(u.methods());
    } else if (m instanceof DdpMessage.Malformed bad) {
      onMalformedReply(bad);
    } else if (m instanceof DdpMessage.Connected || m instanceof DdpMessage.Failed) {
      // The server began a new session (or refused one) on a live connection: what it holds for
      // us (subscriptions, calls, documents sent) no longer matches what we hold.
      protocolError("'" + kind(m) + "' in the middle of a session", CloseCodes.PROTOCOL_ERROR);
    } else {
      countProtocolError("unexpected '" + kind(m) + "' after 'connected'");
    }
  }

  /**
   * A reply for readable ids with a malformed field: only its targets fail, the connection stays.
   * Dropping it would re-send the call or subscription and bring the same reply back, forever.
   */
  private void onMalformedReply(DdpMessage.Malformed bad) {
    countProtocolError(bad.problem());
    switch (bad.msg()) {
      case "result" -> calls.onMalformedResult(bad.ids().get(0), bad.problem());
      case "nosub" ->
          subs.onNoSub(bad.ids().get(0), s -> new DdpException(
              "protocol error in the nosub ending subscription " + s.name() + ": "
                  + bad.problem()));
      case "ready" -> subs.onReady(bad.ids());
      case "updated" -> calls.onUpdated(bad.ids());
      default -> throw new AssertionError("Unexpected malformed reply: " + bad.msg());
    }
  }

  private static String kind(DdpMessage m) {
    String s = m.getClass().getSimpleName();
    return Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  // ---- handshake ----

  private void onConnected(String newSession) {
    Connection c = conn;
    connectTimer.cancel();
    session = newSession;
    boolean reconnect = everConnected;
    everConnected = true;
    transitionTo(reconnect ? EngineState.RESYNCING : EngineState.CONNECTED, null);
    log.info("{}: connected (DDP {})", name, version);
    c.attempt().opened();
    listeners.tellEach(listeners.connection, "connection listener",
        l -> l.onConnected(reconnect));
    if (conn != c) {
      return; // a listener closed the client
    }
    heartbeat.start(c, version);
    if (!reconnect) {
      // First connection: what was queued goes out in the order the user asked, calls first (a
      // login made before connect() must precede the subscriptions that need it).
      calls.send();
      subs.sendUnsent();
      return;
    }
    counters.reconnects.incrementAndGet();
    ResyncState r = resync.begin(c);
    List<MethodQueue.Block> old = calls.takeAll();
    for (ReconnectHook h : listeners.hooks) {
      try {
        h.onReconnect(client);
      } catch (RuntimeException e) {
        log.warn("{}: reconnect hook failed", name, e);
      }
      if (conn != c) {
        break;
      }
    }
    r.methods.addAll(calls.appendAll(old));
    if (state == EngineState.CLOSED || state == EngineState.FAILED) {
      // A hook closed the client or it failed for good while the old calls were out of the queue.
      calls.failAll(List.of(), new DdpException(state == EngineState.CLOSED ? "client closed"
          : "connection failed: " + failure));
      return;
    }
    if (conn != c) {
      return; // lost meanwhile: the next connection re-sends them
    }
    subs.sendUnsent();
    calls.send();
    r.collecting = false;
    maybeFinishResync();
  }

  private void onFailed(String proposed) {
    if (SUPPORTED_VERSIONS.contains(proposed)
        && !proposed.equals(version)
        && negotiations < SUPPORTED_VERSIONS.size()) {
      log.info("{}: the server proposes DDP {}, reconnecting with it", name, proposed);
      version = proposed;
      negotiations++;
      Connection old = conn;
      old.close(CloseCodes.NORMAL, "version negotiation");
      // Same attempt for the reconnection manager: a negotiation is not a failure to back off from.
      open(old.attempt());
      return;
    }
    fail("the server requires DDP version '" + Redaction.abbreviate(proposed, 20)
        + "', which this client does not support (it supports "
        + String.join(", ", SUPPORTED_VERSIONS) + ")", true);
  }

  // ---- the user's requests ----

  void subscribe(SubscriptionImpl s) {
    if (state == EngineState.CLOSED) {
      s.markStopped(new DdpException("client closed"));
    } else if (state == EngineState.FAILED) {
      s.markStopped(new DdpException("not connected: " + failure));
    } else {
      subs.add(s);
    }
  }

  void unsubscribe(SubscriptionImpl s) {
    subs.stop(s);
  }

  void enqueueCall(PendingCall c) {
    if (state == EngineState.CLOSED) {
      c.future.completeExceptionally(new DdpException("client closed"));
    } else if (state == EngineState.FAILED) {
      c.future.completeExceptionally(new DdpException("not connected: " + failure));
    } else {
      calls.add(c);
    }
  }

  void checkHealth(CompletableFuture<Boolean> result) {
    if (state == EngineState.CLOSED) {
      result.complete(false);
    } else if (!state.isConnected()) {
      result.complete(false);
      manager.networkAvailable(); // if waiting, dial now
    } else {
      heartbeat.check(result);
    }
  }

  // ---- protocol errors ----

  /**
   * A protocol error: counted, logged, and the connection dropped. The reason goes to the
   * reconnection manager, which backs off as from any other close (the counter is reset only by a
   * connection that stays up) and puts it in the status.
   */
  private void protocolError(String what, int closeCode) {
    countProtocolError(what);
    counters.protocolDrops.incrementAndGet();
    transitionTo(EngineState.WAITING,
        new Cause(closeCode, "protocol error: " + what, closeCode, "protocol error"));
  }

  /** A protocol error that does not justify dropping the connection. */
  private void countProtocolError(String what) {
    counters.protocolErrors.incrementAndGet();
    counters.lastProtocolError = what;
    warn("protocol error: " + what);
  }

  /** A warning about the server's frames, rate-limited: a chatty server does not flood the log. */
  private void warn(String what) {
    long held = warnings.admit();
    if (held > 0) {
      log.warn("{}: {} ({} similar warnings suppressed before this one)", name, what, held);
    } else if (held == 0) {
      log.warn("{}: {}", name, what);
    } else {
      log.debug("{}: {}", name, what);
    }
  }

  // ---- status ----

  /** Called by the manager on any thread: note the wall-clock retry time now, then hop. */
  private void onManagerChange(ReconnectStatus s) {
    Instant retry =
        s.state() == ReconnectionManager.State.WAITING
            ? config.clock().instant().plusNanos(s.nextAttemptAtNanos() - manager.ticker().read())
            : null;
    loop.execute(() -> onManagerStatus(s, retry));
  }

  private void onManagerStatus(ReconnectStatus s, Instant retry) {
    if (state == EngineState.CLOSED) {
      return;
    }
    if (s.state() == ReconnectionManager.State.STOPPED
        && manager.status().state() != ReconnectionManager.State.STOPPED) {
      // Stale: the manager was started again since (connect() from a status listener on FAILED,
      // while this STOPPED was still queued), and its newer snapshots follow this one. Acting on
      // it would fail the client for good with the manager running and no dial.
      log.debug("{}: stale manager snapshot ignored: {}", name, s.state());
      return;
    }
    lastManager = s;
    lastRetryTime = retry;
    if (s.state() == ReconnectionManager.State.STOPPED
        && state != EngineState.IDLE && state != EngineState.FAILED) {
      fail(s.reason().isEmpty() ? "stopped" : s.reason(), false);
      return;
    }
    refreshStatus();
  }

  private void refreshStatus() {
    if (state == EngineState.CLOSED) {
      return;
    }
    setStatus(StatusMapping.map(lastManager, lastRetryTime, state.isConnected(), false,
        state == EngineState.FAILED ? failure : null));
  }

  private void setStatus(DdpStatus next) {
    if (next.equals(status)) {
      return;
    }
    status = next;
    log.debug("{}: status {}", name, next);
    for (StatusListener l : listeners.status) {
      if (status != next) {
        return; // a listener changed it again (closed the client): do not deliver a stale one
      }
      try {
        l.onStatus(next);
      } catch (RuntimeException e) {
        log.warn("{}: status listener failed", name, e);
      }
    }
  }
}
