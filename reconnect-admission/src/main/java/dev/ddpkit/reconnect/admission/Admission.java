package dev.ddpkit.reconnect.admission;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Admission control that keeps its appointments: a token bucket of {@code capacity} connections
 * per second and depth {@code burst}, empty when the server comes up (when it is built). A dial
 * that finds a token is admitted; a dial past the bucket is rejected with the next free slot, and
 * that slot is <em>reserved</em>: nobody else's dial can have its token before it. A client that
 * comes back in its slot (no earlier than the slot, no later than the {@linkplain
 * Builder#claimWindow claim window} after it) is admitted on the reservation; a reservation not
 * claimed in time is released, and its token goes back to the bucket.
 *
 * <pre>{@code
 * Admission admission = Admission.builder().capacity(200).build();   // when the server starts
 * // for each new connection, on any thread:
 * Admission.Verdict v = admission.admit();
 * if (!v.admitted()) {
 *   socket.close(1013, v.closeReason("try again later"));  // "try again later; retry-after=35"
 * } else if (v.holdMillis() > 0) {
 *   timer.schedule(() -> serve(socket), v.holdMillis(), MILLISECONDS); // keep its frames till then
 * } else {
 *   serve(socket);
 * }
 * }</pre>
 *
 * <p><b>Whose reservation.</b> A returning client is not identified: a dial that arrives while a
 * reservation is due claims the earliest one. The hint stays plain {@code retry-after=<ms>}, which
 * every client already parses, and no client has to send anything back. The price is fairness,
 * not throughput: a newcomer can take a due slot, and the client it belonged to then finds none
 * and is given a later one; the server still admits one client per slot.
 *
 * <p><b>The bound.</b> Reserved tokens that have come due but are not yet claimed stay in the
 * bucket and count toward its depth: free tokens overflow first, a promise never does. So at most
 * {@code max(burst, capacity * claimWindow + 1)} tokens are ever waiting, and in any window of W
 * seconds at most that plus {@code capacity * W} dials are admitted.
 *
 * <p><b>The peak limit.</b> That is more than {@code capacity} in a second: the depth of a bucket
 * full after an idle spell, and, in a herd, the due slots whose clients are still on their way (a
 * client late by u claims a token that came due u earlier) come on top of the rate. So with
 * appointments on, an admission that would make more than {@code capacity} in the last second is
 * {@linkplain Verdict#holdMillis() held}: the dial is admitted, and the server keeps the
 * connection and starts serving it when the oldest of those admissions is a second old (whole
 * milliseconds, never before an earlier start). No more than {@code capacity} connections are
 * scheduled to start in any one second (a server whose timer runs late may shift a start by that
 * lateness), and nobody dials again for it. In a herd a hold is a few milliseconds. The longest
 * comes after an idle spell, when the bucket has just let its depth in and the tokens waiting
 * (at most {@code max(burst, capacity * claimWindow + 1)}, see the bound) start at {@code
 * capacity} a second: up to that many over {@code capacity} seconds, about a second with the
 * defaults. Keep it well under the clients' connect timeout (10 s by default in ddp-client): a
 * client that gives up while held dials again.
 *
 * <p><b>Warming up.</b> A server that listens before it can serve (a process restarted at once
 * that still has to load, or a front that stays up while the servers behind it restart) is built
 * with {@link Builder#warmUp(Duration)}: until the warm-up is over nobody is admitted, and, with
 * appointments on, every dial is given a slot after it, in order, at C/s. So the clients that dial
 * while it is starting are all booked by the time it is ready, and none of them is left sleeping
 * on its own backoff curve past the moment the queue runs dry. (With appointments off nothing is
 * booked: every dial of the warm-up is told the same first slot after it.)
 *
 * <p>With {@linkplain Builder#appointments(boolean) appointments off} it is the plain token bucket:
 * a rejection reserves nothing (for a server that sends no hint, so that nobody would come back in
 * the slot) and nothing is held.
 *
 * <p>The server half of the hint protocol; the simulation's model server uses this same class, so
 * the simulation predicts the server. Thread-safe; time comes from the
 * {@linkplain Builder#ticker ticker}, nanoseconds from any fixed origin. Depends on nothing but
 * the JDK: a server takes it without the client library.
 */
public final class Admission {
  /** One token, in bucket units; the bucket gains {@code capacity} units per nanosecond. */
  private static final long TOKEN = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  private final long capacity;
  private final long burstUnits;
  private final long claimNanos;
  private final boolean appointments;
  /** Null with appointments off. */
  private final PeakLimit peakLimit;
  private final LongSupplier ticker;

  // Guarded by this.
  /** Unreserved units in the bucket as of {@code asOf}. */
  private long stored;
  /** Up to here all accrual is accounted for; past now, it is promised to reservations. */
  private long asOf;
  /** Tokens of released reservations, usable at once. */
  private long spare;
  /** Reserved slots in slot order; the first {@code due} of them have come due. */
  private long[] slots = new long[64];
  private int head;
  private int size;
  private int due;
  private long lastNow;

  private Admission(Builder b) {
    this.capacity = b.capacity;
    this.burstUnits = b.burst * TOKEN;
    this.claimNanos = b.claimWindow.toNanos();
    this.appointments = b.appointments;
    this.peakLimit = b.appointments ? new PeakLimit(b.capacity) : null;
    this.ticker = b.ticker;
    this.lastNow = ticker.getAsLong();
    this.asOf = lastNow + b.warmUp.toNanos(); // accrual starts when the warm-up is over
  }

  /** Returns a builder; {@link Builder#capacity(int)} must be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** Judges a dial arriving now. */
  public synchronized Verdict admit() {
    long now = sync();
    if (due > 0) {
      pop();
      due--;
      return start(Verdict.CLAIMED, now);
    }
    if (spare > 0) {
      spare--;
      return start(Verdict.ADMITTED, now);
    }
    if (asOf <= now && stored >= TOKEN) {
      stored -= TOKEN;
      return start(Verdict.ADMITTED, now);
    }
    long need = TOKEN - stored;
    long ticks = ceilDiv(need, capacity);
    long slot = asOf + ticks;
    if (appointments) {
      stored = ticks * capacity - need;
      asOf = slot;
      push(slot);
    }
    return Verdict.rejected(Math.max(1, ceilDiv(slot - now, MS)));
  }

  /** An admitted dial, held if the {@link PeakLimit} says so. */
  private Verdict start(Verdict admitted, long now) {
    long holdMillis = peakLimit == null ? 0 : peakLimit.holdMillis(now);
    return holdMillis == 0 ? admitted : new Verdict(admitted.outcome(), 0, holdMillis);
  }

  /**
   * The appointment of the connection in place {@code place} (1, 2, ...) when this server closes
   * every connection for a planned restart and expects to be back after {@code downtime}: the new
   * server's bucket starts empty, so the k-th client's token comes {@code k / capacity} seconds
   * after it is up. Close with 1012 and {@code closeReason("service restart")}.
   */
  public Verdict restartAppointment(Duration downtime, int place) {
    Objects.requireNonNull(downtime, "downtime");
    if (downtime.isNegative()) {
      throw new IllegalArgumentException("downtime must not be negative: " + downtime);
    }
    if (place < 1) {
      throw new IllegalArgumentException("place must be 1 or more: " + place);
    }
    long slot = downtime.toNanos() + ceilDiv(place * TOKEN, capacity);
    return Verdict.rejected(ceilDiv(slot, MS));
  }

  /** Returns how many reserved slots are waiting to be claimed (booked or due). */
  public synchronized int reservations() {
    sync();
    return size;
  }

  private long sync() {
    long now = Math.max(lastNow, ticker.getAsLong());
    lastNow = now;
    while (due < size && slot(due) <= now) {
      due++;
    }
    while (due > 0 && slot(0) + claimNanos < now) {
      pop();
      due--;
      spare++;
    }
    if (now > asOf) {
      long room = burstUnits - stored;
      // Compare before multiplying: elapsed * capacity could overflow after a long idle spell.
      long elapsed = now - asOf;
      stored = elapsed >= room / capacity + 1 ? burstUnits : stored + elapsed * capacity;
      asOf = now;
    }
    long waiting = (spare + due) * TOKEN;
    if (stored + waiting > burstUnits) {
      // Due reservations are promises: the bucket overflows its free tokens instead.
      stored = Math.max(0, burstUnits - waiting);
      spare = Math.max(0, Math.min(spare, burstUnits / TOKEN - due));
    }
    return now;
  }

  private long slot(int i) {
    return slots[(head + i) % slots.length];
  }

  private void push(long slot) {
    if (size == slots.length) {
      long[] grown = new long[slots.length * 2];
      for (int i = 0; i < size; i++) {
        grown[i] = slot(i);
      }
      slots = grown;
      head = 0;
    }
    slots[(head + size) % slots.length] = slot;
    size++;
  }

  private void pop() {
    head = (head + 1) % slots.length;
    size--;
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  @Override
  public String toString() {
    return "Admission[" + capacity + "/s, burst " + burstUnits / TOKEN + ", claim window "
        + claimNanos / MS + " ms" + (appointments ? "" : ", no appointments") + "]";
  }

  /**
   * What the server does with one dial.
   *
   * @param outcome admitted on a free token, on a reservation, or rejected
   * @param retryAfterMillis for a rejection, when to come back (at least 1 ms; with appointments,
   *     the reserved slot); 0 when admitted
   * @param holdMillis for an admission, how long the server keeps the connection before it
   *     starts serving it, under the peak limit (see the class comment; 0: at once); 0 for a
   *     rejection
   */
  public record Verdict(Outcome outcome, long retryAfterMillis, long holdMillis) {
    static final Verdict ADMITTED = new Verdict(Outcome.ADMITTED, 0);
    static final Verdict CLAIMED = new Verdict(Outcome.CLAIMED, 0);

    /** Validates the components. */
    public Verdict {
      Objects.requireNonNull(outcome, "outcome");
      if ((outcome == Outcome.REJECTED) != (retryAfterMillis > 0)) {
        throw new IllegalArgumentException(
            "retryAfterMillis must be positive exactly for a rejection: " + retryAfterMillis);
      }
      if (holdMillis < 0 || (outcome == Outcome.REJECTED && holdMillis > 0)) {
        throw new IllegalArgumentException(
            "holdMillis must be 0 for a rejection and not negative: " + holdMillis);
      }
    }

    /** A verdict with no hold. */
    public Verdict(Outcome outcome, long retryAfterMillis) {
      this(outcome, retryAfterMillis, 0);
    }

    static Verdict rejected(long retryAfterMillis) {
      return new Verdict(Outcome.REJECTED, retryAfterMillis);
    }

    /** Whether the connection may stay. */
    public boolean admitted() {
      return outcome != Outcome.REJECTED;
    }

    /**
     * The close reason that carries the appointment, {@code "<message>; retry-after=<ms>"} (the
     * format reconnection-manager's {@code ClosePolicy} parses).
     *
     * @throws IllegalStateException if the dial was admitted
     */
    public String closeReason(String message) {
      if (admitted()) {
        throw new IllegalStateException("an admitted dial is not closed");
      }
      return message + "; retry-after=" + retryAfterMillis;
    }
  }

  /** How a dial was judged. */
  public enum Outcome {
    /** Admitted on a free token of the bucket. */
    ADMITTED,
    /** Admitted on a reservation that had come due. */
    CLAIMED,
    /** Over capacity: to be closed with 1013 and {@link Verdict#closeReason(String)}. */
    REJECTED
  }

  /** Builds an {@link Admission}; every default is set here and each setter validates. */
  public static final class Builder {
    /** The most connections per second an admission can be built for. */
    public static final int MAX_CAPACITY = 1_000_000;
    /**
     * The longest warm-up: the longest {@code retry-after} a client keeps (reconnection-manager's
     * {@code ClosePolicy.MAX_RETRY_AFTER}, 10 minutes; a test holds the two equal).
     */
    public static final Duration MAX_WARM_UP = Duration.ofMinutes(10);
    /**
     * The default claim window: longer than a client's spread after an appointment ({@code
     * ReconnectionManager}'s is at most 250 ms) plus a round trip.
     */
    public static final Duration DEFAULT_CLAIM_WINDOW = Duration.ofMillis(500);

    private int capacity;
    private int burst; // 0: same as capacity
    private Duration claimWindow = DEFAULT_CLAIM_WINDOW;
    private boolean appointments = true;
    private Duration warmUp = Duration.ZERO;
    private LongSupplier ticker = System::nanoTime;

    private Builder() {}

    /** Sets the connections admitted per second, 1 to {@value #MAX_CAPACITY}; required. */
    public Builder capacity(int perSecond) {
      if (perSecond < 1 || perSecond > MAX_CAPACITY) {
        throw new IllegalArgumentException(
            "capacity must be in 1.." + MAX_CAPACITY + ": " + perSecond);
      }
      this.capacity = perSecond;
      return this;
    }

    /**
     * Sets the depth of the bucket in connections, 1 or more (default: the capacity). With
     * appointments on, a dial may be held up to about {@code burst / capacity} seconds (see the
     * peak limit above).
     */
    public Builder burst(int burst) {
      if (burst < 1) {
        throw new IllegalArgumentException("burst must be 1 or more: " + burst);
      }
      this.burst = burst;
      return this;
    }

    /**
     * Sets how long after its slot a reservation waits to be claimed before it is released
     * (default {@link #DEFAULT_CLAIM_WINDOW}). A client's spread after the hint must fit in it;
     * up to {@code capacity} times it, due slots may wait at once (see the bound above).
     */
    public Builder claimWindow(Duration window) {
      Objects.requireNonNull(window, "claimWindow");
      if (window.isNegative()) {
        throw new IllegalArgumentException("claimWindow must not be negative: " + window);
      }
      this.claimWindow = window;
      return this;
    }

    /**
     * Sets whether a rejection reserves its slot and admissions keep to the peak limit (default
     * true). Off for a server that sends no {@code retry-after} hint: then this is the plain
     * token bucket.
     */
    public Builder appointments(boolean on) {
      this.appointments = on;
      return this;
    }

    /**
     * Sets how long after it is built the admission admits nobody (default zero): a server that
     * listens while it is still starting. With appointments on, every dial before then is rejected
     * with a slot of its own after it, in order at C/s, and reserved; with them off, every such
     * dial is told the first slot after it. The bucket starts filling, empty, when the warm-up is
     * over. At most {@link #MAX_WARM_UP} (10 minutes): clients cap a longer hint,
     * would come back before their slot and be booked again behind the queue. For the same reason
     * keep the warm-up plus the queue (N/C) under it.
     */
    public Builder warmUp(Duration warmUp) {
      Objects.requireNonNull(warmUp, "warmUp");
      if (warmUp.isNegative() || warmUp.compareTo(MAX_WARM_UP) > 0) {
        throw new IllegalArgumentException(
            "warmUp must be in 0.." + MAX_WARM_UP.toMinutes() + " minutes (the"
                + " longest retry-after a client keeps): " + warmUp);
      }
      this.warmUp = warmUp;
      return this;
    }

    /**
     * Sets the source of time, monotonic nanoseconds from any fixed origin (default {@code
     * System::nanoTime}; a {@code dev.ddpkit.reconnect.Ticker} is passed as {@code ticker::read});
     * the bucket starts empty at build (or when the {@linkplain #warmUp warm-up} is over).
     */
    public Builder ticker(LongSupplier nanoTime) {
      this.ticker = Objects.requireNonNull(nanoTime, "ticker");
      return this;
    }

    /**
     * Sets the source of time as milliseconds, for a server whose clock is a {@code
     * java.time.Clock}: {@code millisClock(clock::millis)}.
     */
    public Builder millisClock(LongSupplier millis) {
      Objects.requireNonNull(millis, "millisClock");
      return ticker(() -> millis.getAsLong() * MS);
    }

    /**
     * Returns the admission, its bucket empty from now on (or from the end of the warm-up).
     *
     * @throws IllegalStateException if the capacity is not set
     */
    public Admission build() {
      if (capacity == 0) {
        throw new IllegalStateException("capacity is not set");
      }
      if (burst == 0) {
        burst = capacity;
      }
      return new Admission(this);
    }
  }
}
