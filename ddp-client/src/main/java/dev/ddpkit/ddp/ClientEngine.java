package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.ddp.protocol.DdpMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import dev.ddpkit.ddp.protocol.MethodError;
import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.TransportListener;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Attempt;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DDP state machine behind {@link DdpClient}. Every method not marked otherwise runs on the
 * event loop; the fields marked "shared" are safe to read from any thread.
 */
final class ClientEngine {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  /** The DDP versions this client speaks, preferred first. */
  static final List<String> SUPPORTED_VERSIONS = List.of("1", "pre2", "pre1");

  /** {@link DdpClient#checkHealth()}: traffic this recent means alive. */
  static final Duration HEALTH_RECENT = Duration.ofSeconds(2);

  /** {@link DdpClient#checkHealth()}: how long the probe ping may wait for an answer. */
  static final Duration HEALTH_PING_TIMEOUT = Duration.ofSeconds(2);

  private enum Phase {
    IDLE,
    DIALING,
    HANDSHAKE,
    CONNECTED
  }

  /** The state of one resynchronisation after a reconnect. */
  private static final class Resync {
    /** Still in the reconnect sequence: what is sent now joins the sets below. */
    boolean collecting = true;
    final Set<String> subs = new HashSet<>();
    final Set<String> methods = new HashSet<>();
    final Map<String, Map<String, ObjectNode>> shadow = new HashMap<>();
    final List<SubscriptionImpl> readied = new ArrayList<>();

    boolean quiet() {
      return !collecting && subs.isEmpty() && methods.isEmpty();
    }
  }

  // ---- configuration ----
  private final String name;
  private final URI uri;
  private final ReconnectionManager manager;
  private final TransportFactory transports;
  private final Scheduler scheduler;
  private final Ticker ticker;
  private final Clock clock;
  private final Duration heartbeatInterval;
  private final Duration heartbeatTimeout;
  private final Duration connectTimeout;
  private final Duration resyncTimeout;
  private final int maxQueuedCalls;
  private final int maxFrameBytes;
  private final boolean strictProtocol;
  private final EventLoop loop;
  private final DdpMessages parser;
  private final ClientMessages out;
  private DdpClient client;

  // ---- shared ----
  private final ConcurrentHashMap<String, LocalCollection> collections = new ConcurrentHashMap<>();
  private final Set<String> streams = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, CopyOnWriteArrayList<StreamListener>> streamListeners =
      new ConcurrentHashMap<>();
  private final CopyOnWriteArrayList<StatusListener> statusListeners = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<ResyncListener> resyncListeners = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<ConnectionListener> connectionListeners =
      new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<ReconnectHook> hooks = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Transport> retired = new CopyOnWriteArrayList<>();
  private final AtomicLong framesIn = new AtomicLong();
  private final AtomicLong framesOut = new AtomicLong();
  private final AtomicLong protocolErrors = new AtomicLong();
  private final AtomicLong deviations = new AtomicLong();
  private final AtomicLong protocolDrops = new AtomicLong();
  private final AtomicLong serverErrors = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong heartbeatTimeouts = new AtomicLong();
  private final AtomicLong connectTimeouts = new AtomicLong();
  private volatile String lastProtocolError = "";
  private volatile DdpStatus status;
  /**
   * The collections hold data of a lost connection: set when an established connection is lost,
   * cleared by the swap of the resync after the next reconnect.
   */
  private volatile boolean resyncing;

  // ---- event loop only ----
  private Phase phase = Phase.IDLE;
  private long gen;
  private Transport transport;
  private String version = SUPPORTED_VERSIONS.get(0);
  private int negotiations;
  private String session;
  private boolean everConnected;
  private boolean started;
  private boolean closed;
  private String failure;
  private Cancellable connectTimer;
  private Cancellable heartbeatTimer;
  private Cancellable probeTimer;
  private Cancellable resyncTimer;
  private long lastInboundNanos;
  private long inboundCount;
  private CompletableFuture<Boolean> probe;
  private final MethodQueue methods = new MethodQueue();
  private final LinkedHashMap<String, SubscriptionImpl> subs = new LinkedHashMap<>();
  private Resync resync;
  /** The last value of {@link #resyncing} told to the resync listeners. */
  private boolean resyncAnnounced;
  private ReconnectStatus lastManager;
  /** The manager's attempt that the current transport was dialed for; reports go to it. */
  private Attempt attempt;
  private Instant lastRetryTime;
  private final Cancellable managerListener;
  private final WarnLimiter warnings;

