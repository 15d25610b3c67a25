package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.function.DoubleSupplier;

/**
 * How to reconnect, as an immutable value: the backoff curve, the close policy, how long a
 * connection must stay up to count as stable, when to give up, and how to keep a server's {@code
 * retry-after} appointments. Every default lives here, in {@link Builder}.
 *
 * <p>A policy holds no state and can be shared by any number of clients; each turns it into its
 * own {@link ReconnectionManager} on its own time source ({@link #newManager(Scheduler, Random)},
 * or {@link ReconnectionManager.Builder#policy(ReconnectPolicy)}). Sharing one
 * stateful manager between two clients was the trap this replaces.
 */
public final class ReconnectPolicy {
  // Immutable: one instance for every builder (a herd builds 100,000 managers).
  private static final ClosePolicy DDP = ClosePolicy.ddp();
  private static final ReconnectPolicy DEFAULTS = new Builder().build();

  private final Backoff backoff;
  private final ClosePolicy closePolicy;
  private final Duration stableAfter;
  private final int maxAttempts;
  private final double hintSpread;
  private final Duration maxHintSpread;
  private final Duration hintMinimum;

  private ReconnectPolicy(Builder b) {
    this.backoff = b.backoff;
    this.closePolicy = b.closePolicy;
    this.stableAfter = b.stableAfter;
    this.maxAttempts = b.maxAttempts;
    this.hintSpread = b.hintSpread;
    this.maxHintSpread = b.maxHintSpread;
    this.hintMinimum = b.hintMinimum;
  }

  /**
   * Returns the defaults: the RFC curve, the DDP close profile, stable after 10 s, never give up,
   * appointments spread by 20 % (at most 250 ms), no shorter than 100 ms.
   */
  public static ReconnectPolicy defaults() {
    return DEFAULTS;
  }

  /** Returns a builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder starting from this policy. */
  public Builder toBuilder() {
    // Through the setters: every value passed them when this policy was built.
    return new Builder()
        .backoff(backoff)
        .closePolicy(closePolicy)
        .stableAfter(stableAfter)
        .maxAttempts(maxAttempts)
        .hintSpread(hintSpread)
        .maxHintSpread(maxHintSpread)
        .hintMinimum(hintMinimum);
  }

  /**
   * Returns a new manager with this policy on {@code scheduler}, its one time source; the jitter
   * comes from a {@link java.util.SplittableRandom} of the manager's own. Name, listeners and a
   * credentials refresher can be set with {@link ReconnectionManager.Builder#policy} instead.
   */
  public ReconnectionManager newManager(Scheduler scheduler) {
    return ReconnectionManager.builder().policy(this).scheduler(scheduler).build();
  }

  /**
   * Returns a new manager with this policy, as {@link #newManager(Scheduler)}, drawing its jitter
   * from {@code random} (seed it for reproducible runs).
   */
  public ReconnectionManager newManager(Scheduler scheduler, Random random) {
    return ReconnectionManager.builder().policy(this).scheduler(scheduler).random(random).build();
  }

  /**
   * Returns a new manager with this policy on the given scheduler, reading time from the ticker.
   *
   * @deprecated the scheduler is the one time source: use {@link #newManager(Scheduler)}
   */
  @Deprecated
  public ReconnectionManager newManager(Scheduler scheduler, Ticker ticker) {
    return ReconnectionManager.builder().policy(this).scheduler(scheduler).ticker(ticker).build();
  }

  /**
   * Returns a new manager with this policy, as {@link #newManager(Scheduler, Ticker)}, drawing its
   * jitter from {@code random}.
   *
   * @deprecated use {@link #newManager(Scheduler, Random)}: one time source, one randomness type
   */
  @Deprecated
  public ReconnectionManager newManager(Scheduler scheduler, Ticker ticker, DoubleSupplier random) {
    return ReconnectionManager.builder()
        .policy(this)
        .scheduler(scheduler)
        .ticker(ticker)
        .random(random)
        .build();
  }

  /** Returns the backoff curve. */
  public Backoff backoff() {
    return backoff;
  }

  /** Returns the close policy. */
  public ClosePolicy closePolicy() {
    return closePolicy;
  }

  /** Returns how long a connection must stay up before the attempt counter resets. */
  public Duration stableAfter() {
    return stableAfter;
  }

  /** Returns the number of retries after which the manager gives up, 0 for never. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Returns how far past an appointment (or the 1013 floor) a dial may come, as a fraction. */
  public double hintSpread() {
    return hintSpread;
  }

  /** Returns the most a dial may come after a server's appointment. */
  public Duration maxHintSpread() {
    return maxHintSpread;
  }

