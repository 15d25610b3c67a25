package dev.ddpkit.reconnect.sim;

import java.time.Duration;
import java.util.Objects;

/**
 * One herd scenario: {@code clients} connected clients are dropped at t=0 by a server that is down
 * for {@code downtime}, then admits {@code capacity} connections per second (a token bucket of
 * depth {@code burst}, empty when the server comes back) and closes the others with 1013.
 *
 * <p>Build with {@link #builder()}; the record constructor validates too.
 *
 * @param clients how many clients, 1 or more
 * @param capacity connections the server admits per second once up, 1 or more
 * @param burst depth of the admission token bucket in connections, 1 or more (default: capacity)
 * @param downtime how long the server refuses every dial after the drop (1006)
 * @param latency the round trip of one dial, a whole number of milliseconds: the server sees it and
 *     the client learns the verdict this long after the dial
 * @param policy the backoff every client uses
 * @param hints whether a 1013 carries {@code retry-after=<ms>}: the next free admission slot, which
 *     the server reserves for the client
 * @param planned whether the drop is a planned restart: every connection is closed with 1012 and
 *     its own appointment, the downtime plus its place in the queue at C/s (else the connections
 *     are cut, 1006, with no word)
 * @param warmUp whether the server listens through the downtime, warming up: every dial before it
 *     is ready is turned away with 1013 (and, with hints, an appointment after the downtime)
 *     instead of being refused (1006); see {@code Admission.Builder#warmUp}
 * @param seed the master seed; each client gets its own stream split from it
 * @param bucket the width of one histogram bucket, a whole number of milliseconds
 * @param horizon the virtual time after the drop at which the run stops even if clients are still
 *     out
 */
public record HerdConfig(
    int clients,
    int capacity,
    int burst,
    Duration downtime,
    Duration latency,
    HerdPolicy policy,
    boolean hints,
    boolean planned,
    boolean warmUp,
    long seed,
    Duration bucket,
    Duration horizon) {

  /** Validates every component. */
  public HerdConfig {
    checkPositive("clients", clients);
    checkPositive("capacity", capacity);
    checkPositive("burst", burst);
    checkNonNegative("downtime", downtime);
    checkNonNegative("latency", latency);
    checkNoSubMillis("latency", latency);
    Objects.requireNonNull(policy, "policy");
    checkWholeMillis("bucket", bucket);
    checkWholeMillis("horizon", horizon);
    if (planned && warmUp) {
      throw new IllegalStateException("planned and warmUp are two ways the server comes back:"
          + " choose one (a planned restart has already given every client its appointment)");
    }
    if (horizon.compareTo(downtime) <= 0) {
      throw new IllegalStateException(
          "horizon (" + horizon.toMillis() + " ms) must be longer than downtime ("
              + downtime.toMillis() + " ms)");
    }
  }

  /** Returns a builder with the defaults of the {@code herd} command. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder that starts from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.clients = clients;
    b.capacity = capacity;
    b.burst = burst;
    b.downtime = downtime;
    b.latency = latency;
    b.policy = policy;
    b.hints = hints;
    b.planned = planned;
    b.warmUp = warmUp;
    b.seed = seed;
    b.bucket = bucket;
    b.horizon = horizon;
    return b;
  }

  /** Returns the same scenario with another policy. */
  public HerdConfig withPolicy(HerdPolicy other) {
    return toBuilder().policy(other).build();
  }

  /**
   * Returns the physical limit in milliseconds after the drop: with the bucket empty when the
   * server comes back, the last of N clients cannot be admitted before {@code D + N/C}.
   */
  public long limitMillis() {
    return downtime.toMillis() + ceilDiv((long) clients * 1000, capacity);
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  private static void checkPositive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be 1 or more: " + value);
    }
  }

  private static void checkNonNegative(String name, Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + d);
    }
  }

  /** The simulation's clock ticks in milliseconds. */
  private static void checkNoSubMillis(String name, Duration d) {
    if (d.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(name + " must be a whole number of ms: " + d);
    }
  }

  private static void checkWholeMillis(String name, Duration d) {
    if (d == null || d.toMillis() < 1 || d.toNanos() % 1_000_000 != 0) {
      throw new IllegalArgumentException(name + " must be a positive whole number of ms: " + d);
    }
  }

  /** Builds a {@link HerdConfig}; every default is set here and each setter validates. */
  public static final class Builder {
    private int clients = 10_000;
    private int capacity = 500;
    private int burst; // 0: same as capacity
    private Duration downtime = Duration.ofSeconds(5);
    private Duration latency = Duration.ofMillis(1);
    private HerdPolicy policy = HerdPolicy.FULL_JITTER;
    private boolean hints;
    private boolean planned;
    private boolean warmUp;
    private long seed = 42;
    private Duration bucket = Duration.ofSeconds(1);
    private Duration horizon = Duration.ofHours(1);

    private Builder() {}

    /** Sets the number of clients (default 10,000). */
    public Builder clients(int clients) {
      checkPositive("clients", clients);
      this.clients = clients;
      return this;
    }

    /** Sets the admissions per second once the server is up (default 500). */
    public Builder capacity(int capacity) {
      checkPositive("capacity", capacity);
      this.capacity = capacity;
      return this;
    }

    /** Sets the depth of the admission bucket (default: one second of capacity). */
    public Builder burst(int burst) {
      checkPositive("burst", burst);
      this.burst = burst;
      return this;
    }

    /** Sets how long the server is down after the drop (default 5 s). */
    public Builder downtime(Duration downtime) {
      checkNonNegative("downtime", downtime);
      this.downtime = downtime;
      return this;
    }

    /** Sets the round trip of one dial, a whole number of ms (default 1 ms). */
    public Builder latency(Duration latency) {
      checkNonNegative("latency", latency);
      checkNoSubMillis("latency", latency);
      this.latency = latency;
      return this;
    }

    /** Sets the backoff policy (default full-jitter). */
    public Builder policy(HerdPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Sets whether 1013 closes carry a {@code retry-after} hint (default false). */
    public Builder hints(boolean hints) {
      this.hints = hints;
      return this;
    }

    /**
     * Sets whether the drop is a planned restart, every connection closed with 1012 and its own
     * appointment (default false: cut with 1006).
     */
    public Builder planned(boolean planned) {
      this.planned = planned;
      return this;
    }

    /**
     * Sets whether the server listens through the downtime and turns every dial away with 1013
     * until it is ready (default false: nothing listens, dials are refused).
     */
    public Builder warmUp(boolean warmUp) {
      this.warmUp = warmUp;
      return this;
    }

    /** Sets the master seed (default 42). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Sets the histogram bucket width, whole milliseconds (default 1 s). */
    public Builder bucket(Duration bucket) {
      checkWholeMillis("bucket", bucket);
      this.bucket = bucket;
      return this;
    }

    /** Sets the virtual time after which the run stops (default 1 h). */
    public Builder horizon(Duration horizon) {
      checkWholeMillis("horizon", horizon);
      this.horizon = horizon;
      return this;
    }

    /**
     * Returns the configuration.
     *
     * @throws IllegalStateException if the horizon does not reach past the downtime
     */
    public HerdConfig build() {
      return new HerdConfig(
          clients, capacity, burst == 0 ? capacity : burst, downtime, latency, policy, hints,
          planned, warmUp, seed, bucket, horizon);
    }
  }
}