  ClientEngine(
      String name,
      URI uri,
      ReconnectionManager manager,
      TransportFactory transports,
      Scheduler scheduler,
      Clock clock,
      Duration heartbeatInterval,
      Duration heartbeatTimeout,
      Duration connectTimeout,
      Duration resyncTimeout,
      int maxQueuedCalls,
      int maxFrameBytes,
      boolean strictProtocol,
      EventLoop loop,
      DdpMessages parser,
      ClientMessages out,
      List<StatusListener> initialListeners) {
    this.name = name;
    this.uri = uri;
    this.manager = manager;
    this.transports = transports;
    this.scheduler = scheduler;
    this.ticker = scheduler instanceof Ticker t ? t : Ticker.systemTicker();
    this.clock = clock;
    this.heartbeatInterval = heartbeatInterval;
    this.heartbeatTimeout = heartbeatTimeout;
    this.connectTimeout = connectTimeout;
    this.resyncTimeout = resyncTimeout;
    this.maxQueuedCalls = maxQueuedCalls;
    this.maxFrameBytes = maxFrameBytes;
    this.strictProtocol = strictProtocol;
    this.warnings = new WarnLimiter(ticker);
    this.loop = loop;
    this.parser = parser;
    this.out = out;
    this.statusListeners.addAll(initialListeners);
    this.lastManager = manager.status();
    this.status = StatusMapping.map(lastManager, null, false, false, null);
    this.managerListener = manager.addListener(this::onManagerChange);
  }

  void bind(DdpClient client) {
    this.client = client;
  }

  // ---- shared accessors (any thread) ----

  DdpStatus status() {
    return status;
  }

  DdpStats stats() {
    return new DdpStats(
        framesIn.get(), framesOut.get(), protocolErrors.get(), serverErrors.get(), reconnects.get(),
        heartbeatTimeouts.get(), connectTimeouts.get(), lastProtocolError, deviations.get(),
        protocolDrops.get());
  }

  LocalCollection collection(String collection) {
    return collections.computeIfAbsent(collection, LocalCollection::new);
  }

  Cancellable addStatusListener(StatusListener l) {
    statusListeners.add(l);
    return () -> statusListeners.remove(l);
  }

  boolean resyncing() {
    return resyncing;
  }

  Cancellable addConnectionListener(ConnectionListener l) {
    connectionListeners.add(l);
    return () -> connectionListeners.remove(l);
  }

  Cancellable addResyncListener(ResyncListener l) {
    resyncListeners.add(l);
    return () -> resyncListeners.remove(l);
  }

  Cancellable addHook(ReconnectHook hook) {
    hooks.add(hook);
    return () -> hooks.remove(hook);
  }

  Cancellable addStreamListener(String collection, StreamListener l) {
    streams.add(collection);
    streamListeners.computeIfAbsent(collection, k -> new CopyOnWriteArrayList<>()).add(l);
    return () -> {
      List<StreamListener> ls = streamListeners.get(collection);
      if (ls != null) {
        ls.remove(l);
      }
    };
  }

  /** Waits for the sockets closed so far to release their threads (after close, any thread). */
  boolean awaitTransports(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean all = true;
    for (Transport t : retired) {
      Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
      all &= t.awaitTermination(left);
    }
    return all;
  }

  // ---- lifecycle ----

  void start() {
    if (closed) {
      return;
    }
    if (started && manager.status().state() != ReconnectionManager.State.STOPPED) {
      return;
    }
    started = true;
    failure = null;
    try {
      manager.start(attempt -> loop.execute(() -> dial(attempt)));
    } catch (IllegalStateException e) {
      terminal("the reconnection manager is already in use: " + e.getMessage(), false);
    }
    refreshStatus();
  }

  void shutdown() {
    if (closed) {
      return;
    }
    closed = true;
    if (transport != null) {
      retire(transport, 1000, "client closed");
      transport = null;
    }
    boolean wasConnected = phase == Phase.CONNECTED;
    List<PendingCall> cut = detach();
    managerListener.cancel();
    manager.stop();
    failEverything(cut, new DdpException("client closed"));
    setStatus(StatusMapping.map(manager.status(), null, false, true, null));
    if (wasConnected) {
      tellDisconnected(1000, "client closed");
    }
  }

  private void dial(Attempt attempt) {
    if (closed || failure != null) {
      return;
    }
    this.attempt = attempt;
    if (transport != null) {
      retire(transport, 1000, "redial");
      transport = null;
    }
    log.debug("{}: dialing {} (attempt {})", name, Redaction.uri(uri), attempt.number());
    negotiations = 0;
    openTransport();
  }

