package dev.ddpkit.reconnect;

import dev.ddpkit.reconnect.ReconnectionManager.State;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of a {@link ReconnectionManager} (whose class comment gives its rules): the
 * state and the counters under one lock, the transitions, and the timers. It is the only writer of
 * that state: how a close is taken is decided by {@link CloseHandling} as an immutable {@link
 * NextStep}, which {@link #applyLocked} carries out. What it decides to do outside the lock goes
 * through an {@link DeferredActions}.
 */
final class ManagerCore {
  private static final Logger log = LoggerFactory.getLogger(ReconnectionManager.class);

  private final ReconnectionManager owner;
  private final Duration stableAfter;
  private final Ticker ticker;
  private final Runnable credentialsRefresher;
  private final String name;
  private final StatusFeed feed;

  private final Object lock = new Object();
  // Everything below is guarded by lock.
  private final DeferredActions deferred;
  private final SingleTimer timer;
  private final CloseHandling closes;
  private Connector connector;
  private Attempt current;
  /** The state, a connection that stayed up told apart ({@link Phase#STABLE}): its one field. */
  private Phase phase = Phase.IDLE;
  private int attempt;
  private Duration delay = Duration.ZERO;
  private long nextAttemptAt;
  private int lastCloseCode;
  private String reason = "";
  private final Holds holds = new Holds();
  private boolean authRefreshUsed;
  private volatile ReconnectStatus snapshot;

  ManagerCore(ReconnectionManager owner, ReconnectPolicy policy, ReconnectionManager.Builder b,
      Ticker ticker) {
    this.owner = owner;
    this.stableAfter = policy.stableAfter();
    this.ticker = ticker;
    this.credentialsRefresher = b.credentialsRefresher;
    this.name = b.name;
    this.feed = new StatusFeed(b.listeners, b.name);
    this.deferred = new DeferredActions(lock, b.scheduler, b.executor);
    this.timer = new SingleTimer(b.scheduler);
    this.closes = new CloseHandling(policy, new RetryTiming(policy, b.random, b.name), b.name);
    this.snapshot = snapshotLocked();
  }

  String name() {
    return name;
  }

  ReconnectStatus status() {
    return snapshot;
  }

  Cancellable addListener(ReconnectListener listener) {
    return feed.add(listener);
  }

  /** {@link ReconnectionManager#start}. */
  void start(Connector connector) {
    synchronized (lock) {
      if (state() != State.IDLE && state() != State.STOPPED) {
        throw new IllegalStateException("already started: " + state());
      }
      this.connector = connector;
      attempt = 0;
      delay = Duration.ZERO;
      nextAttemptAt = 0;
      holds.noAppointment();
      lastCloseCode = 0;
      reason = "";
      authRefreshUsed = false;
      if (isHeldLocked()) {
        moveLocked(State.HELD);
      } else {
        dialLocked();
      }
    }
    deferred.drain();
  }

  /** {@link Attempt#opened()}: the connection of attempt {@code a} is open. */
  void opened(Attempt a) {
    synchronized (lock) {
      if (a != current) {
        log.debug("{}: opened() of superseded {} ignored", name, a);
        return;
      }
      if (state() != State.CONNECTING) {
        log.debug("{}: opened() ignored in state {}", name, state());
        return;
      }
      reason = "";
      timer.schedule(stableAfter, this::onStable);
      moveLocked(State.CONNECTED);
    }
    deferred.drain();
  }

  /**
   * {@link Attempt#closed(int, String)}: the connection of attempt {@code a} closed. A broken
   * {@link Backoff} is thrown to the reporter if {@code throwFault}, else only in the STOPPED
   * status's reason.
   */
  void closed(Attempt a, int code, String reason, boolean throwFault) {
    IllegalStateException fault;
    synchronized (lock) {
      if (a != current) {
        log.debug("{}: closed({}) of superseded {} ignored", name, code, a);
        return;
      }
      fault = closedLocked(code, reason);
    }
    deferred.drain();
    if (fault != null && throwFault) {
      throw fault;
    }
  }

  /** {@link Attempt#isCurrent()}. */
  boolean isCurrent(Attempt a) {
    synchronized (lock) {
      return a == current;
    }
  }

  /** {@link ReconnectionManager#networkAvailable()}. */
  void networkAvailable() {
    synchronized (lock) {
      flagChangedLocked(holds.networkLost(false), "network available");
    }
    deferred.drain();
  }

  /** {@link ReconnectionManager#networkLost()}. */
  void networkLost() {
    synchronized (lock) {
      flagChangedLocked(holds.networkLost(true), null);
    }
    deferred.drain();
  }

  /** {@link ReconnectionManager#suspend()}. */
  void suspend() {
    synchronized (lock) {
      flagChangedLocked(holds.suspended(true), null);
    }
    deferred.drain();
  }

  /** {@link ReconnectionManager#resume()}. */
  void resume() {
    synchronized (lock) {
      flagChangedLocked(holds.suspended(false), "resumed");
    }
    deferred.drain();
  }

  /** Stops for good: no more dials. The owner closes its socket itself. */
  void stop() {
    synchronized (lock) {
      if (state() == State.STOPPED) {
        return;
      }
      timer.cancel();
      current = null;
      reason = "stopped by client";
      moveLocked(State.STOPPED);
    }
    deferred.drain();
  }

  // ---- transitions (all under lock) ----

  /**
   * Takes a close of the current attempt: {@link CloseHandling} decides, this applies. Returns the
   * failure of a broken {@link Backoff} (the manager has then stopped with it as its reason) for
   * the reporter to throw, or null.
   */
  private IllegalStateException closedLocked(int code, String why) {
    if (state() != State.CONNECTING && state() != State.CONNECTED) {
      log.debug("{}: closed({}) ignored in state {}", name, code, state());
      return null;
    }
    timer.cancel();
    CloseHandling.Outcome o =
        closes.decide(attempt, phase == Phase.STABLE, authRefreshUsed, code, why);
    attempt = o.attempt();
    authRefreshUsed = o.authRefreshUsed();
    lastCloseCode = code;
    reason = o.reason();
    applyLocked(o.next());
    return o.fault();
  }

  /** Carries out a step: the one place a decision becomes a state. */
  private void applyLocked(NextStep step) {
    if (step instanceof NextStep.Stop) {
      moveLocked(State.STOPPED);
    } else if (step instanceof NextStep.DialNow dial) {
      if (dial.refreshCredentials()) {
        deferred.add(this::refreshCredentials);
      }
      delay = Duration.ZERO;
      if (isHeldLocked()) {
        moveLocked(State.HELD);
      } else {
        dialLocked();
      }
    } else if (step instanceof NextStep.Wait wait) {
      if (wait.refreshCredentials()) {
        deferred.add(this::refreshCredentials);
      }
      if (wait.appointment()) {
        waitForAppointmentLocked(wait.delay());
      } else {
        waitLocked(wait.delay());
      }
    } else {
      throw new AssertionError("Unexpected step: " + step);
    }
  }

  /**
   * Waits {@code d} for the server's appointment (or holds until then, if the network is down or
   * the app suspended): {@link #networkAvailable()} and {@link #resume()} keep it.
   */
  private void waitForAppointmentLocked(Duration d) {
    holds.appointment(VirtualScheduler.plusSaturated(ticker.read(), d));
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
    timer.schedule(d, this::onTimer);
    moveLocked(State.WAITING);
  }

  /**
   * Dials now if waiting or held and nothing holds any more, unless the wait is for a server's
   * appointment still to come: then a held manager waits for it again, a waiting one keeps its
   * timer. Returns whether the state changed (and so was announced).
   */
  private boolean kickLocked(String why) {
    if (isHeldLocked() || (state() != State.WAITING && state() != State.HELD)) {
      return false;
    }
    long left = holds.appointmentLeft(ticker.read());
    if (left > 0) {
      log.debug("{}: {}, keeping the server's appointment in {} ms (attempt {})", name, why,
          TimeUnit.NANOSECONDS.toMillis(left), attempt);
      if (state() == State.WAITING) {
        return false;
      }
      nextAttemptAt = holds.appointmentAt();
      timer.schedule(Duration.ofNanos(left), this::onTimer);
      moveLocked(State.WAITING);
      return true;
    }
    log.debug("{}: {}, dialing now (attempt {})", name, why, attempt);
    dialLocked();
    return true;
  }

  /** Moves a waiting manager to HELD, dropping its timer; returns whether it moved. */
  private boolean holdLocked() {
    if (state() != State.WAITING) {
      return false;
    }
    timer.cancel();
    moveLocked(State.HELD);
    return true;
  }

  /**
   * After a network or suspended flag was set: dial if {@code kick} says why and nothing holds any
   * more, else hold if it now holds; if neither moved the state but the flag changed, publish it.
   */
  private void flagChangedLocked(boolean changed, String kick) {
    boolean moved = kick != null ? kickLocked(kick) : holdLocked();
    if (!moved && changed) {
      announceFlagsLocked();
    }
  }

  /**
   * The network or suspended flag changed with no change of state: publish it, so that a status
   * line can show "offline" while connected or held. Before start and after stop only the
   * snapshot is refreshed, with no event.
   */
  private void announceFlagsLocked() {
    if (state() == State.IDLE || state() == State.STOPPED) {
      snapshot = snapshotLocked();
    } else {
      publishLocked();
    }
  }

  private void dialLocked() {
    timer.cancel();
    holds.noAppointment();
    Attempt a = new Attempt(owner, attempt);
    current = a;
    moveLocked(State.CONNECTING);
    Connector c = connector;
    deferred.add(() -> dial(c, a));
  }

  /**
   * Moves to {@code next} and publishes it (listeners see a move to the same state too: a new
   * attempt while CONNECTING). A move to CONNECTED is to a connection not yet stable.
   */
  private void moveLocked(State next) {
    phase = Phase.of(next);
    if (next == State.STOPPED) {
      current = null; // every report on an attempt made so far is now a no-op
    }
    publishLocked();
  }

  /** Publishes the current state and counters, as they are now, to the listeners. */
  private void publishLocked() {
    ReconnectStatus s = snapshotLocked();
    snapshot = s;
    deferred.add(() -> feed.publish(s));
  }

  private ReconnectStatus snapshotLocked() {
    return new ReconnectStatus(
        state(), attempt, delay, nextAttemptAt, lastCloseCode, reason, holds.networkLost(),
        holds.suspended());
  }

  private State state() {
    return phase.state;
  }

  /**
   * {@link State} with CONNECTED's two halves apart: a connection up for less than {@code
   * stableAfter} (a close backs off from the counter as it is), and one that stayed (the counters
   * were reset then, and a close starts the curve afresh).
   */
  private enum Phase {
    IDLE(State.IDLE),
    CONNECTING(State.CONNECTING),
    CONNECTED(State.CONNECTED),
    STABLE(State.CONNECTED),
    WAITING(State.WAITING),
    HELD(State.HELD),
    STOPPED(State.STOPPED);

    final State state;

    Phase(State state) {
      this.state = state;
    }

    /** The phase a move to {@code s} enters (CONNECTED: not stable yet). */
    static Phase of(State s) {
      return switch (s) {
        case IDLE -> IDLE;
        case CONNECTING -> CONNECTING;
        case CONNECTED -> CONNECTED;
        case WAITING -> WAITING;
        case HELD -> HELD;
        case STOPPED -> STOPPED;
      };
    }
  }

  private boolean isHeldLocked() {
    return holds.held();
  }

  // ---- timer callbacks and outside-the-lock actions ----

  private void onTimer(long gen) {
    synchronized (lock) {
      // A timer that lost a race with a cancel must not dial: the generation tells.
      if (!timer.isCurrent(gen) || state() != State.WAITING) {
        return;
      }
      timer.fired();
      dialLocked();
    }
    deferred.drain();
  }

  private void onStable(long gen) {
    synchronized (lock) {
      if (!timer.isCurrent(gen) || state() != State.CONNECTED) {
        return;
      }
      timer.fired();
      phase = Phase.STABLE; // still CONNECTED to the listeners: no move, a publish
      attempt = 0;
      authRefreshUsed = false;
      delay = Duration.ZERO;
      publishLocked(); // still CONNECTED, with the counters reset
    }
    deferred.drain();
  }

  private void dial(Connector c, Attempt a) {
    synchronized (lock) {
      // Superseded between being queued and now (a listener called stop(), another thread
      // reported a close): calling the connector would open a socket whose every report is
      // then ignored.
      if (a != current || state() != State.CONNECTING) {
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
        if (a == current && state() == State.CONNECTING) {
          // A broken backoff has stopped the manager and logged it; nobody to throw it to here.
          closedLocked(
              CloseCodes.ABNORMAL, "connect failed: " + e.getClass().getSimpleName());
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
}
