package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DDP client. Reconnection is delegated to a {@link ReconnectionManager}; after every reconnect
 * the client runs the {@link ReconnectHook}s (log in with a resume token), re-sends every live
 * subscription and every unanswered call, and resynchronises its collections in one step.
 *
 * <p><b>Threads.</b> The client's work runs on one event loop: one task at a time, in order, each
 * to completion, so listeners are called one at a time and in order. Public methods may be called
 * from any thread; from a listener too, and then what they ask is queued behind the task that
 * called the listener, never run inside it (a reconnect hook's calls are the one exception: they
 * are collected and sent first, see {@link ReconnectHook}). By default the loop runs on a small
 * pool of daemon threads shared by every client of the JVM ({@code ddpkit-loop-N}, as many as the
 * machine has processors and at least 2), so a connected client costs the socket's two threads
 * ({@code <name>-ws-read}, {@code <name>-ws-write}) and nothing more. {@link
 * DdpClientBuilder#executor(Executor)} runs it on an executor the caller owns instead.
 *
 * <p>The listeners (status, stream, collection, subscription and call futures' dependents run
 * where the future is completed) are called on the event loop and must return quickly and never
 * wait for the client (a {@code join()} on one of its futures, say): while one runs, no frame of
 * this client is handled, and it holds one of the threads every client shares.
 *
 * <p>Protocol notes: DDP version 1 is proposed, with {@code pre2} and {@code pre1} as fallbacks; a
 * {@code failed} naming one of them is answered at once by a new connection with that version,
 * within the same attempt of the reconnection manager (it is not counted as a failed attempt).
 * {@code addedBefore} is stored as {@code added} and {@code movedBefore} is ignored: the local
 * stores are unordered. On the first connection, calls queued before it go out before the queued
 * subscriptions (a login made before {@link #connect()} precedes the subscriptions that need it);
 * on a reconnect the order is: {@code connect}, the hooks' calls, the subscriptions, then the calls
 * without a result. During the resynchronisation after a reconnect, call results complete at once
 * but data messages and {@code ready} are held until the revived subscriptions are ready and the
 * re-sent calls {@code updated}. Meanwhile the collections show what they held before the loss:
 * {@link #isResyncing()} and {@link Subscription#isCurrent()} say so.
 */
public final class DdpClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final String name;
  private final Requests requests;
  private final ReconnectionManager manager;
  private final EventLoop loop;
  private final ClientEngine engine;
  private final LoopTimers timers;
  private final ClientParts parts;

  DdpClient(DdpClientBuilder b) {
    // One stream each, split from the one source in this order, so that a seed repeats both.
    Random jitter = b.random == null ? null : new Random(b.random.nextLong());
    Random ids = b.random == null ? new SecureRandom() : new Random(b.random.nextLong());
    this.parts = ClientParts.wire(b, jitter);
    this.name = parts.name();
    this.requests = new Requests(b.mapper, ids);
    this.manager = parts.manager();
    this.loop = parts.loop();
    this.engine = parts.engine();
    this.timers = parts.timers();
    engine.bind(this);
  }

  /** Returns a builder. */
  public static DdpClientBuilder builder() {
    return new DdpClientBuilder();
  }

  /**
   * Starts connecting (returns at once). Calling it again while running does nothing; after a
   * failure for good ({@link DdpStatus.State#FAILED}) it starts again.
   *
   * @throws IllegalStateException if the client was closed
   */
  public void connect() {
    if (closed()) {
      throw new IllegalStateException("client closed: " + name);
    }
    loop.execute(engine::start);
  }

  /** Returns the current status. */
  public DdpStatus status() {
    return engine.status();
  }

  /** Returns the client's counters. */
  public DdpStats stats() {
    return engine.stats();
  }

  /**
   * Returns the client's own reconnection manager, made from its {@link
   * DdpClientBuilder#reconnection policy}: for its status and listeners ({@link
   * ReconnectionManager#addListener}, called on the client's event loop, in the order of the
   * manager's changes). The client drives it; the network and lifecycle reports have their own
   * methods here ({@link #networkLost()}, {@link #suspend()}, ...).
   */
  public ReconnectionManager reconnectionManager() {
    return manager;
  }

  /**
   * Returns the client's name: its loop thread's name (if it has one) and the prefix of its socket
   * threads' names.
   */
  public String name() {
    return name;
  }

  /** Adds a status listener; returns a handle that removes it. */
  public Cancellable addStatusListener(StatusListener listener) {
    return Listeners.add(engine.listeners.status, Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Adds a listener told when a socket reaches DDP {@code connected} and when such a connection
   * ends (see {@link ConnectionListener}).
   *
   * @return removes the listener
   */
  public Cancellable addConnectionListener(ConnectionListener listener) {
    return Listeners.add(engine.listeners.connection, Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Returns whether the local collections may be out of date because the connection was lost:
   * {@code true} from the loss of an established connection (while waiting, reconnecting and
   * resynchronising) until, after the reconnect, the revived subscriptions are ready, the re-sent
   * calls updated, and the collections replaced by the server's data in one step. {@code false}
   * before the first connection and while in sync. If the client fails for good or is closed in
   * between, it stays {@code true}: what the collections show was never resynchronised. Stream
   * events ({@link #addStreamListener}) are never held back and are not covered. Safe to call from any
   * thread; {@link #addResyncListener} reports the changes.
   */
  public boolean isResyncing() {
    return engine.resyncing();
  }

  /**
   * Adds a listener told each time {@link #isResyncing()} changes, on the client's event loop;
   * returns a handle that removes it.
   */
  public Cancellable addResyncListener(ResyncListener listener) {
    return Listeners.add(engine.listeners.resync, Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Adds a hook run on every reconnection, before the subscriptions and calls are re-sent (log in
   * with the resume token there, as a {@link CallOptions#WAIT} call); returns a handle that
   * removes it.
   */
  public Cancellable addReconnectHook(ReconnectHook hook) {
    return Listeners.add(engine.listeners.hooks, Objects.requireNonNull(hook, "hook"));
  }


  /**
   * Calls a method with {@link CallOptions#DEFAULT}; each argument is one param. Params are sent
   * as EJSON, see {@link #call(String, List, CallOptions)}. A single {@link List} argument is the
   * params list itself ({@link #call(String, List)}), as for {@link #subscribe}: to send one
   * param that is a list, wrap it ({@code call("m", List.of(list))}).
   */
  public CompletableFuture<JsonNode> call(String method, Object... params) {
    Objects.requireNonNull(params, "params");
    return call(method, Arrays.asList(params), CallOptions.DEFAULT);
  }

  /**
   * Calls a method with {@link CallOptions#DEFAULT}: {@code params} is the params list, so {@code
   * call("m", List.of(1, 2))} sends {@code [1,2]}, as {@code subscribe("s", List.of(1, 2))} does.
   * Params are sent as EJSON, see {@link #call(String, List, CallOptions)}.
   */
  public CompletableFuture<JsonNode> call(String method, List<?> params) {
    return call(method, params, CallOptions.DEFAULT);
  }

  /**
   * Calls a method. The future completes with the result ({@code NullNode} if none), or
   * exceptionally with a {@link DdpMethodException} (server error, {@code invocation-failed}) or a
   * {@link DdpException} (queue full, client closed, or a protocol error: a {@code result} for
   * this call whose {@code error} is malformed fails only this call, and the connection stays).
   *
   * <p>Params are sent as EJSON: {@code byte[]} as {@code {"$binary": base64}}, {@link
   * java.time.Instant} and {@link java.util.Date} as {@code {"$date": millis}}, NaN and infinite
   * numbers as {@code {"$InfNaN": 0|1|-1}}, and a map whose keys look like an EJSON type (say
   * {@code "$date"}) wrapped in {@code {"$escape": ...}}; maps, collections and arrays are walked,
   * a {@link JsonNode} is sent as is, and any other object (a record, a bean) is serialised by the
   * {@linkplain DdpClientBuilder#objectMapper mapper}, with these EJSON forms for the values in it.
   *
   * @throws IllegalArgumentException if a param cannot be encoded (a map key that is not a string,
   *     a cycle, a date outside JavaScript's range, or what the mapper rejects)
   */
  public CompletableFuture<JsonNode> call(String method, List<?> params, CallOptions options) {
    ArrayNode p = requests.callParams(method, params, options);
    if (closed()) {
      // Not CompletableFuture.failedFuture: Android has it only from API 31.
      CompletableFuture<JsonNode> failed = new CompletableFuture<>();
      failed.completeExceptionally(new DdpException("client closed"));
      return failed;
    }
    PendingCall c = requests.call(method, p, options);
    if (!(loop.inLoop() && engine.collectHookCall(c))) {
      loop.execute(() -> engine.enqueueCall(c));
    }
    if (closed()) {
      c.future.completeExceptionally(new DdpException("client closed"));
    }
    return c.future;
  }

  /**
   * Subscribes to a publication; each argument is one param, sent as EJSON as for {@link #call}. A
   * single {@link List} argument is the params list itself ({@link #subscribe(String, List)}).
   */
  public Subscription subscribe(String name, Object... params) {
    Objects.requireNonNull(params, "params");
    return subscribe(name, Arrays.asList(params));
  }

  /**
   * Subscribes to a publication; {@code params} is the params list ({@code subscribe("s",
   * List.of(1, 2))} sends {@code [1,2]}, as {@code call("m", List.of(1, 2))} does), sent as EJSON
   * as for {@link #call}.
   *
   * @throws IllegalArgumentException if a param cannot be encoded
   */
  public Subscription subscribe(String name, List<?> params) {
    SubscriptionImpl s = requests.subscription(name, params, this::unsubscribe);
    if (closed()) {
      s.markStopped(new DdpException("client closed"));
      return s;
    }
    loop.execute(() -> engine.subscribe(s));
    if (closed()) {
      s.markStopped(new DdpException("client closed"));
    }
    return s;
  }

  private void unsubscribe(SubscriptionImpl s) {
    if (closed()) {
      return;
    }
    if (loop.inLoop()) {
      // From a listener: at once, so that a subscription stopped in ConnectionListener.onConnected
      // is not sent again by the reconnect that is calling it.
      engine.unsubscribe(s);
    } else {
      loop.execute(() -> engine.unsubscribe(s));
    }
  }

  /** Returns the local store of a collection (created empty on first use). */
  public DdpCollection collection(String name) {
    Requests.checkName("name", name);
    return engine.data.collection(name);
  }

  /**
   * Treats {@code collection} as an event stream: its data messages are delivered to {@code
   * listener} at once and never stored or held back. Returns a handle that removes the listener.
   * The collection is a stream while it has listeners: once the last one is removed, its data
   * messages go to its local store again (see {@link #collection}).
   */
  public Cancellable addStreamListener(String collection, StreamListener listener) {
    Requests.checkName("collection", collection);
    return engine.data.addStreamListener(collection, Objects.requireNonNull(listener, "listener"));
  }


  /**
   * Runs {@code task} on the client's event loop, after every task queued before it: one at a time
   * with the client's own work (frames, timers, listeners), so it may read and change state that
   * only the loop touches without a lock. The task is always queued, never run inside the caller
   * even when called from a listener, so it never re-enters the code that called it. A task that
   * throws is logged and the loop goes on. After {@link #close()} the task is dropped and never
   * runs.
   *
   * @return whether the task was accepted ({@code false} once the client is closed)
   */
  public boolean execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    boolean accepted = loop.execute(task);
    if (!accepted) {
      log.debug("{}: closed, a task was dropped", name);
    }
    return accepted;
  }

  /**
   * Runs {@code task} on the client's event loop (as {@link #execute}) after {@code delay}, on the
   * client's {@linkplain DdpClientBuilder#scheduler scheduler}'s time: a timer of the client's own, with no
   * thread of its own. The handle cancels it; a timer cancelled from the event loop (from a
   * listener, or another loop task) never runs afterwards. {@link #close()} cancels every timer
   * not yet run, and a timer scheduled after {@code close()} never runs.
   *
   * @param delay how long to wait; zero means as soon as possible
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public Cancellable schedule(Duration delay, Runnable task) {
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(task, "task");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    return timers.schedule(delay, task);
  }

  /**
   * Tells the client the network is back (Android's {@code NetworkCallback.onAvailable}): if it is
   * waiting to retry, or holding after {@link #networkLost()}, it dials at once, keeping the
   * attempt count.
   */
  public void networkAvailable() {
    if (!closed()) {
      manager.networkAvailable();
    }
  }

  /**
   * Tells the client the network is gone (Android's {@code NetworkCallback.onLost}): no dial until
   * {@link #networkAvailable()}; a connection that is up is left to its heartbeat.
   */
  public void networkLost() {
    if (!closed()) {
      manager.networkLost();
    }
  }

  /** Tells the client the app went to the background: no dial until {@link #resume()}. */
  public void suspend() {
    if (!closed()) {
      manager.suspend();
    }
  }

  /**
   * Tells the client the app is back in the foreground: if the connection is down (and the network
   * not lost) it dials at once. Pair it with {@link #checkHealth()} to find a socket that died
   * while suspended.
   */
  public void resume() {
    if (!closed()) {
      manager.resume();
    }
  }

  /**
   * For an app returning to the foreground: traffic seen in the last 2 s, nothing to do; nothing
   * for longer than the heartbeat would have allowed (its interval plus its timeout: 40 s by
   * default), redial at once, since the socket is dead and its timers were held; in between, a
   * ping with a short timeout (2 s) decides, so a quiet room that is merely idle keeps its
   * connection. With the heartbeat off a ping always decides. The future completes with whether
   * the connection was found alive (not connected: {@code false}, and a waiting client dials at
   * once).
   */
  public CompletableFuture<Boolean> checkHealth() {
    CompletableFuture<Boolean> f = new CompletableFuture<>();
    if (closed()) {
      f.complete(false);
      return f;
    }
    loop.execute(() -> engine.checkHealth(f));
    if (closed()) {
      f.complete(false);
    }
    return f;
  }

  /**
   * Closes the connection for good, fails every pending call and subscription with a {@link
   * DdpException}, cancels every {@linkplain #schedule timer} and lets the client's threads end.
   * Returns at once, from any thread, a listener included: the shutdown runs on the event loop
   * after the tasks queued before it. {@link #awaitTermination(Duration)} waits for it to be done.
   * Calling it again does nothing.
   */
  @Override
  public void close() {
    boolean first =
        loop.close(
            () -> {
              engine.shutdown();
              parts.shutdownDone().countDown();
            });
    if (first) {
      timers.cancelAll();
    }
  }

  /**
   * Whether {@link #close()} was called: the client's one "closed" fact is its loop's, which takes
   * no task after the shutdown it ran last. Any thread.
   */
  private boolean closed() {
    return loop.isShutdown();
  }

  /**
   * Waits until the client has shut down after {@link #close()}: the shutdown has run on the event
   * loop, and the client's own thread (if it has one) and its socket threads have ended. Before
   * {@code close()} it waits for a close that another thread makes, up to {@code timeout}.
   *
   * @return whether everything ended within {@code timeout}
   * @throws IllegalStateException if called on the client's event loop (from a listener), where it
   *     would wait for itself
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return parts.awaitTermination(timeout);
  }

  @Override
  public String toString() {
    return "DdpClient{" + engine.describe() + "}";
  }
}