  private void openTransport() {
    long g = ++gen;
    phase = Phase.DIALING;
    cancel(connectTimer);
    connectTimer =
        schedule(
            connectTimeout,
            () -> {
              if (g == gen && (phase == Phase.DIALING || phase == Phase.HANDSHAKE)) {
                onConnectTimeout();
              }
            });
    try {
      transport = transports.open(uri, new Listener(g));
    } catch (Exception | LinkageError e) {
      log.info("{}: could not start a connection: {}", name, e.toString());
      transport = null;
      lost(1006, "connect failed: " + e.getClass().getSimpleName());
    }
  }

  private void onConnectTimeout() {
    connectTimeouts.incrementAndGet();
    log.info("{}: no DDP 'connected' within {} ms", name, connectTimeout.toMillis());
    drop(1000, "connect timeout", 1006, "connect timeout");
  }

  /** The transport's events, hopped onto the loop and dropped if they come from an old socket. */
  private final class Listener implements TransportListener {
    private final long g;

    Listener(long g) {
      this.g = g;
    }

    @Override
    public void onOpen() {
      loop.execute(
          () -> {
            if (g == gen) {
              onTransportOpen();
            }
          });
    }

    @Override
    public void onMessage(String text) {
      // The socket's thread holds no lock here: in direct mode it may wait for its turn.
      loop.executeInbound(
          () -> {
            if (g == gen) {
              onFrame(text);
            }
          });
    }

    @Override
    public void onClose(int code, String reason, boolean remote) {
      loop.execute(
          () -> {
            if (g == gen) {
              onTransportClosed(code, reason == null ? "" : reason, remote);
            }
          });
    }

    @Override
    public void onError(Throwable error) {
      loop.execute(
          () -> {
            if (g != gen) {
              return;
            }
            if (error instanceof DdpProtocolException p) {
              countProtocolError(p.getMessage()); // reported by the transport, e.g. a binary frame
            } else {
              log.debug("{}: transport error: {}", name, error.toString());
            }
          });
    }
  }

  private void onTransportOpen() {
    if (phase != Phase.DIALING) {
      return;
    }
    phase = Phase.HANDSHAKE;
    send(out.connect(version, SUPPORTED_VERSIONS, session));
  }

  private void onTransportClosed(int code, String reason, boolean remote) {
    transport = null;
    if (code == 1009 && !remote) {
      countProtocolError("a frame was over the size limit");
    }
    log.info("{}: connection closed ({} {}{})", name, code,
        Redaction.abbreviate(reason, 120), remote ? ", by the server" : "");
    lost(code, reason);
  }

  // ---- frames in ----

  private void onFrame(String text) {
    framesIn.incrementAndGet();
    inboundCount++;
    lastInboundNanos = ticker.read();
    completeProbe(true);
    if (tooBig(text)) {
      protocolError("a frame of " + text.length() + " characters is over the limit of "
          + maxFrameBytes + " bytes", 1009);
      return;
    }
    DdpMessage m;
    if (strictProtocol) {
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
      protocolError("internal error handling '" + kind(m) + "': " + e, 1011);
    }
  }

  private boolean tooBig(String text) {
    if (text.length() > maxFrameBytes) {
      return true;
    }
    if ((long) text.length() * 3 <= maxFrameBytes) {
      return false;
    }
    return text.getBytes(StandardCharsets.UTF_8).length > maxFrameBytes;
  }

