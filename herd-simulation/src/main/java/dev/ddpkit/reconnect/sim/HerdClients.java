package dev.ddpkit.reconnect.sim;

import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.CloseAction;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.CloseDecision;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectPolicy;
import java.time.Duration;

/**
 * The herd's {@link dev.ddpkit.reconnect.ReconnectionManager}s, one per client, as rows of one
 * primitive array: each client's state, attempt counter, stable flag and timer generation, and its
 * own random stream. The rules are the manager's for the reports a herd makes (a dial opened, or
 * closed with 1006, 1012 or 1013 and maybe a {@code retry-after} hint): a report that does not fit
 * the state is ignored, the counter resets only once a connection stayed up {@code stableAfter},
 * a hint is an appointment (raised to the policy's minimum, capped, plus its spread), else the
 * {@link Backoff}'s delay for the attempt, raised to the close policy's floor plus a spread. Every
 * value comes from the {@link ReconnectPolicy} and {@link ClosePolicy} the manager would be built
 * with, and the samples are drawn in the manager's order, so each client makes the same decisions
 * its manager would: {@code ManagerParityTest} runs small herds both ways and compares the JSON.
 *
 * <p>The timers are events of the {@link EventCalendar}: {@link #TIMER} (dial when it fires) and
 * {@link #STABLE} (the connection has stayed up), each tagged with the generation it was
 * scheduled in; a timer rescheduled or cancelled since is stale when it fires and does nothing,
 * like the manager's {@code SingleTimer}.
 */
final class HerdClients {
  /** Calendar event: a client's reconnect timer. */
  static final int TIMER = 0;
  /** Calendar event: a client's connection has stayed up for {@code stableAfter}. */
  static final int STABLE = 1;

