package dev.ddpkit.reconnect.sim;

/**
 * The server of the herd model, on times in nanoseconds since the drop.
 *
 * <p>Admission: refused outright while down ({@code t < downtime}); then a token bucket that
 * starts empty at {@code downtime}, fills at {@code capacity} tokens per second up to {@code burst}
 * tokens, and admits a dial only if a whole token is there. Starting empty makes {@code D + N/C} a
 * true lower bound on the time the last client is back. Integer arithmetic throughout: one token
 * is {@value #TOKEN} units and the bucket gains {@code capacity} units per nanosecond.
 *
 * <p>Hints: a rejected dial is given the next free slot of a virtual queue drained at {@code
 * capacity} per second, so the k-th client rejected into the current backlog is told to come back
 * in about k/C seconds. The bucket does not reserve tokens for the slots it hands out.
 */
final class ModelServer {
  static final long TOKEN = 1_000_000_000L;

  /** What the server does with one dial. */
  enum Verdict {
    /** The server is down: the dial fails (1006). */
    REFUSED,
    /** Admitted: the client is back. */
    ACCEPTED,
    /** Over capacity: closed with 1013. */
    REJECTED
  }

  private final long downNanos;
  private final long capacity;
  private final long burstUnits;
  private long credit;
  private long refilledAt;
  private boolean started;
  private long backlogStart;
  private long backlogEnd;
  private long backlogCount;

  ModelServer(long downNanos, int capacity, int burst) {
    this.downNanos = downNanos;
    this.capacity = capacity;
    this.burstUnits = burst * TOKEN;
  }

  /** Judges a dial arriving at {@code now} nanoseconds after the drop; times never go back. */
  Verdict admit(long now) {
    if (now < downNanos) {
      return Verdict.REFUSED;
    }
    refill(now);
    if (credit >= TOKEN) {
      credit -= TOKEN;
      return Verdict.ACCEPTED;
    }
    return Verdict.REJECTED;
  }

  private void refill(long now) {
    if (!started) {
      started = true;
      refilledAt = downNanos;
      credit = 0;
    }
    long elapsed = now - refilledAt;
    refilledAt = now;
    long room = burstUnits - credit;
    // Compare before multiplying: elapsed * capacity could overflow after a long idle spell.
    if (elapsed >= room / capacity + 1) {
      credit = burstUnits;
    } else {
      credit += elapsed * capacity;
    }
  }

  /**
   * Books a slot for a client rejected at {@code now} and returns how many milliseconds it should
   * wait (rounded up, at least 1).
   */
  long retryAfterMillis(long now) {
    if (backlogEnd <= now) {
      backlogStart = now;
      backlogCount = 0;
    }
    backlogCount++;
    long slot = backlogStart + backlogCount * TOKEN / capacity;
    backlogEnd = slot;
    return Math.max(1, (slot - now + 999_999) / 1_000_000);
  }
}