  private void dispatch(DdpMessage m) {
    if (m instanceof DdpMessage.Ping p) {
      send(out.pong(p.id()));
    } else if (m instanceof DdpMessage.Pong || m instanceof DdpMessage.ServerId) {
      return; // counted as traffic already
    } else if (m instanceof DdpMessage.ServerError e) {
      serverErrors.incrementAndGet();
      // Not the offending message: it is one of ours and may carry a password.
      log.warn("{}: the server reported an error: {}", name, Redaction.abbreviate(e.reason(), 200));
    } else if (m instanceof DdpMessage.Unknown u) {
      countProtocolError("unknown message type '" + Redaction.abbreviate(u.msg(), 40) + "'");
    } else if (m instanceof DdpMessage.Invalid bad) {
      countProtocolError(bad.problem() + " (frame dropped, connection kept)");
    } else if (m instanceof DdpMessage.Deviation d) {
      deviations.incrementAndGet();
      warn("a frame bent the spec, read as '" + kind(d.meaning()) + "': " + d.problem());
      dispatch(d.meaning());
    } else if (phase != Phase.CONNECTED) {
      if (m instanceof DdpMessage.Connected c) {
        onConnected(c.session());
      } else if (m instanceof DdpMessage.Failed f) {
        onFailed(f.version());
      } else {
        countProtocolError("'" + kind(m) + "' before 'connected'");
      }
    } else if (m instanceof DdpMessage.DataMessage d) {
      onData(d);
    } else if (m instanceof DdpMessage.Ready r) {
      onReady(r.subs());
    } else if (m instanceof DdpMessage.NoSub n) {
      onNoSub(n.id(), s -> nosubCause(s, n.error()));
    } else if (m instanceof DdpMessage.Result r) {
      onResult(r);
    } else if (m instanceof DdpMessage.Updated u) {
      onUpdated(u.methods());
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

  private static String kind(DdpMessage m) {
    String s = m.getClass().getSimpleName();
    return Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  // ---- handshake ----

  private void onConnected(String newSession) {
    cancel(connectTimer);
    phase = Phase.CONNECTED;
    session = newSession;
    boolean reconnect = everConnected;
    everConnected = true;
    lastInboundNanos = ticker.read();
    log.info("{}: connected (DDP {})", name, version);
    attempt.opened();
    tellEach(connectionListeners, "connection listener", l -> l.onConnected(reconnect));
    startHeartbeat();
    if (!reconnect) {
      // First connection: what was queued goes out in the order the user asked, calls first (a
      // login made before connect() must precede the subscriptions that need it).
      sendCalls();
      for (SubscriptionImpl s : new ArrayList<>(subs.values())) {
        sendSub(s);
      }
      return;
    }
    reconnects.incrementAndGet();
    Resync r = new Resync();
    resync = r;
    resyncTimer = schedule(resyncTimeout, () -> onResyncTimeout(r));
    long g = gen;
    List<MethodQueue.Block> old = methods.takeAll();
    for (ReconnectHook h : hooks) {
      try {
        h.onReconnect(client);
      } catch (RuntimeException e) {
        log.warn("{}: reconnect hook failed", name, e);
      }
      if (g != gen || closed) {
        break;
      }
    }
    r.methods.addAll(methods.ids(old));
    methods.appendAll(old);
    if (closed) {
      failEverything(List.of(), new DdpException("client closed"));
      return;
    }
    if (g != gen) {
      return;
    }
    for (SubscriptionImpl s : new ArrayList<>(subs.values())) {
      if (!s.sent) {
        sendSub(s);
      }
    }
    sendCalls();
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
      if (transport != null) {
        retire(transport, 1000, "version negotiation");
        transport = null;
      }
      // Same attempt for the reconnection manager: a negotiation is not a failure to back off from.
      openTransport();
      return;
    }
    terminal("the server requires DDP version '" + Redaction.abbreviate(proposed, 20)
        + "', which this client does not support (it supports "
        + String.join(", ", SUPPORTED_VERSIONS) + ")", true);
  }

  // ---- data ----

  private void onData(DdpMessage.DataMessage d) {
    if (streams.contains(d.collection())) {
      deliverStream(d);
      return;
    }
    if (resync != null) {
      if (!applyToShadow(resync, d)) {
        countProtocolError("'" + kind(d) + "' for an unknown document of " + d.collection());
      }
      return;
    }
    LocalCollection c = collection(d.collection());
    List<Runnable> events;
    if (d instanceof DdpMessage.Added a) {
      events = c.added(a.id(), a.fields());
    } else if (d instanceof DdpMessage.AddedBefore a) {
      events = c.added(a.id(), a.fields()); // ordering is not kept: an unordered store
    } else if (d instanceof DdpMessage.Changed ch) {
      events = c.changed(ch.id(), ch.fields(), ch.cleared());
    } else if (d instanceof DdpMessage.Removed r) {
      events = c.removed(r.id());
    } else {
      events = List.of(); // movedBefore: no order to keep
    }
    if (events == null) {
      countProtocolError("'" + kind(d) + "' for an unknown document of " + d.collection());
      return;
    }
    events.forEach(Runnable::run);
  }

  private static boolean applyToShadow(Resync r, DdpMessage.DataMessage d) {
    Map<String, ObjectNode> docs = r.shadow.computeIfAbsent(d.collection(), k -> new HashMap<>());
    if (d instanceof DdpMessage.Added a) {
      docs.put(a.id(), a.fields().deepCopy());
    } else if (d instanceof DdpMessage.AddedBefore a) {
      docs.put(a.id(), a.fields().deepCopy());
    } else if (d instanceof DdpMessage.Changed ch) {
      ObjectNode doc = docs.get(ch.id());
      if (doc == null) {
        return false;
      }
      docs.put(ch.id(), Docs.applyChange(doc, ch.fields(), ch.cleared()));
    } else if (d instanceof DdpMessage.Removed gone) {
      return docs.remove(gone.id()) != null;
    }
    return true;
  }

  private void deliverStream(DdpMessage.DataMessage d) {
    ObjectNode fields;
    if (d instanceof DdpMessage.Added a) {
      fields = a.fields();
    } else if (d instanceof DdpMessage.AddedBefore a) {
      fields = a.fields();
    } else if (d instanceof DdpMessage.Changed c) {
      fields = c.fields();
    } else {
      return; // removed / movedBefore: nothing is stored, nothing to report
    }
    List<StreamListener> ls = streamListeners.get(d.collection());
    if (ls == null) {
      return;
    }
    for (StreamListener l : ls) {
      try {
        l.onEvent(d.collection(), d.id(), fields.deepCopy());
      } catch (RuntimeException e) {
        log.warn("{}: stream listener failed on {}", name, d.collection(), e);
      }
    }
  }

  /**
   * The resync {@code r} is still waiting after {@link #resyncTimeout}: a revived subscription
   * never got {@code ready}, or a re-sent call never got {@code updated}. Shows what arrived rather
   * than keep the stale data (and {@link #resyncing}) until the next reconnect.
   */
  private void onResyncTimeout(Resync r) {
    if (resync != r) {
      return; // finished, or cut by a loss (the next connection has its own timer)
    }
    log.warn("{}: resync unfinished after {} ms ({} subscription(s) not ready, {} call(s) without "
        + "'updated'); showing the data received so far", name, resyncTimeout.toMillis(),
        r.subs.size(), r.methods.size());
    r.collecting = false;
    r.subs.clear(); // each becomes current when its own ready arrives
    r.methods.clear();
    maybeFinishResync();
  }

  private void maybeFinishResync() {
    Resync r = resync;
    if (r == null || !r.quiet()) {
      return;
    }
    resync = null;
    cancel(resyncTimer);
    resyncTimer = null;
    Set<String> names = new LinkedHashSet<>();
    collections.forEach((n, c) -> {
      if (!c.documents().isEmpty()) {
        names.add(n);
      }
    });
    names.addAll(r.shadow.keySet());
    names.removeAll(streams);
    List<Runnable> events = new ArrayList<>();
    for (String n : names) {
      events.addAll(collection(n).replaceAll(r.shadow.getOrDefault(n, Map.of())));
    }
    log.debug("{}: resynchronised {} collections, {} changes", name, names.size(), events.size());
    events.forEach(Runnable::run);
    for (SubscriptionImpl s : r.readied) {
      if (subs.get(s.id()) == s) {
        s.markReady();
      }
    }
    resyncing = false;
    announceResync();
  }

  /** Tells the resync listeners about {@link #resyncing} if it changed since they were told. */
  private void announceResync() {
    boolean now = resyncing;
    if (now == resyncAnnounced) {
      return;
    }
    resyncAnnounced = now;
    log.debug("{}: {}", name, now ? "data may be stale until the resync" : "data resynchronised");
    tellEach(resyncListeners, "resync listener", l -> l.onResyncChanged(now));
  }

  /**
   * Calls {@code call} on each listener in order; one that throws is logged as {@code what} and the
   * others are still called.
   */
  private <L> void tellEach(Iterable<L> listeners, String what, Consumer<? super L> call) {
    for (L l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        log.warn("{}: {} failed", name, what, e);
      }
    }
  }

  // ---- subscriptions ----

  void subscribe(SubscriptionImpl s) {
    if (closed) {
      s.markStopped(new DdpException("client closed"));
      return;
    }
    if (failure != null) {
      s.markStopped(new DdpException("not connected: " + failure));
      return;
    }
    subs.put(s.id(), s);
    if (phase == Phase.CONNECTED) {
      sendSub(s);
    }
  }

  void unsubscribe(SubscriptionImpl s) {
    if (!subs.remove(s.id(), s)) {
      return;
    }
    s.markUnsubscribed(
        new DdpException("subscription " + s.name() + " was stopped before it was ready"));
    if (s.sent && phase == Phase.CONNECTED) {
      send(out.unsub(s.id()));
    }
    if (resync != null) {
      resync.subs.remove(s.id());
      maybeFinishResync();
    }
  }

  private void sendSub(SubscriptionImpl s) {
    s.sent = true;
    log.debug("{}: -> sub {} id={}", name, s.name(), s.id());
    send(out.sub(s.id(), s.name(), s.params));
    if (resync != null && resync.collecting) {
      resync.subs.add(s.id());
    }
  }

  private void onReady(List<String> ids) {
    for (String id : ids) {
      SubscriptionImpl s = subs.get(id);
      if (s == null) {
        continue; // stopped meanwhile
      }
      if (resync != null) {
        resync.subs.remove(id);
        resync.readied.add(s); // ready once the store shows its data
      } else {
        s.markReady();
      }
    }
    maybeFinishResync();
  }

  private void onNoSub(String id, Function<SubscriptionImpl, DdpException> cause) {
    SubscriptionImpl s = subs.remove(id);
    if (resync != null) {
      resync.subs.remove(id);
    }
    if (s != null) {
      DdpException ex = cause.apply(s);
      log.debug("{}: <- nosub {} id={} ({})", name, s.name(), id, ex.getClass().getSimpleName());
      s.markStopped(ex);
    }
    maybeFinishResync();
  }

  private static DdpException nosubCause(SubscriptionImpl s, MethodError error) {
    return error != null
        ? new DdpMethodException(error.error(), error.reason(), error.details())
        : new DdpException("subscription " + s.name() + " was stopped by the server");
  }

  // ---- calls ----

  void enqueueCall(PendingCall c) {
    if (closed) {
      c.future.completeExceptionally(new DdpException("client closed"));
      return;
    }
    if (failure != null) {
      c.future.completeExceptionally(new DdpException("not connected: " + failure));
      return;
    }
    if (methods.unsent() >= maxQueuedCalls) {
      c.future.completeExceptionally(
          new DdpException("too many calls waiting to be sent: the limit is " + maxQueuedCalls
              + " (maxQueuedCalls)"));
      return;
    }
    methods.add(c);
    if (resync != null && resync.collecting) {
      resync.methods.add(c.id);
    }
    if (c.options.timeout() != null) {
      Cancellable t = schedule(c.options.timeout(), () -> onCallTimeout(c));
      c.future.whenComplete((v, e) -> t.cancel());
    }
    if (phase == Phase.CONNECTED) {
      sendCalls();
    }
  }

  private void sendCalls() {
    for (PendingCall c : methods.sendable()) {
      c.sent = true;
      if (log.isDebugEnabled()) {
        log.debug("{}: -> method {} id={} params={}", name, c.method, c.id,
            Redaction.params(c.method, c.params));
      }
      send(out.method(c.id, c.method, c.params, c.options.randomSeed()));
    }
  }

  private void onResult(DdpMessage.Result r) {
    PendingCall c = methods.takeSent(r.id());
    if (c == null) {
      countProtocolError("'result' for an unknown method id");
      return;
    }
    sendCalls(); // the next block, if this result ended the first one
    MethodError e = r.error();
    if (e != null) {
      log.debug("{}: <- result id={} error={}", name, c.id, e.error());
      c.future.completeExceptionally(new DdpMethodException(e.error(), e.reason(), e.details()));
    } else {
      log.debug("{}: <- result id={}", name, c.id);
      c.future.complete(r.result());
    }
  }

  /** A call's timeout ran out: it leaves the queue, and the calls held behind it may go. */
  private void onCallTimeout(PendingCall c) {
    if (!methods.remove(c)) {
      return; // answered, or failed, meanwhile
    }
    log.debug("{}: call {} id={} timed out", name, c.method, c.id);
    c.future.completeExceptionally(new DdpTimeoutException(
        "no result for " + c.method + " within " + c.options.timeout().toMillis() + " ms"));
    if (phase == Phase.CONNECTED) {
      sendCalls(); // the next block, if this call ended the first one
    }
    if (resync != null) {
      resync.methods.remove(c.id);
      maybeFinishResync();
    }
  }

  /**
   * A reply for readable ids with a malformed field: only its targets fail, the connection stays.
   * Dropping it would re-send the call or subscription and bring the same reply back, forever.
   */
  private void onMalformedReply(DdpMessage.Malformed bad) {
    countProtocolError(bad.problem());
    switch (bad.msg()) {
      case "result" -> {
        PendingCall c = methods.takeSent(bad.ids().get(0));
        if (c == null) {
          return; // counted above; the id is unknown anyway
        }
        sendCalls(); // the next block, if this result ended the first one
        c.future.completeExceptionally(new DdpException(
            "protocol error in the result of " + c.method + ": " + bad.problem()));
      }
      case "nosub" ->
          onNoSub(bad.ids().get(0), s -> new DdpException(
              "protocol error in the nosub ending subscription " + s.name() + ": "
                  + bad.problem()));
      case "ready" -> onReady(bad.ids());
      case "updated" -> onUpdated(bad.ids());
      default -> throw new AssertionError("Unexpected malformed reply: " + bad.msg());
    }
  }

  private void onUpdated(List<String> ids) {
    if (resync != null) {
      ids.forEach(resync.methods::remove);
      maybeFinishResync();
    }
  }

  // ---- heartbeat and health ----

  private void startHeartbeat() {
    if (heartbeatInterval.isZero() || "pre1".equals(version)) {
      return; // pre1 servers do not know ping
    }
    armIdle(heartbeatInterval);
  }

  private void armIdle(Duration after) {
    cancel(heartbeatTimer);
    long g = gen;
    heartbeatTimer =
        schedule(
            after,
            () -> {
              if (g == gen && phase == Phase.CONNECTED) {
                onIdleCheck();
              }
            });
  }

  private void onIdleCheck() {
    long idle = ticker.read() - lastInboundNanos;
    long interval = heartbeatInterval.toNanos();
    if (idle < interval) {
      armIdle(Duration.ofNanos(interval - idle));
      return;
    }
    send(out.ping(null));
    long seen = inboundCount;
    long g = gen;
    heartbeatTimer =
        schedule(
            heartbeatTimeout,
            () -> {
              if (g == gen && phase == Phase.CONNECTED) {
                onPingTimeout(seen);
              }
            });
  }

  private void onPingTimeout(long seenAtPing) {
    if (inboundCount != seenAtPing) {
      long idle = ticker.read() - lastInboundNanos;
      armIdle(Duration.ofNanos(Math.max(0, heartbeatInterval.toNanos() - idle)));
      return;
    }
    heartbeatTimeouts.incrementAndGet();
    log.info("{}: no frame within {} ms of a ping: the connection is dead", name,
        heartbeatTimeout.toMillis());
    drop(1000, "heartbeat timeout", 1006, "heartbeat timeout");
  }

  void checkHealth(CompletableFuture<Boolean> result) {
    if (closed) {
      result.complete(false);
      return;
    }
    if (phase != Phase.CONNECTED) {
      result.complete(false);
      manager.networkAvailable(); // if waiting, dial now
      return;
    }
    long since = ticker.read() - lastInboundNanos;
    if (since <= HEALTH_RECENT.toNanos()) {
      result.complete(true);
      return;
    }
    if (silenceTheHeartbeatWouldHaveCaught(since)) {
      heartbeatTimeouts.incrementAndGet();
      log.info("{}: health check: nothing heard for {} ms, redialing", name, since / 1_000_000);
      drop(1000, "health check", 1006, "health check: no traffic");
      manager.networkAvailable();
      result.complete(false);
      return;
    }
    if (probe != null) {
      probe.whenComplete((alive, e) -> result.complete(Boolean.TRUE.equals(alive)));
      return;
    }
    probe = result;
    send(out.ping(null));
    long g = gen;
    probeTimer =
        schedule(
            HEALTH_PING_TIMEOUT,
            () -> {
              if (probe == result && g == gen && phase == Phase.CONNECTED) {
                heartbeatTimeouts.incrementAndGet();
                log.info("{}: health check: no answer to a ping, redialing", name);
                drop(1000, "health check", 1006, "health check: no answer to ping");
                manager.networkAvailable();
              }
              if (probe == result) {
                completeProbe(false);
              }
            });
  }

  /**
   * Whether {@code silenceNanos} without a frame is longer than the heartbeat lets a live socket
   * be: an idle interval before its ping plus the timeout for the answer. Only then is the socket
   * known dead without asking (its timers were held, say, while the app was in the background);
   * a quiet room silent for less has simply not been pinged yet. This also covers a heartbeat
   * ping outstanding past its timeout: it went out at least an interval after the last frame.
   * With the heartbeat off nothing bounds a live silence, so a ping decides.
   */
  private boolean silenceTheHeartbeatWouldHaveCaught(long silenceNanos) {
    if (heartbeatInterval.isZero()) {
      return false;
    }
    return silenceNanos > heartbeatInterval.toNanos() + heartbeatTimeout.toNanos();
  }

  private void completeProbe(boolean alive) {
    CompletableFuture<Boolean> p = probe;
    if (p == null) {
      return;
    }
    probe = null;
    cancel(probeTimer);
    probeTimer = null;
    p.complete(alive);
  }

  // ---- losing the connection ----

  /**
   * A protocol error: counted, logged, and the connection dropped. The reason goes to the
   * reconnection manager, which backs off as from any other close (the counter is reset only by a
   * connection that stays up) and puts it in the status.
   */
  private void protocolError(String what, int closeCode) {
    countProtocolError(what);
    protocolDrops.incrementAndGet();
    drop(closeCode, "protocol error", closeCode, "protocol error: " + what);
  }

  /** A protocol error that does not justify dropping the connection. */
  private void countProtocolError(String what) {
    protocolErrors.incrementAndGet();
    lastProtocolError = what;
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

  /** Closes the current transport locally, without waiting for it, and reports the loss. */
  private void drop(int sendCode, String sendReason, int reportCode, String reportReason) {
    if (transport != null) {
      retire(transport, sendCode, sendReason);
      transport = null;
    }
    lost(reportCode, reportReason);
  }

  /** The connection is gone (or never came): reset it and tell the manager. */
  private void lost(int code, String reason) {
    boolean wasConnected = phase == Phase.CONNECTED;
    List<PendingCall> failed = detach();
    if (attempt != null) {
      attempt.closed(code, reason);
    }
    for (PendingCall c : failed) {
      c.future.completeExceptionally(
          new DdpMethodException(
              DdpMethodException.INVOCATION_FAILED,
              "the connection was lost before the result of " + c.method,
              null));
    }
    announceResync();
    if (wasConnected) {
      tellDisconnected(code, reason);
    }
    // No refreshStatus() here: the manager's own change (queued by closed()) brings the status,
    // and recomputing now from its previous snapshot would flash a CONNECTING.
  }

  private void tellDisconnected(int code, String reason) {
    tellEach(connectionListeners, "connection listener", l -> l.onDisconnected(code, reason));
  }

  /** Resets the per-connection state; returns the noRetry calls to fail. */
  private List<PendingCall> detach() {
    gen++;
    phase = Phase.IDLE;
    cancel(connectTimer);
    cancel(heartbeatTimer);
    connectTimer = null;
    heartbeatTimer = null;
    completeProbe(false);
    resync = null; // the store keeps what it showed; the next connection resyncs it
    cancel(resyncTimer);
    resyncTimer = null;
    if (everConnected && !closed) {
      resyncing = true; // told by the caller, once its own state is settled
    }
    for (SubscriptionImpl s : subs.values()) {
      s.sent = false;
      s.markStale();
    }
    return methods.connectionLost();
  }

  /** A failure for good: nothing more will be tried. */
  private void terminal(String reason, boolean stopManager) {
    failure = reason;
    log.warn("{}: giving up: {}", name, reason);
    if (transport != null) {
      retire(transport, 1000, "giving up");
      transport = null;
    }
    boolean wasConnected = phase == Phase.CONNECTED;
    List<PendingCall> cut = detach();
    failEverything(cut, new DdpException("connection failed: " + reason));
    if (stopManager) {
      manager.stop();
    }
    announceResync();
    refreshStatus();
    if (wasConnected) {
      tellDisconnected(1000, "giving up: " + reason);
    }
  }

  private void failEverything(List<PendingCall> alreadyRemoved, DdpException ex) {
    List<PendingCall> calls = new ArrayList<>(alreadyRemoved);
    calls.addAll(methods.clear());
    List<SubscriptionImpl> all = new ArrayList<>(subs.values());
    subs.clear();
    completeProbe(false);
    for (SubscriptionImpl s : all) {
      s.markStopped(ex);
    }
    for (PendingCall c : calls) {
      c.future.completeExceptionally(ex);
    }
  }

  private void retire(Transport t, int code, String reason) {
    try {
      t.close(code, reason);
    } catch (RuntimeException e) {
      log.debug("{}: error closing a transport", name, e);
    }
    retired.removeIf(ClientEngine::terminated);
    retired.add(t);
  }

  private static boolean terminated(Transport t) {
    try {
      return t.awaitTermination(Duration.ZERO);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  // ---- status ----

  /** Called by the manager on any thread: note the wall-clock retry time now, then hop. */
  private void onManagerChange(ReconnectStatus s) {
    Instant retry =
        s.state() == ReconnectionManager.State.WAITING
            ? clock.instant().plusNanos(s.nextAttemptAtNanos() - manager.ticker().read())
            : null;
    loop.execute(() -> onManagerStatus(s, retry));
  }

  private void onManagerStatus(ReconnectStatus s, Instant retry) {
    if (closed) {
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
    if (s.state() == ReconnectionManager.State.STOPPED && started && failure == null) {
      terminal(s.reason().isEmpty() ? "stopped" : s.reason(), false);
      return;
    }
    refreshStatus();
  }

  private void refreshStatus() {
    if (closed) {
      return;
    }
    setStatus(StatusMapping.map(lastManager, lastRetryTime, phase == Phase.CONNECTED, false,
        failure));
  }

  private void setStatus(DdpStatus next) {
    if (next.equals(status)) {
      return;
    }
    status = next;
    log.debug("{}: status {}", name, next);
    for (StatusListener l : statusListeners) {
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

  // ---- plumbing ----

  private void send(String frame) {
    Transport t = transport;
    if (t == null) {
      return;
    }
    framesOut.incrementAndGet();
    try {
      t.send(frame);
    } catch (RuntimeException e) {
      log.debug("{}: send failed", name, e);
    }
  }

  private Cancellable schedule(Duration after, Runnable onLoop) {
    return scheduler.schedule(after, () -> loop.execute(onLoop));
  }

  private static void cancel(Cancellable c) {
    if (c != null) {
      c.cancel();
    }
  }

  String describe() {
    return name + " " + Redaction.uri(uri) + " " + status.state();
  }
}