  /** As the manager clamps a delay: what fits in a long of nanoseconds, about 292 years. */
  private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);
  private static final long MAX_HINT_MILLIS = ClosePolicy.MAX_RETRY_AFTER.toMillis();
  private static final int ROW = 4;
  /**
   * Where row 0 starts: a large array starts a region of the heap, 64-byte aligned, and its
   * header takes 16 bytes, so rows from index 2 on never straddle two cache lines.
   */
  private static final int FIRST = 2;
  private static final int MANAGER = 2;
  private static final int GENERATION = 3;
  private static final int STATE_BITS = 0b111;
  private static final int STABLE_BIT = 0b1000;
  private static final int ATTEMPT_SHIFT = 4;
  /** Before its first dial (the state a zeroed row starts in). */
  private static final int IDLE = 0;
  private static final int CONNECTING = 1;
  private static final int CONNECTED = 2;
  private static final int WAITING = 3;
  private static final int STOPPED = 4;

  private final EventCalendar calendar;
  private final long lastMs;
  private final Backoff backoff;
  private final long stableAfterMs;
  private final int maxAttempts;
  private final double hintSpread;
  private final Duration maxHintSpread;
  private final Duration hintMinimum;
  private final CloseDecision onAbnormal;
  private final CloseDecision onRestart;
  private final CloseDecision onTryAgainLater;

  /**
   * Client i's row is {@code cells[2+4i .. 2+4i+3]}: its random stream (seed, gamma), its manager's
   * state (bits 0-2), stable flag (bit 3) and attempt counter (above), and its timer's generation.
   * A row is 32 bytes, aligned, so each report touches one cache line.
   */
  private final long[] cells;

  /**
   * The managers of {@code clients} clients following {@code policy}, each drawing from its own
   * stream split from {@code seed} ({@link ClientRandoms}), their timers on {@code calendar}; a
   * timer due after {@code lastMs} is never scheduled, since the run stops before it.
   */
  HerdClients(int clients, long seed, ReconnectPolicy policy, EventCalendar calendar, long lastMs) {
    this.calendar = calendar;
    this.lastMs = lastMs;
    this.backoff = policy.backoff();
    this.stableAfterMs = wholeMillis(policy.stableAfter(), "stableAfter");
    this.maxAttempts = policy.maxAttempts();
    this.hintSpread = policy.hintSpread();
    this.maxHintSpread = policy.maxHintSpread();
    this.hintMinimum = policy.hintMinimum();
    ClosePolicy closes = policy.closePolicy();
    // The herd closes with these three codes only; their decisions, hint aside, are constants.
    this.onAbnormal = retryOrStop(closes, CloseCodes.ABNORMAL);
    this.onRestart = retryOrStop(closes, CloseCodes.SERVICE_RESTART);
    this.onTryAgainLater = retryOrStop(closes, CloseCodes.TRY_AGAIN_LATER);
    if (clients >= EventCalendar.MAX_CLIENTS) {
      throw new IllegalArgumentException(
          "the herd simulates fewer than " + EventCalendar.MAX_CLIENTS + " clients: " + clients);
    }
    this.cells = new long[FIRST + ROW * clients];
    ClientRandoms.split(seed, clients, cells, FIRST, ROW);
  }

  private static CloseDecision retryOrStop(ClosePolicy closes, int code) {
    CloseDecision d = closes.classify(code, "");
    if (d.action() == CloseAction.REFRESH_AUTH) {
      throw new IllegalArgumentException(
          "the herd does not model a credentials refresh on " + code + ": " + closes);
    }
    return d;
  }

  /**
   * The manager dials (at start, or when its timer fired): its timer is cancelled and it is
   * connecting. The caller makes the dial.
   */
  void dialing(int i) {
    cells[row(i) + GENERATION]++;
    setState(i, CONNECTING);
  }

  /** The dial of client {@code i} opened, at {@code nowMs}: {@code Attempt.opened()}. */
  void opened(int i, long nowMs) {
    if (state(i) != CONNECTING) {
      return;
    }
    setStable(i, false);
    schedule(i, STABLE, nowMs + stableAfterMs);
    setState(i, CONNECTED);
  }

  /**
   * The connection of client {@code i} closed with {@code code} at {@code nowMs}, with the hint
   * {@code retryAfterMillis} of its reason (-1 for none): {@code Attempt.closed(code, reason)}.
   *
   * @throws IllegalStateException if the backoff failed (the manager would have stopped and the
   *     report thrown)
   */
  void closed(int i, int code, long retryAfterMillis, long nowMs) {
    int now = state(i);
    if (now != CONNECTING && now != CONNECTED) {
      return;
    }
    cells[row(i) + GENERATION]++;
    if (stable(i)) {
      setAttempt(i, 0);
    }
    setStable(i, false);
    CloseDecision decision = decision(code);
    if (decision.action() == CloseAction.STOP) {
      setState(i, STOPPED);
      return;
    }
    setAttempt(i, attempt(i) + 1);
    if (maxAttempts > 0 && attempt(i) > maxAttempts) {
      setAttempt(i, maxAttempts);
      setState(i, STOPPED);
      return;
    }
    Duration wait =
        retryAfterMillis >= 0
            ? appointment(i, Duration.ofMillis(Math.min(retryAfterMillis, MAX_HINT_MILLIS)))
            : atLeast(i, curve(i), decision.floor());
    setState(i, WAITING);
    schedule(i, TIMER, nowMs + wholeMillis(wait, "delay"));
  }

  /**
   * A timer event of client {@code i} fired; returns whether the client dials now (its reconnect
   * timer, still current, while it waits).
   */
  boolean fired(int kind, int i, int generation) {
    if (generation != (int) cells[row(i) + GENERATION]) {
      return false;
    }
    if (kind == TIMER) {
      return state(i) == WAITING;
    }
    if (state(i) == CONNECTED) {
      setStable(i, true);
      setAttempt(i, 0);
    }
    return false;
  }

  private CloseDecision decision(int code) {
    return switch (code) {
      case CloseCodes.ABNORMAL -> onAbnormal;
      case CloseCodes.SERVICE_RESTART -> onRestart;
      case CloseCodes.TRY_AGAIN_LATER -> onTryAgainLater;
      default -> throw new IllegalArgumentException("the herd does not close with " + code);
    };
  }

  private void schedule(int i, int kind, long atMs) {
    int generation = (int) ++cells[row(i) + GENERATION];
    if (atMs <= lastMs) {
      calendar.schedule(atMs, kind, i, generation);
    }
  }

  private static int row(int i) {
    return FIRST + ROW * i;
  }

  private int state(int i) {
    return (int) cells[row(i) + MANAGER] & STATE_BITS;
  }

  private void setState(int i, int state) {
    cells[row(i) + MANAGER] = (cells[row(i) + MANAGER] & ~STATE_BITS) | state;
  }

  private boolean stable(int i) {
    return (cells[row(i) + MANAGER] & STABLE_BIT) != 0;
  }

  private void setStable(int i, boolean stable) {
    long m = cells[row(i) + MANAGER];
    cells[row(i) + MANAGER] = stable ? m | STABLE_BIT : m & ~STABLE_BIT;
  }

  private int attempt(int i) {
    return (int) (cells[row(i) + MANAGER] >>> ATTEMPT_SHIFT);
  }

  private void setAttempt(int i, int attempt) {
    cells[row(i) + MANAGER] =
        (cells[row(i) + MANAGER] & (STATE_BITS | STABLE_BIT)) | ((long) attempt << ATTEMPT_SHIFT);
  }

  // ---- the manager's RetryTiming, on client i's stream ----

  private Duration curve(int i) {
    int n = attempt(i);
    Duration d;
    try {
      d = backoff.delay(n, ClientRandoms.nextDouble(cells, row(i)));
    } catch (RuntimeException e) {
      throw new IllegalStateException("backoff " + backoff + " failed for attempt " + n + ": " + e, e);
    }
    if (d == null || d.isNegative()) {
      throw new IllegalStateException("backoff " + backoff + " returned " + d + " for attempt " + n);
    }
    return d;
  }

  private Duration atLeast(int i, Duration curve, Duration floor) {
    if (curve.compareTo(floor) >= 0) {
      return curve;
    }
    double sample = ClientRandoms.nextDouble(cells, row(i));
    return floor.plusMillis(Math.round(floor.toMillis() * hintSpread * sample));
  }

  private Duration appointment(int i, Duration hint) {
    Duration h = hint.compareTo(hintMinimum) < 0 ? hintMinimum : hint;
    if (h.compareTo(ClosePolicy.MAX_RETRY_AFTER) > 0) {
      h = ClosePolicy.MAX_RETRY_AFTER;
    }
    long window = Math.min(Math.round(h.toMillis() * hintSpread), maxHintSpread.toMillis());
    return h.plusMillis(Math.round(window * ClientRandoms.nextDouble(cells, row(i))));
  }

  /**
   * {@code d} in milliseconds: the herd's clock ticks in them, so a delay between two ticks has no
   * place in the calendar. As the manager does, a delay beyond ~292 years is clamped to it.
   */
  private static long wholeMillis(Duration d, String what) {
    if (d.getNano() % 1_000_000 != 0) {
      throw new IllegalStateException(what + " is not a whole number of ms: " + d);
    }
    return d.compareTo(LONGEST) > 0 ? LONGEST.toMillis() : d.toMillis();
  }
}
