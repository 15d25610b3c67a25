package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.function.DoubleSupplier;

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
 * while another thread is delivering returns at once and its events follow in order. With an
 * {@linkplain Builder#executor executor} they run there instead, handed over before the report
 * returns. A queued
 * dial that was overtaken (by a stop, by a close) before it ran is dropped, not made.
 */
public final class ReconnectionManager {
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
  private final Scheduler scheduler;
  private final Ticker ticker;
  private final ManagerCore core;

  private ReconnectionManager(Builder b) {
    this.policy = b.policy.build();
    this.scheduler = b.scheduler;
    this.ticker = b.ticker();
    this.core = new ManagerCore(this, policy, b, ticker);
  }

  /**
   * Returns a builder with {@link ReconnectPolicy#defaults()} (RFC curve, DDP close profile, stable
   * after 10 s) and the system scheduler.
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
    return policy.backoff();
  }

  /** Returns the close policy this manager uses. */
  public ClosePolicy closePolicy() {
    return policy.closePolicy();
  }

  /** Returns the scheduler this manager runs its timers on and reads its time from. */
  public Scheduler scheduler() {
    return scheduler;
  }

  /**
   * Returns the ticker this manager reads time from: its scheduler's {@link Scheduler#nanoTime()}
   * (the scheduler itself when it is a {@link Ticker}, as a {@link VirtualScheduler} is).
   */
  public Ticker ticker() {
    return ticker;
  }

  /** Returns the current snapshot. */
  public ReconnectStatus status() {
    return core.status();
  }

  /** Adds a listener; it is called for every later change. Returns a handle that removes it. */
  public Cancellable addListener(ReconnectListener listener) {
    return core.addListener(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Binds the connector and dials at once (or holds, if the network is lost or the app suspended).
   * May be called again after the manager stopped, which starts afresh with the counter at 0.
   *
   * @throws IllegalStateException if the manager is running
   */
  public void start(Connector connector) {
    core.start(Objects.requireNonNull(connector, "connector"));
  }

  /** {@link Attempt#opened()}: the connection of attempt {@code a} is open. */
  void opened(Attempt a) {
    core.opened(a);
  }

  /** {@link Attempt#closed(int, String)}: the connection of attempt {@code a} closed. */
  void closed(Attempt a, int code, String reason, boolean throwFault) {
    core.closed(a, code, reason, throwFault);
  }

  /** {@link Attempt#isCurrent()}. */
  boolean isCurrent(Attempt a) {
    return core.isCurrent(a);
  }

  /**
   * Reports that the network is (back) up. If the manager is waiting it dials at once, keeping the
   * attempt counter; if it was holding for the network (and is not suspended) it dials at once.
   * Otherwise only the status's {@code networkLost} flag changes. A wait for a server's {@code
   * retry-after} appointment is kept: the server said when it has room, and a network change on
   * this side does not give it more (a hold for one that has not come yet waits for it again).
   */
  public void networkAvailable() {
    core.networkAvailable();
  }

  /** Reports that the network is gone: no dial until {@link #networkAvailable()}. */
  public void networkLost() {
    core.networkLost();
  }

  /** The app went to the background: no dial until {@link #resume()}. */
  public void suspend() {
    core.suspend();
  }

  /**
   * The app came back: if the connection is down (and the network up), dial at once, or at the
   * server's appointment if one is still to come (as for {@link #networkAvailable()}).
   */
  public void resume() {
    core.resume();
  }

  /** Stops for good: no more dials. The owner closes its socket itself. */
  public void stop() {
    core.stop();
  }

  @Override
  public String toString() {
    ReconnectStatus s = core.status();
    return "ReconnectionManager{" + core.name() + " " + s.state() + " attempt=" + s.attempt() + "}";
  }

  /**
   * Builds a {@link ReconnectionManager}: a {@link ReconnectPolicy} (whose builder holds the
   * defaults and validates them) plus this manager's own time source, listeners and name.
   */
  public static final class Builder {
    ReconnectPolicy.Builder policy = ReconnectPolicy.builder();
    Scheduler scheduler = Scheduler.systemScheduler();
    Ticker ticker; // null: the scheduler's nanoTime
    DoubleSupplier random; // null: a SplittableRandom of the manager's own
    Runnable credentialsRefresher = () -> {};
    Executor executor; // null: on the reporting or the scheduler's thread
    final List<ReconnectListener> listeners = new ArrayList<>();
    String name = "reconnect";

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
     * Sets the one time source (default: the shared {@code ddpkit-reconnect} thread on the
     * system's clocks): the timers run on it and the time of the next attempt is read from its
     * {@link Scheduler#nanoTime()}. A {@link VirtualScheduler} puts the whole manager on virtual
     * time.
     */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets a ticker to read the time from instead of the scheduler's {@link Scheduler#nanoTime()};
     * it must agree with the scheduler.
     *
     * @deprecated the scheduler is the one time source: pass a scheduler whose {@link
     *     Scheduler#nanoTime()} reads this ticker, or a {@link VirtualScheduler}
     */
    @Deprecated
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * Sets the one source of randomness: every jitter of the backoff and of a server's
     * appointment is drawn from its {@link Random#nextDouble()}, on the manager's lock, in the
     * order of the decisions. Seed it ({@code new Random(42)}) for runs that repeat; give each
     * manager its own. Default: a {@link SplittableRandom} of the manager's own, seeded
     * differently for each manager.
     */
    public Builder random(Random random) {
      Objects.requireNonNull(random, "random");
      this.random = () -> random.nextDouble();
      return this;
    }

    /**
     * Sets the source of uniform samples in {@code [0, 1)}.
     *
     * @deprecated use {@link #random(Random)}, the one randomness option of every builder
     */
    @Deprecated
    public Builder random(DoubleSupplier random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * Runs the connector, the listeners and the credentials refresher on {@code executor} (an
     * owner's event loop), each change's calls handed to it in the order of the changes before the
     * call that made the change returns. So an owner whose every report and command comes from
     * that loop receives each status there in order with its own work: a status of a change it
     * made arrives after the task that made it, and before any task that task queued. It is meant
     * for an event loop, which queues what is submitted while one of its tasks runs: a plain
     * {@code Runnable::run} would call a listener that calls the manager inside itself. Default:
     * none, the calls run on whichever thread is delivering them (see the class comment).
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
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

    /** The ticker time is read from: the deprecated {@link #ticker} if set, else the scheduler. */
    Ticker ticker() {
      if (ticker != null) {
        return ticker;
      }
      Scheduler s = scheduler;
      return s instanceof Ticker t ? t : s::nanoTime;
    }

    /** Returns a new manager in state {@link State#IDLE}. */
    public ReconnectionManager build() {
      return new ReconnectionManager(this);
    }
  }
}
