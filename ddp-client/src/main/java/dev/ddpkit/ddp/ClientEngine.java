package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection state machine behind {@link DdpClient}: one {@link EngineState}, changed only by
 * {@link #transitionTo}, which tears a connection down once and in one order. The jobs are split
 * out: {@link Connection} (a socket with its attempt and timers), {@link Heartbeat}, {@link
 * Calls}, {@link LiveSubscriptions}, {@link DataRouter}, {@link Resync}, {@link Listeners}. Every
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
  private final EventLoop loop;
  private final ClientMessages out;
  private final Cancellable managerListener;
  private DdpClient client;

  final StatsCounters counters = new StatsCounters();
  final Listeners listeners;
  final DataRouter data;
  final LiveSubscriptions subs;
  final Calls calls;
  final Heartbeat heartbeat;
  private final RetiredTransports retired;
  private final Resync resync;
  private final Inbound inbound;
  private final ClientStatus status;
  final SessionResumption resumption;
  final Dialer dialer;

  private volatile EngineState state = EngineState.IDLE;
  private Connection conn;
  private boolean everConnected;
  private String failure;
  private List<PendingCall> hookCalls; // the reconnect hooks' calls, while the hooks run

  ClientEngine(EngineConfig config, ReconnectionManager manager, TransportFactory transports,
      EventLoop loop, ObjectMapper mapper, List<StatusListener> initialListeners) {
    this.config = config;
    this.name = config.name();
    this.manager = manager;
    this.loop = loop;
    this.out = new ClientMessages(mapper);
    this.listeners = new Listeners(name);
    this.listeners.status.addAll(initialListeners);
    this.data = new DataRouter(name);
    this.retired = new RetiredTransports(name);
    this.subs = new LiveSubscriptions(this, name, out);
    this.calls = new Calls(this, name, out, config.maxQueuedCalls());
    this.resync = new Resync(name, config.resyncTimeout(), data, subs, listeners,
        this::maybeFinishResync);
    this.heartbeat = new Heartbeat(this, name, config.ticker(), config.heartbeatInterval(),
        config.heartbeatTimeout(), out, counters);
    this.resumption = new SessionResumption(config.sessionResumption(), mapper);
    this.inbound = new Inbound(this, config, mapper, out, counters);
    this.dialer = new Dialer(this, config, transports, loop, retired, out, inbound);
    this.status = new ClientStatus(name, manager, config.wallClock(), listeners);
    // On the loop, in order (the manager hands its calls to the loop: ClientParts).
    this.managerListener = manager.addListener(this::onManagerStatus);
  }

  void bind(DdpClient client) {
    this.client = client;
  }

  // ---- any thread ----

  DdpStatus status() {
    return status.current();
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
    return name + " " + Redaction.uri(config.uri()) + " " + status.current().state();
  }

  // ---- for the parts, on the loop ----

  EngineState state() {
    return state;
  }

  /** The resync under way, or {@code null}. */
  ResyncState resyncState() {
    return resync.current();
  }

  /** The resynchronisation: the one keeper of its books. */
  Resync resync() {
    return resync;
  }

  /** The current socket, or {@code null} in a state without one. */
  Connection connection() {
    return conn;
  }

  /** A new socket for the current attempt: the state is DIALING. */
  void attach(Connection c) {
    conn = c;
    transitionTo(EngineState.DIALING, null);
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
    prev.checkMove(next);
    state = next;
    log.debug("{}: {} -> {}{}", name, prev, next, cause == null ? "" : " (" + cause.reason() + ")");
    List<PendingCall> cut = List.of();
    Connection ended = null;
    if (prev.hasConnection() && !next.hasConnection()) {
      ended = conn;
      if (next == EngineState.CLOSED && prev.isConnected() && resumption.enabled()) {
        send(out.disconnect()); // on purpose: the server need not hold the session for us
      }
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
          // A broken backoff stops the manager: its STOPPED, next on the loop, fails the client.
          ended.attempt().reportClosed(cause.code(), cause.reason());
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
    // WAITING: the manager's own change, next on the loop, brings the status; recomputing now
    // from its previous change would flash a CONNECTING.
    if (next == EngineState.FAILED || next == EngineState.CLOSED) {
      refreshStatus();
    }
    if (prev.isConnected() && !next.isConnected()) {
      listeners.tellEach(listeners.connection, "connection listener",
          l -> l.onDisconnected(cause.code(), cause.reason()));
    }
  }

  private void failEverything(List<PendingCall> alreadyRemoved, DdpException ex) {
    calls.failAll(alreadyRemoved, ex);
    subs.failAll(ex);
  }

  // ---- lifecycle ----

  /**
   * {@link DdpClient#connect()}: from IDLE, or again after a failure for good; otherwise (running,
   * or closed) nothing. The manager's every change up to now has arrived: one that gave up has
   * moved the engine to FAILED already.
   */
  void start() {
    if (state != EngineState.IDLE && state != EngineState.FAILED) {
      return;
    }
    failure = null;
    transitionTo(EngineState.WAITING, Cause.of(CloseCodes.NORMAL, "connect()"));
    ReconnectionManager.State m = manager.status().state();
    if (m != ReconnectionManager.State.IDLE && m != ReconnectionManager.State.STOPPED) {
      // Someone else started the client's own manager (reconnectionManager().start(...)).
      fail("the reconnection manager is already in use: " + m, false);
      return;
    }
    // The manager calls the connector on the loop (ClientParts): dial at once.
    manager.start(dialer::dial);
    refreshStatus();
  }

  void shutdown() {
    transitionTo(EngineState.CLOSED, Cause.of(CloseCodes.NORMAL, "client closed"));
  }

  /** A failure for good: nothing more will be tried until {@link #start()}. */
  void fail(String reason, boolean stopManager) {
    failure = reason;
    resumption.forget();
    log.warn("{}: giving up: {}", name, reason);
    if (stopManager) {
      manager.stop(); // before the FAILED status: a listener may connect() again at once
    }
    transitionTo(EngineState.FAILED,
        new Cause(CloseCodes.NORMAL, "giving up: " + reason, CloseCodes.NORMAL, "giving up"));
  }

  // ---- handshake ----

  /** DDP {@code connected} on the current socket. */
  void onConnected(String newSession) {
    Connection c = conn;
    dialer.connected();
    boolean reconnect = everConnected;
    boolean resumed = resumption.connected(newSession) && reconnect;
    everConnected = true;
    if (resumed) {
      onResumed(c);
      return;
    }
    status.sessionResumed(false);
    data.sessionResumed(false);
    subs.newSession();
    calls.newSession();
    transitionTo(reconnect ? EngineState.RESYNCING : EngineState.CONNECTED, null);
    log.info("{}: connected (DDP {})", name, dialer.version());
    c.attempt().opened();
    // A listener or hook that closes the client or reports to the manager only queues that: the
    // connection stays as it is until this task has sent what it must.
    listeners.tellEach(listeners.connection, "connection listener",
        l -> l.onConnected(reconnect, false));
    heartbeat.start(dialer.version());
    if (!reconnect) {
      // First connection: what was queued goes out in the order the user asked, calls first (a
      // login made before connect() must precede the subscriptions that need it).
      calls.send();
      subs.sendUnsent();
      return;
    }
    counters.reconnects.incrementAndGet();
    resync.begin(c);
    List<MethodQueue.Block> old = calls.takeAll();
    hookCalls = new ArrayList<>();
    for (ReconnectHook h : listeners.hooks) {
      try {
        h.onReconnect(client);
      } catch (RuntimeException e) {
        log.warn("{}: reconnect hook failed", name, e);
      }
    }
    List<PendingCall> made = hookCalls;
    hookCalls = null;
    made.forEach(this::enqueueCall); // ahead of the old calls, as if made before them
    resync.callsResent(calls.appendAll(old));
    subs.sendUnsent();
    calls.send();
    resync.endOfSequence();
    maybeFinishResync();
  }

  /**
   * The server resumed our session: it still runs our subscriptions and replays what it queued
   * while we were away, in order. So no hook runs (the session is still logged in), no
   * subscription is sent again and the collections stay; only what changed on our side while
   * offline goes out: the unsubs, the new subscriptions, the calls (by the rules of any
   * reconnect: re-sent unless noRetry, which failed at the drop).
   */
  private void onResumed(Connection c) {
    status.sessionResumed(true);
    data.sessionResumed(true);
    transitionTo(EngineState.CONNECTED, null);
    log.info("{}: resumed the session (DDP {})", name, dialer.version());
    c.attempt().opened();
    listeners.tellEach(listeners.connection, "connection listener",
        l -> l.onConnected(true, true));
    heartbeat.start(dialer.version());
    counters.reconnects.incrementAndGet();
    counters.resumes.incrementAndGet();
    resync.resumed();
    subs.resumed();
    calls.send();
    // Connected now, in this task: the manager's own change (opened() above) is queued on the
    // loop, behind every other client's work on a shared pool (hundreds of ms when a whole herd
    // resumes at once). Its snapshot, read here right after the change this task made, is that
    // change; when the queued one arrives it changes nothing.
    onManagerStatus(manager.status());
  }

  // ---- the user's requests ----

  /**
   * Takes a call made on the loop by a reconnect hook: it is queued ahead of the unanswered calls
   * once the hooks have returned. Returns {@code false} (the call is queued as any other) when no
   * hook is running.
   */
  boolean collectHookCall(PendingCall c) {
    if (hookCalls == null) {
      return false;
    }
    hookCalls.add(c);
    return true;
  }

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

  // ---- status ----

  /**
   * A change of the manager's, on the loop, in order with the engine's own work: what the engine
   * asked of the manager in a task arrives after that task. The manager stopping while the client
   * runs (a close code that stops, too many attempts, a broken backoff, or a stop() of the
   * user's) is the client giving up; any other change only changes the status. Closed, the last
   * status stays.
   */
  private void onManagerStatus(ReconnectStatus s) {
    if (state == EngineState.CLOSED) {
      return;
    }
    status.managerChanged(s);
    switch (s.state()) {
      case STOPPED -> {
        if (state == EngineState.FAILED || state == EngineState.IDLE) {
          refreshStatus(); // it gave up first (and stopped the manager), or never started
        } else {
          fail(s.reason().isEmpty() ? "stopped" : s.reason(), false);
        }
      }
      case IDLE, CONNECTING, CONNECTED, WAITING, HELD -> refreshStatus();
      default -> throw new AssertionError("Unexpected state: " + s.state());
    }
  }

  private void refreshStatus() {
    status.refresh(state, failure);
  }
}
