package dev.ddpkit.chat;

import dev.ddpkit.chat.protocol.CallLimit;
import dev.ddpkit.chat.protocol.RocketChatNames;
import dev.ddpkit.reconnect.Cancellable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * Every call the chat layer makes waits here for its budget ({@link ChatLimits}), for the server's
 * "hold back" ({@code too-many-requests} with {@code timeToReset}) and for its own retry time, and
 * goes out in order: per budget, work with no room first (in submission order), then rooms in the
 * order {@code roomOrder} gives (the room in focus, then by recent activity). Only {@code login}
 * goes out while the gate is shut (not logged in). One timer for all of it. Runs on the client's
 * loop only; not thread-safe.
 */
final class Pacer {
  /** The budget of every {@code stream-*} subscription. */
  static final String STREAM = "stream";
  /** The budget of the {@code stream-notify-room} subscriptions: its own, as the server counts. */
  static final String NOTIFY_STREAM = RocketChatNames.STREAM_NOTIFY_ROOM;
  /** The budget of the login. */
  static final String LOGIN = RocketChatNames.LOGIN;
  /** The prefix of a key that is a timer of the chat layer's own, not a call: it has no budget. */
  static final String TIMER = "timer:";
  /** A budget that lasts across connections: Rocket.Chat counts it per user. */
  private static final String PER_USER = RocketChatNames.SEND_MESSAGE;

  /** Schedules a task on the client's loop. */
  interface Timers {
    Cancellable schedule(Duration delay, Runnable task);
  }

  /** One piece of work waiting for its budget; {@link #cancel} drops it. */
  static final class Job {
    private final String key;
    private final String rid;
    private final Runnable action;
    private final long seq;
    private final Instant notBefore;
    private boolean done; // gone out, or cancelled

    private Job(String key, String rid, Runnable action, long seq, Instant notBefore) {
      this.key = key;
      this.rid = rid;
      this.action = action;
      this.seq = seq;
      this.notBefore = notBefore;
    }
  }

  private final ChatLimits limits;
  private final Clock clock;
  private final Timers timers;
  private final DoubleSupplier random;
  private final Comparator<String> roomOrder;
  private final List<Job> jobs = new ArrayList<>();
  private final Map<String, ArrayDeque<Instant>> sent = new HashMap<>();
  private final Map<String, Instant> heldUntil = new HashMap<>();
  private long seq;
  private boolean open;
  private boolean pumping;
  private Cancellable timer;
  private Instant timerAt;
  private long refusals;

  Pacer(
      ChatLimits limits,
      Clock clock,
      Timers timers,
      DoubleSupplier random,
      Comparator<String> roomOrder) {
    this.limits = limits;
    this.clock = clock;
    this.timers = timers;
    this.random = random;
    this.roomOrder = roomOrder;
  }

  /**
   * Whether {@code job} still waits: not null, not gone out, not cancelled. A job may go out inside
   * the {@code submit} that made it, so its owner asks this rather than clearing a field.
   */
  static boolean waiting(Job job) {
    return job != null && !job.done;
  }

  /** Queues {@code action} under budget {@code key}, for room {@code rid} (or null), now. */
  Job submit(String key, String rid, Runnable action) {
    return submitAfter(key, rid, Duration.ZERO, action);
  }

  /** Queues {@code action} to go out no sooner than {@code delay} from now (a retry). */
  Job submitAfter(String key, String rid, Duration delay, Runnable action) {
    Job j = new Job(key, rid, action, seq++, clock.instant().plus(delay));
    jobs.add(j);
    pump();
    return j;
  }

  /** Drops a job that has not gone out yet; null is ignored. */
  void cancel(Job job) {
    if (job != null && jobs.remove(job)) {
      job.done = true;
      pump();
    }
  }

  /**
   * The server said to hold {@code key} back for {@code timeToReset}: nothing under that budget
   * goes out before then plus a little jitter (so that a herd does not come back in step).
   */
  void hold(String key, Duration timeToReset) {
    refusals++;
    long spread = Math.max(50, Math.min(1_000, timeToReset.toMillis() / 10));
    Instant until =
        clock.instant().plus(timeToReset).plusMillis((long) (random.getAsDouble() * spread));
    heldUntil.merge(key, until, (a, b) -> a.isAfter(b) ? a : b);
    pump();
  }

  /** Returns when {@code key} may go out again after a hold, if it is held. */
  Optional<Instant> heldUntil(String key) {
    Instant t = heldUntil.get(key);
    return t != null && t.isAfter(clock.instant()) ? Optional.of(t) : Optional.empty();
  }

