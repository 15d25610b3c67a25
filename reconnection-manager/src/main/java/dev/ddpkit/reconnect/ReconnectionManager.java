package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when to reconnect. The manager calls the {@link Connector} when it is time to dial,
 * handing it an {@link Attempt}; the socket made for that attempt reports what became of it on the
 * attempt ({@link Attempt#opened()}, {@link Attempt#closed(int, String)}, {@link
 * Attempt#failed(Throwable)}). The owner reports the rest here ({@link #networkAvailable()}, {@link
 * #networkLost()}, {@link #suspend()}, {@link #resume()}, {@link #stop()}).
 *
 * <p>Rules it keeps:
 *
 * <ul>
 *   <li>at most one pending timer;
 *   <li>the attempt counter is reset only after a connection stayed up for {@code stableAfter},
 *       never when it opens, so a server that accepts and drops at once is backed off from;
 *   <li>a server's {@code retry-after=<ms>} is an appointment: the next dial is made then, plus a
 *       small spread, whatever the backoff curve or the 1013 floor say (bounded by {@code
 *       hintMinimum}, ten minutes and {@code maxAttempts}); the counter still advances;
 *   <li>{@link #networkAvailable()} dials at once when waiting, keeping the counter;
 *   <li>while the network is lost or the app suspended, nothing is dialed;
 *   <li>listeners and the connector are called outside the lock, in the order of the changes.
 * </ul>
 *
 * <p>Thread-safe. Reports on an attempt that is no longer current (a newer one was dialed, or the
 * manager stopped) are ignored, and so are reports that do not fit the state (a second {@code
 * closed}), so a late callback from an old socket is never charged to the current one and cannot
 * start a second timer. The connector and the listeners run one at a time, in the order of the changes, on
 * whichever thread is delivering them (the reporting thread or the scheduler's); a report made
 * while another thread is delivering returns at once and its events follow in order. A queued
 * dial that was overtaken (by a stop, by a close) before it ran is dropped, not made.
 */
public final class ReconnectionManager {
  private static final Logger log = LoggerFactory.getLogger(ReconnectionManager.class);

  /** The states of the manager. */
  public enum State {
    /** Created, {@link #start(Connector)} not called yet. */
    IDLE,
    /** A dial is in progress. */
    CONNECTING,
    /** The connection is open (stable or not yet). */
    CONNECTED,
    /** The connection is down; a timer will dial. */
    WAITING,
    /** The connection is down; dials are held until the network is back or the app resumes. */
    HELD,
    /** No more dials: stopped by the client, by a close code, or after too many attempts. */
    STOPPED
  }

  private final ReconnectPolicy policy;
  private final Backoff backoff;
  private final ClosePolicy closePolicy;
  private final Duration stableAfter;
  private final int maxAttempts;
  private final double hintSpread;
  private final Duration maxHintSpread;
  private final Duration hintMinimum;
  private final Scheduler scheduler;
  private final Ticker ticker;
  private final DoubleSupplier random;
  private final Runnable credentialsRefresher;
  private final String name;
  private final CopyOnWriteArrayList<ReconnectListener> listeners;

  private final Object lock = new Object();
  // Everything below is guarded by lock.
  private final ArrayDeque<Runnable> outbox = new ArrayDeque<>();
  private boolean draining;
  private Connector connector;
  private Attempt current;
  private State state = State.IDLE;
  private int attempt;
  private Duration delay = Duration.ZERO;
  private long nextAttemptAt;
  /**
   * When the server's appointment falls (ticker nanos), if the wait or hold now is for one: a
   * network that comes back or an app that resumes does not bring it forward.
   */
  private long appointmentAt;
  private boolean appointment;
  private int lastCloseCode;
  private String reason = "";
  private boolean networkLost;
  private boolean suspended;
  private boolean stable;
  private boolean authRefreshUsed;
  private Cancellable timer;
  private long generation;
  private volatile ReconnectStatus snapshot;

  private ReconnectionManager(Builder b) {
    this.policy = b.policy.build();
    this.backoff = policy.backoff();
    this.closePolicy = policy.closePolicy();
    this.stableAfter = policy.stableAfter();
    this.maxAttempts = policy.maxAttempts();
    this.hintSpread = policy.hintSpread();
    this.maxHintSpread = policy.maxHintSpread();
    this.hintMinimum = policy.hintMinimum();
    this.scheduler = b.scheduler;
    this.ticker = b.ticker;
    this.random = b.random;
    this.credentialsRefresher = b.credentialsRefresher;
    this.name = b.name;
    this.listeners = new CopyOnWriteArrayList<>(b.listeners);
    this.snapshot = snapshotLocked();
  }

  /**
   * Returns a builder with {@link ReconnectPolicy#defaults()} (RFC curve, DDP close profile, stable
   * after 10 s), the system scheduler and ticker.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the policy this manager follows. */
  public ReconnectPolicy policy() {
    return policy;
  }

  /** Returns the backoff this manager uses. */
  public Backoff backoff() {
    return backoff;
  }

  /** Returns the close policy this manager uses. */
  public ClosePolicy closePolicy() {
    return closePolicy;
  }

  /** Returns the ticker this manager reads time from. */
  public Ticker ticker() {
    return ticker;
  }

  /** Returns the current snapshot. */
  public ReconnectStatus status() {
    return snapshot;
  }

  /** Adds a listener; it is called for every later change. Returns a handle that removes it. */
  public Cancellable addListener(ReconnectListener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /**
   * Binds the connector and dials at once (or holds, if the network is lost or the app suspended).
   * May be called again after the manager stopped, which starts afresh with the counter at 0.
   *
   * @throws IllegalStateException if the manager is running
   */
  public void start(Connector connector) {
    Objects.requireNonNull(connector, "connector");
    synchronized (lock) {
      if (state != State.IDLE && state != State.STOPPED) {
        throw new IllegalStateException("already started: " + state);
      }
      this.connector = connector;
      attempt = 0;
      delay = Duration.ZERO;
      nextAttemptAt = 0;
      appointment = false;
      lastCloseCode = 0;
      reason = "";
      stable = false;
      authRefreshUsed = false;
      if (isHeldLocked()) {
        moveLocked(State.HELD);
      } else {
        dialLocked();
      }
    }
    drain();
  }

  /** {@link Attempt#opened()}: the connection of attempt {@code a} is open. */
  void opened(Attempt a) {
    synchronized (lock) {
      if (a != current) {
        log.debug("{}: opened() of superseded {} ignored", name, a);
        return;
      }
      if (state != State.CONNECTING) {
        log.debug("{}: opened() ignored in state {}", name, state);
        return;
      }
      stable = false;
      reason = "";
      scheduleLocked(stableAfter, this::onStable);
      moveLocked(State.CONNECTED);
    }
    drain();
  }

  /** {@link Attempt#closed(int, String)}: the connection of attempt {@code a} closed. */
  void closed(Attempt a, int code, String reason) {
    IllegalStateException fault;
    synchronized (lock) {
      if (a != current) {
        log.debug("{}: closed({}) of superseded {} ignored", name, code, a);
        return;
      }
      fault = closedLocked(code, reason);
    }
    drain();
    if (fault != null) {
      throw fault;
    }
  }

  /** {@link Attempt#isCurrent()}. */
  boolean isCurrent(Attempt a) {
    synchronized (lock) {
      return a == current;
    }
  }

  /**
   * Reports that the network is (back) up. If the manager is waiting it dials at once, keeping the
   * attempt counter; if it was holding for the network (and is not suspended) it dials at once.
   * Otherwise only the status's {@code networkLost} flag changes. A wait for a server's {@code
   * retry-after} appointment is kept: the server said when it has room, and a network change on
   * this side does not give it more (a hold for one that has not come yet waits for it again).
   */
  public void networkAvailable() {
    synchronized (lock) {
      boolean changed = networkLost;
      networkLost = false;
      if (!kickLocked("network available") && changed) {
        announceFlagsLocked();
      }
    }
    drain();
  }

  /** Reports that the network is gone: no dial until {@link #networkAvailable()}. */
  public void networkLost() {
    synchronized (lock) {
      boolean changed = !networkLost;
      networkLost = true;
      if (!holdLocked() && changed) {
        announceFlagsLocked();
      }
    }
    drain();
  }

  /** The app went to the background: no dial until {@link #resume()}. */
  public void suspend() {
    synchronized (lock) {
      boolean changed = !suspended;
      suspended = true;
      if (!holdLocked() && changed) {
        announceFlagsLocked();
      }
    }
    drain();
  }

  /**
   * The app came back: if the connection is down (and the network up), dial at once, or at the
   * server's appointment if one is still to come (as for {@link #networkAvailable()}).
   */
  public void resume() {
    synchronized (lock) {
      boolean changed = suspended;
      suspended = false;
      if (!kickLocked("resumed") && changed) {
        announceFlagsLocked();
      }
    }
    drain();
  }

  /** Stops for good: no more dials. The owner closes its socket itself. */
  public void stop() {
    synchronized (lock) {
      if (state == State.STOPPED) {
        return;
      }
      cancelTimerLocked();
      current = null;
      reason = "stopped by client";
      moveLocked(State.STOPPED);
    }
    drain();
  }

  // ---- transitions (all under lock) ----

  /**
   * Applies a close of the current attempt. Returns the failure of a broken {@link Backoff} (the
   * manager has then stopped with it as its reason) for the reporter to throw, or null.
   */
  private IllegalStateException closedLocked(int code, String reason) {
    if (state != State.CONNECTING && state != State.CONNECTED) {
      log.debug("{}: closed({}) ignored in state {}", name, code, state);
      return null;
    }
    cancelTimerLocked();
    if (stable) {
      attempt = 0;
      authRefreshUsed = false;
    }
    stable = false;
    lastCloseCode = code;
    CloseDecision decision = closePolicy.classify(code, reason);
    this.reason = decision.description();
    switch (decision.action()) {
      case STOP -> moveLocked(State.STOPPED);
      case REFRESH_AUTH -> {
        if (authRefreshUsed) {
          // The refresh did not help: back off as for any retry, keeping an appointment if any.
          return retryLocked(decision);
        }
        authRefreshUsed = true;
        if (!countAttemptLocked()) {
          return null;
        }
        outbox.add(this::refreshCredentials);
        if (decision.retryAfter().isPresent()) {
          // The immediate retry keeps the server's appointment too.
          waitForAppointmentLocked(appointmentLocked(decision.retryAfter().get()));
          return null;
        }
        delay = Duration.ZERO;
        if (isHeldLocked()) {
          moveLocked(State.HELD);
        } else {
          dialLocked();
        }
      }
      case RETRY, RETRY_SLOW -> {
        return retryLocked(decision);
      }
      default -> throw new AssertionError("Unexpected action: " + decision.action());
    }
    return null;
  }

  /** Counts one more attempt; if that is past maxAttempts, stops (gave up) and returns false. */
  private boolean countAttemptLocked() {
    attempt++;
    if (maxAttempts > 0 && attempt > maxAttempts) {
      attempt = maxAttempts;
      reason = "gave up after " + maxAttempts + " attempts (" + reason + ")";
      moveLocked(State.STOPPED);
      return false;
    }
    return true;
  }

  /**
   * Counts the retry and waits: until the server's appointment if it gave one, else the curve's
   * delay, but at least the decision's floor.
   */
  private IllegalStateException retryLocked(CloseDecision decision) {
    if (!countAttemptLocked()) {
      return null;
    }
    if (decision.retryAfter().isPresent()) {
      // The counter advanced all the same: if the appointment fails with no new hint, the curve
      // goes on from where it was.
      waitForAppointmentLocked(appointmentLocked(decision.retryAfter().get()));
      return null;
    }
    Duration floor = decision.floor();
    Duration d;
    try {
      d = nextDelayLocked();
    } catch (IllegalStateException e) {
      // Swapping in another curve would hide the bug; waiting for ever would wedge the client.
      log.error("{}: {}; stopping", name, e.getMessage(), e.getCause());
      this.reason = e.getMessage();
      moveLocked(State.STOPPED);
      return e;
    }
    if (d.compareTo(floor) < 0) {
      // Up to hintSpread past the floor, so that clients turned away together spread out.
      d = floor.plusMillis(Math.round(floor.toMillis() * hintSpread * sample()));
    }
    waitLocked(d);
    return null;
  }

  /**
   * The delay until the server's appointment: the hint, raised to {@code hintMinimum} (a broken or
   * hostile server answering {@code retry-after=0} gets at most one dial per minimum), capped to
   * {@link ClosePolicy#MAX_RETRY_AFTER}, plus the spread.
   */
  private Duration appointmentLocked(Duration hint) {
    Duration h = hint.compareTo(hintMinimum) < 0 ? hintMinimum : hint;
    if (h.compareTo(ClosePolicy.MAX_RETRY_AFTER) > 0) {
      h = ClosePolicy.MAX_RETRY_AFTER;
    }
    return spreadLocked(h);
  }

  /**
   * {@code at} plus a jitter of up to {@code hintSpread} of it, at most {@code maxHintSpread}: never
   * earlier than the server said, and late by little enough that a server holding a slot for the
   * client (see {@code dev.ddpkit.reconnect.admission.Admission}) still has it.
   */
  private Duration spreadLocked(Duration at) {
    long window = Math.min(Math.round(at.toMillis() * hintSpread), maxHintSpread.toMillis());
    return at.plusMillis(Math.round(window * sample()));
  }

  /**
   * Waits {@code d} for the server's appointment (or holds until then, if the network is down or
   * the app suspended): {@link #networkAvailable()} and {@link #resume()} keep it.
   */
  private void waitForAppointmentLocked(Duration d) {
    appointmentAt = VirtualScheduler.plusSaturated(ticker.read(), d);
    appointment = true;
    waitLocked(d);
  }

  /** Waits {@code d} before the next dial (or holds, if the network is down or suspended). */
  private void waitLocked(Duration d) {
    delay = d;
    if (isHeldLocked()) {
      moveLocked(State.HELD);
      return;
    }
    nextAttemptAt = VirtualScheduler.plusSaturated(ticker.read(), d);
    scheduleLocked(d, this::onTimer);
    moveLocked(State.WAITING);
  }

  /**
   * Dials now if waiting or held and nothing holds any more, unless the wait is for a server's
   * appointment still to come: then a held manager waits for it again, a waiting one keeps its
   * timer. Returns whether the state changed (and so was announced).
   */
  private boolean kickLocked(String why) {
    if (isHeldLocked() || (state != State.WAITING && state != State.HELD)) {
      return false;
    }
    long now = ticker.read();
    if (appointment && now - appointmentAt < 0) {
      long left = appointmentAt - now;
      log.debug("{}: {}, keeping the server's appointment in {} ms (attempt {})", name, why,
          TimeUnit.NANOSECONDS.toMillis(left), attempt);
      if (state == State.WAITING) {
        return false;
      }
      nextAttemptAt = appointmentAt;
      scheduleLocked(Duration.ofNanos(left), this::onTimer);
      moveLocked(State.WAITING);
      return true;
    }
    log.debug("{}: {}, dialing now (attempt {})", name, why, attempt);
    dialLocked();
    return true;
  }

  /** Moves a waiting manager to HELD, dropping its timer; returns whether it moved. */
  private boolean holdLocked() {
    if (state != State.WAITING) {
      return false;
    }
    cancelTimerLocked();
    moveLocked(State.HELD);
    return true;
  }

  /**
   * The network or suspended flag changed with no change of state: publish it, so that a status
   * line can show "offline" while connected or held. Before start and after stop only the
   * snapshot is refreshed, with no event.
   */
  private void announceFlagsLocked() {
    if (state == State.IDLE || state == State.STOPPED) {
      snapshot = snapshotLocked();
    } else {
      moveLocked(state);
    }
  }

  private void dialLocked() {
    cancelTimerLocked();
    appointment = false;
    Attempt a = new Attempt(this, attempt);
    current = a;
    moveLocked(State.CONNECTING);
    Connector c = connector;
    outbox.add(() -> dial(c, a));
  }

  private void scheduleLocked(Duration after, java.util.function.LongConsumer task) {
    cancelTimerLocked();
    long gen = generation;
    timer = scheduler.schedule(after, () -> task.accept(gen));
  }

  private void cancelTimerLocked() {
    generation++;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  private void moveLocked(State next) {
    state = next;
    if (next == State.STOPPED) {
      current = null; // every report on an attempt made so far is now a no-op
    }
    ReconnectStatus s = snapshotLocked();
    snapshot = s;
    outbox.add(() -> notifyListeners(s));
  }

  private ReconnectStatus snapshotLocked() {
    return new ReconnectStatus(
        state, attempt, delay, nextAttemptAt, lastCloseCode, reason, networkLost, suspended);
  }

  private boolean isHeldLocked() {
    return networkLost || suspended;
  }

  /**
   * The backoff's delay for the current attempt, a delay beyond ~292 years clamped.
   *
   * @throws IllegalStateException if the backoff threw or returned null or a negative delay
   */
  private Duration nextDelayLocked() {
    return Backoffs.checkedDelay(backoff, attempt, sample());
  }

  /** A sample in [0, 1) from the configured source, or a fresh one if that source misbehaves. */
  private double sample() {
    double s;
    try {
      s = random.getAsDouble();
    } catch (RuntimeException e) {
      log.warn("{}: random source failed; using ThreadLocalRandom", name, e);
      return ThreadLocalRandom.current().nextDouble();
    }
    if (!(s >= 0 && s < 1)) {
      log.warn("{}: random source returned {}, not in [0, 1); using ThreadLocalRandom", name, s);
      return ThreadLocalRandom.current().nextDouble();
    }
    return s;
  }

  // ---- timer callbacks and outside-the-lock actions ----

  private void onTimer(long gen) {
    synchronized (lock) {
      // A timer that lost a race with a cancel must not dial: the generation tells.
      if (gen != generation || state != State.WAITING) {
        return;
      }
      timer = null;
      dialLocked();
    }
    drain();
  }

  private void onStable(long gen) {
    synchronized (lock) {
      if (gen != generation || state != State.CONNECTED) {
        return;
      }
      timer = null;
      stable = true;
      attempt = 0;
      authRefreshUsed = false;
      delay = Duration.ZERO;
      moveLocked(State.CONNECTED);
    }
    drain();
  }

  private void dial(Connector c, Attempt a) {
    synchronized (lock) {
      // Superseded between being queued and now (a listener called stop(), another thread
      // reported a close): calling the connector would open a socket whose every report is
      // then ignored.
      if (a != current || state != State.CONNECTING) {
        log.debug("{}: dial of {} superseded, not calling the connector", name, a);
        return;
      }
    }
    try {
      c.connect(a);
    } catch (Exception | LinkageError e) {
      log.debug("{}: connector failed on {}", name, a, e);
      synchronized (lock) {
        // Only while the attempt is still dialing: a connector that reported opened() before it
        // threw has a connection, and one that reported its close has been dealt with.
        if (a == current && state == State.CONNECTING) {
          // A broken backoff has stopped the manager and logged it; nobody to throw it to here.
          closedLocked(CloseCodes.ABNORMAL, "connect failed: " + e.getClass().getSimpleName());
        }
      }
      // Always called from drain(), which runs what closedLocked queued next.
    }
  }

  private void refreshCredentials() {
    try {
      credentialsRefresher.run();
    } catch (RuntimeException e) {
      log.warn("{}: credentials refresher failed", name, e);
    }
  }

  private void notifyListeners(ReconnectStatus s) {
    if (log.isDebugEnabled()) {
      log.debug(
          "{}: {} attempt={} delay={}ms {}", name, s.state(), s.attempt(), s.delay().toMillis(),
          s.reason());
    }
    for (ReconnectListener l : listeners) {
      try {
        l.onStatus(s);
      } catch (RuntimeException e) {
        log.warn("{}: listener {} failed", name, l, e);
      }
    }
  }

  /** Runs queued actions in order on one thread at a time, never under the lock. */
  private void drain() {
    synchronized (lock) {
      if (draining) {
        return;
      }
      draining = true;
    }
    boolean done = false;
    try {
      while (true) {
        Runnable r;
        synchronized (lock) {
          r = outbox.poll();
          if (r == null) {
            draining = false;
            done = true;
            return;
          }
        }
        r.run();
      }
    } finally {
      if (!done) {
        // An Error escaped a listener or the connector. It goes on to our caller, but what was
        // queued behind it (a dial, a later status) must not wait for some future report to be
        // drained: hand it to the scheduler, off this stack.
        boolean more;
        synchronized (lock) {
          draining = false;
          more = !outbox.isEmpty();
        }
        if (more) {
          scheduler.schedule(Duration.ZERO, this::drain);
        }
      }
    }
  }

  @Override
  public String toString() {
    ReconnectStatus s = snapshot;
    return "ReconnectionManager{" + name + " " + s.state() + " attempt=" + s.attempt() + "}";
  }

  /**
   * Builds a {@link ReconnectionManager}: a {@link ReconnectPolicy} (whose builder holds the
   * defaults and validates them) plus this manager's own time source, listeners and name.
   */
  public static final class Builder {
    private ReconnectPolicy.Builder policy = ReconnectPolicy.builder();
    private Scheduler scheduler = Scheduler.systemScheduler();
    private Ticker ticker = Ticker.systemTicker();
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
    private Runnable credentialsRefresher = () -> {};
    private final List<ReconnectListener> listeners = new ArrayList<>();
    private String name = "reconnect";

    private Builder() {}

    /**
     * Starts from {@code policy}: its backoff, close policy, stable period, attempt limit and hint
     * settings (the setters below change them for this manager only).
     */
    public Builder policy(ReconnectPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy").toBuilder();
      return this;
    }

    /** Sets the backoff curve; see {@link ReconnectPolicy.Builder#backoff}. */
    public Builder backoff(Backoff backoff) {
      policy.backoff(backoff);
      return this;
    }

    /** Sets the close policy; see {@link ReconnectPolicy.Builder#closePolicy}. */
    public Builder closePolicy(ClosePolicy closePolicy) {
      policy.closePolicy(closePolicy);
      return this;
    }

    /** Sets the stable period; see {@link ReconnectPolicy.Builder#stableAfter}. */
    public Builder stableAfter(Duration stableAfter) {
      policy.stableAfter(stableAfter);
      return this;
    }

    /** Sets when to give up; see {@link ReconnectPolicy.Builder#maxAttempts}. */
    public Builder maxAttempts(int maxAttempts) {
      policy.maxAttempts(maxAttempts);
      return this;
    }

    /** Sets the spread after a hint; see {@link ReconnectPolicy.Builder#hintSpread}. */
    public Builder hintSpread(double hintSpread) {
      policy.hintSpread(hintSpread);
      return this;
    }

    /** Caps the spread after a hint; see {@link ReconnectPolicy.Builder#maxHintSpread}. */
    public Builder maxHintSpread(Duration maxHintSpread) {
      policy.maxHintSpread(maxHintSpread);
      return this;
    }

    /** Sets the shortest hint; see {@link ReconnectPolicy.Builder#hintMinimum}. */
    public Builder hintMinimum(Duration hintMinimum) {
      policy.hintMinimum(hintMinimum);
      return this;
    }

    /**
     * Sets the scheduler (default: the shared {@code ddpkit-reconnect} thread). The ticker is not
     * taken from it: with a {@link VirtualScheduler}, set it as the {@link #ticker(Ticker)} too.
     */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets the ticker the time of the next attempt is read from (default {@link
     * Ticker#systemTicker()}); it must agree with the scheduler.
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Sets the source of uniform samples in {@code [0, 1)} (seed it for reproducible runs). */
    public Builder random(DoubleSupplier random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** Sets what to run before the immediate retry after a 4401 close (fetch new credentials). */
    public Builder credentialsRefresher(Runnable refresher) {
      this.credentialsRefresher = Objects.requireNonNull(refresher, "credentialsRefresher");
      return this;
    }

    /**
     * Adds a listener, called for every change from the first on; each call adds one more (more
     * can be added later with {@link ReconnectionManager#addListener}).
     */
    public Builder listener(ReconnectListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /** Names the manager in logs and {@code toString()}. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Returns a new manager in state {@link State#IDLE}. */
    public ReconnectionManager build() {
      return new ReconnectionManager(this);
    }
  }
}