  /** Returns the shortest appointment honoured. */
  public Duration hintMinimum() {
    return hintMinimum;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReconnectPolicy p
        && backoff.equals(p.backoff)
        && closePolicy.equals(p.closePolicy)
        && stableAfter.equals(p.stableAfter)
        && maxAttempts == p.maxAttempts
        && Double.compare(hintSpread, p.hintSpread) == 0
        && maxHintSpread.equals(p.maxHintSpread)
        && hintMinimum.equals(p.hintMinimum);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        backoff, closePolicy, stableAfter, maxAttempts, hintSpread, maxHintSpread, hintMinimum);
  }

  @Override
  public String toString() {
    return "ReconnectPolicy{" + backoff + ", " + closePolicy + ", stableAfter="
        + stableAfter.toMillis() + "ms, maxAttempts=" + maxAttempts + ", hintSpread=" + hintSpread
        + ", maxHintSpread=" + maxHintSpread.toMillis() + "ms, hintMinimum="
        + hintMinimum.toMillis() + "ms}";
  }

  /** Builds a {@link ReconnectPolicy}: every default is set here and validated at its setter. */
  public static final class Builder {
    private Backoff backoff = Backoff.rfc();
    private ClosePolicy closePolicy = DDP;
    private Duration stableAfter = Duration.ofSeconds(10);
    private int maxAttempts;
    private double hintSpread = 0.2;
    private Duration maxHintSpread = Duration.ofMillis(250);
    private Duration hintMinimum = Duration.ofMillis(100);

    private Builder() {}

    /**
     * Sets the backoff curve (default {@link Backoff#rfc()}). It is tried at once on the first
     * attempts; a backoff that fails later stops the manager and the report that hit it throws.
     *
     * @throws IllegalArgumentException if the backoff throws or returns null or a negative delay
     *     for one of the first attempts
     */
    public Builder backoff(Backoff backoff) {
      Objects.requireNonNull(backoff, "backoff");
      Backoffs.probe("backoff", backoff);
      this.backoff = backoff;
      return this;
    }

    /** Sets the close policy (default {@link ClosePolicy#ddp()}). */
    public Builder closePolicy(ClosePolicy closePolicy) {
      this.closePolicy = Objects.requireNonNull(closePolicy, "closePolicy");
      return this;
    }

    /**
     * Sets how long a connection must stay up before the attempt counter resets (default 10 s).
     */
    public Builder stableAfter(Duration stableAfter) {
      Backoffs.checkNonNegative("stableAfter", stableAfter);
      this.stableAfter = stableAfter;
      return this;
    }

    /**
     * Gives up (state {@link ReconnectionManager.State#STOPPED}, reason "gave up after N attempts") when retry number
     * {@code maxAttempts} fails too, without a stable connection in between; every retry counts,
     * including the immediate one after a 4401. 0 (the default) never gives up.
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 0) {
        throw new IllegalArgumentException("maxAttempts must not be negative: " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Sets how far past a server's {@code retry-after} appointment, or past the 1013 floor when
     * there is no hint, a dial may come, as a fraction of it (default 0.2: a 1,000 ms hint dials
     * between 1,000 and 1,200 ms). After an appointment the spread is at most {@link
     * #maxHintSpread(Duration)}.
     */
    public Builder hintSpread(double hintSpread) {
      if (!(hintSpread >= 0 && hintSpread <= 1)) {
        throw new IllegalArgumentException("hintSpread must be in [0, 1]: " + hintSpread);
      }
      this.hintSpread = hintSpread;
      return this;
    }

    /**
     * Sets the most a dial may come after a server's {@code retry-after} appointment (default 250
     * ms): the spread is {@code hintSpread} of the hint but no more than this, so that a client
     * given a 30 s appointment is not 6 s late for a slot the server is holding for it.
     */
    public Builder maxHintSpread(Duration maxHintSpread) {
      Backoffs.checkNonNegative("maxHintSpread", maxHintSpread);
      this.maxHintSpread = maxHintSpread;
      return this;
    }

    /**
     * Sets the shortest appointment honoured (default 100 ms): a smaller {@code retry-after} is
     * raised to it, so a broken or hostile server answering every dial with {@code
     * retry-after=0} gets at most one dial per {@code hintMinimum}. At most {@link
     * ClosePolicy#MAX_RETRY_AFTER}.
     */
    public Builder hintMinimum(Duration hintMinimum) {
      Backoffs.checkNonNegative("hintMinimum", hintMinimum);
      if (hintMinimum.compareTo(ClosePolicy.MAX_RETRY_AFTER) > 0) {
        throw new IllegalArgumentException(
            "hintMinimum must be at most " + ClosePolicy.MAX_RETRY_AFTER + ": " + hintMinimum);
      }
      this.hintMinimum = hintMinimum;
      return this;
    }

    /** Returns the policy. */
    public ReconnectPolicy build() {
      return new ReconnectPolicy(this);
    }
  }
}