  /** Opens the gate (logged in: everything may go) or shuts it (only the login goes). */
  void open(boolean open) {
    this.open = open;
    pump();
  }

  /** A new connection: its budgets and holds start afresh, except the per-user ones. */
  void newConnection() {
    sent.keySet().removeIf(k -> !k.equals(PER_USER));
    heldUntil.keySet().removeIf(k -> !k.equals(PER_USER));
    pump();
  }

  /** Drops every job and the timer (the client stopped). */
  void clear() {
    jobs.forEach(j -> j.done = true);
    jobs.clear();
    cancelTimer();
  }

  /** Returns how many holds the server asked for (calls refused with too-many-requests). */
  long refusals() {
    return refusals;
  }

  /** Returns how many jobs wait. */
  int waiting() {
    return jobs.size();
  }

  /** Runs every job that may go now, in order, then sets the one timer for the next. */
  void pump() {
    if (pumping) {
      return; // an action submitted more work: the loop below picks it up
    }
    pumping = true;
    try {
      for (Job j; (j = next(clock.instant())) != null; ) {
        jobs.remove(j);
        j.done = true;
        spend(j.key);
        j.action.run();
      }
    } finally {
      pumping = false;
    }
    arm();
  }

  private Job next(Instant now) {
    Job best = null;
    for (Job j : jobs) {
      if (!readyAt(j).map(t -> !t.isAfter(now)).orElse(false)) {
        continue;
      }
      if (best == null || before(j, best)) {
        best = j;
      }
    }
    return best;
  }

  private boolean before(Job a, Job b) {
    if ((a.rid == null) != (b.rid == null)) {
      return a.rid == null;
    }
    if (a.rid != null) {
      int c = roomOrder.compare(a.rid, b.rid);
      if (c != 0) {
        return c < 0;
      }
    }
    return a.seq < b.seq;
  }

  /** When a job may go: its own time, its budget's hold and window; empty behind a shut gate. */
  private Optional<Instant> readyAt(Job j) {
    if (!open && !j.key.equals(LOGIN)) {
      return Optional.empty();
    }
    Instant t = j.notBefore;
    Instant held = heldUntil.get(j.key);
    if (held != null && held.isAfter(t)) {
      t = held;
    }
    Optional<CallLimit> limit = limit(j.key);
    ArrayDeque<Instant> window = sent.get(j.key);
    if (limit.isPresent() && window != null && window.size() >= limit.get().calls()) {
      // The oldest call in the window must have left it: the (size - calls + 1)-th oldest.
      Instant oldest = window.stream().skip(window.size() - limit.get().calls()).findFirst().get();
      Instant free = oldest.plus(limit.get().window()).plus(limits.margin());
      if (free.isAfter(t)) {
        t = free;
      }
    }
    return Optional.of(t);
  }

  private void spend(String key) {
    Optional<CallLimit> limit = limit(key);
    if (!limit.isPresent()) {
      return;
    }
    Instant now = clock.instant();
    ArrayDeque<Instant> window = sent.computeIfAbsent(key, k -> new ArrayDeque<>());
    window.addLast(now);
    Instant horizon = now.minus(limit.get().window()).minus(limits.margin());
    while (window.size() > limit.get().calls() && !window.peekFirst().isAfter(horizon)) {
      window.pollFirst();
    }
    while (window.size() > limit.get().calls()) {
      window.pollFirst();
    }
  }

  private Optional<CallLimit> limit(String key) {
    if (key.startsWith(TIMER)) {
      return Optional.empty();
    }
    return key.equals(STREAM) || key.equals(NOTIFY_STREAM) ? limits.streams() : limits.method(key);
  }

  /** One timer, at the earliest time a waiting job may go. */
  private void arm() {
    Instant earliest = null;
    for (Job j : jobs) {
      Optional<Instant> t = readyAt(j);
      if (t.isPresent() && (earliest == null || t.get().isBefore(earliest))) {
        earliest = t.get();
      }
    }
    if (earliest == null) {
      cancelTimer();
      return;
    }
    if (timer != null && earliest.equals(timerAt)) {
      return;
    }
    cancelTimer();
    Duration d = Duration.between(clock.instant(), earliest);
    timerAt = earliest;
    timer = timers.schedule(d.isNegative() ? Duration.ZERO : d, this::fire);
  }

  private void fire() {
    timer = null;
    timerAt = null;
    pump();
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel();
      timer = null;
      timerAt = null;
    }
  }
}
