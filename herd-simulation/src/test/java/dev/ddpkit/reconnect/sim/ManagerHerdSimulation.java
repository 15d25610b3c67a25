package dev.ddpkit.reconnect.sim;

import dev.ddpkit.reconnect.Attempt;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.VirtualScheduler;
import dev.ddpkit.reconnect.admission.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Random;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The herd simulation as it was until the fast path (main before December's issue 22), kept as
 * the reference {@link HerdSimulation} must agree with: N real {@link ReconnectionManager}s on one {@link VirtualScheduler}, all
 * connected and stable, then dropped at once (t=0) by a model server that is down for a while and
 * then admits only so many connections per second (see {@link HerdConfig}).
 *
 * <p>Each client's manager draws from its own {@link SplittableRandom} split in client order from
 * the master seed, and the virtual scheduler runs ties in the order they were scheduled, so a run
 * is a pure function of its configuration. No thread is created and nothing sleeps.
 *
 * <p>A dial reaches the server {@code latency} after the manager asks for it, and the client reports
 * the verdict on its attempt at that same instant: {@code opened()} if admitted, {@code
 * closed(1006, "")} while the server is down, {@code closed(1013, reason)} over capacity; a dial
 * the admission holds under its peak limit is reported {@code opened()} (and counted back) when
 * the hold is over. Admitted clients stay connected.
 * The run stops when every client is back or at the horizon, whichever comes first.
 */
final class ManagerHerdSimulation {
  private static final Logger log = LoggerFactory.getLogger(ManagerHerdSimulation.class);
  private static final Duration STABLE_AFTER = Duration.ofSeconds(10);
  /** Long enough for every initial connection to become stable before the drop. */
  private static final Duration WARM_UP = STABLE_AFTER.plusSeconds(1);
  private static final long SLICE_NANOS = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  private final HerdConfig config;
  private final VirtualScheduler clock = new VirtualScheduler();
  private final ModelServer server;
  private final ReconnectionManager[] managers;
  /** Each client's latest attempt: one dial in flight at a time, so the one to report on. */
  private final Attempt[] attempts;
  private final ArrivalQueue inFlight = new ArrivalQueue();
  private final Runnable pump = this::pump;
  private boolean pumpScheduled;
  private final long[] backAt;
  private final Counts refusedPerMs = new Counts();
  private final Counts rejectedPerMs = new Counts();
  private final Counts acceptedPerMs = new Counts();
  private boolean dropped;
  private long dropAt;
  private long dials;
  private int back;

  private ManagerHerdSimulation(HerdConfig config, Backoff backoff) {
    this.config = config;
    this.server =
        new ModelServer(
            config.downtime().toNanos(), config.capacity(), config.burst(), config.hints(),
            config.warmUp());
    int n = config.clients();
    this.managers = new ReconnectionManager[n];
    this.attempts = new Attempt[n];
    this.backAt = new long[n];
    SplittableRandom master = new SplittableRandom(config.seed());
    // Both are immutable: one shared instance keeps their tables hot in the cache, where 100,000
    // copies would each be a cache miss on every close.
    ClosePolicy closePolicy = ClosePolicy.ddp();
    for (int i = 0; i < n; i++) {
      SplittableRandom random = master.split();
      managers[i] =
          ReconnectionManager.builder()
              .backoff(backoff)
              .closePolicy(closePolicy)
              .stableAfter(STABLE_AFTER)
              .scheduler(clock)
              // The manager's one randomness type, drawing the client's own stream, as the
              // simulation does: the same samples in the same order.
              .random(new Random() {
                @Override
                public double nextDouble() {
                  return random.nextDouble();
                }
              })
              .name("herd-" + i)
              .build();
    }
  }

  /** Runs one scenario and returns its figures. */
  static HerdResult run(HerdConfig config) {
    if (LoggerFactory.getLogger(ReconnectionManager.class).isDebugEnabled()) {
      log.warn("debug logging is on for {}: a herd run will be slow", ReconnectionManager.class);
    }
    return new ManagerHerdSimulation(config, config.policy().backoff()).execute();
  }

  /**
   * Runs one scenario with every client on {@code backoff} instead of the policy's preset (the
   * result still names the config's policy): for a sweep over curves.
   */
  static HerdResult run(HerdConfig config, Backoff backoff) {
    return new ManagerHerdSimulation(config, Objects.requireNonNull(backoff, "backoff")).execute();
  }

  /** Runs the same scenario once per policy, in the given order. */
  static List<HerdResult> runAll(HerdConfig config, List<HerdPolicy> policies) {
    List<HerdResult> results = new ArrayList<>();
    for (HerdPolicy p : policies) {
      results.add(run(config.withPolicy(p)));
    }
    return results;
  }

  private HerdResult execute() {
    for (int i = 0; i < managers.length; i++) {
      int client = i;
      managers[i].start(attempt -> dial(client, attempt));
    }
    // With the warm-up fix of the fast path: its dial's round trip too, so no first dial is late.
    clock.advance(WARM_UP.plus(config.latency()));
    dropped = true;
    dropAt = clock.read();
    for (int i = 0; i < attempts.length; i++) {
      if (config.planned()) {
        // A planned restart: each connection is told when its place in the queue comes up.
        attempts[i].closed(
            CloseCodes.SERVICE_RESTART,
            server.restartAppointment(i + 1).closeReason("service restart"));
      } else {
        attempts[i].closed(CloseCodes.ABNORMAL, "");
      }
    }
    long end = dropAt + config.horizon().toNanos();
    while (back < managers.length && clock.read() < end && clock.pendingTasks() > 0) {
      clock.advance(Duration.ofNanos(Math.min(SLICE_NANOS, end - clock.read())));
    }
    if (back < managers.length) {
      log.info(
          "{}: {} of {} clients back after {} ms", config.policy(), back, managers.length,
          config.horizon().toMillis());
    }
    return result();
  }

  /**
   * The {@link dev.ddpkit.reconnect.Connector} of a client: the dial reaches the server {@code
   * latency} later. With one latency for all, dials arrive in the order they were made, so they
   * wait in a FIFO and one scheduler task (the pump) delivers all that are due: this halves the
   * work of the scheduler's heap, which dominates a large run.
   */
  private void dial(int client, Attempt attempt) {
    attempts[client] = attempt;
    if (dropped) {
      dials++;
    }
    inFlight.add(clock.read() + config.latency().toNanos(), client);
    if (!pumpScheduled) {
      pumpScheduled = true;
      clock.schedule(config.latency(), pump);
    }
  }

  private void pump() {
    pumpScheduled = false;
    long now = clock.read();
    while (!inFlight.isEmpty() && inFlight.headDue() <= now) {
      arrive(inFlight.poll());
    }
    if (!inFlight.isEmpty() && !pumpScheduled) {
      pumpScheduled = true;
      clock.schedule(Duration.ofNanos(inFlight.headDue() - now), pump);
    }
  }

  private void arrive(int client) {
    Attempt a = attempts[client];
    if (!dropped) {
      a.opened();
      return;
    }
    long now = clock.read() - dropAt;
    int ms = (int) (now / MS);
    if (server.down(now)) {
      refusedPerMs.add(ms);
      a.closed(CloseCodes.ABNORMAL, "");
      return;
    }
    Admission.Verdict verdict = server.admit(now);
    if (verdict.admitted() && verdict.holdMillis() > 0) {
      // Held under the server's peak limit: the connection is up, served from then on.
      long start = now + verdict.holdMillis() * MS;
      clock.schedule(Duration.ofMillis(verdict.holdMillis()), () -> back(a, start));
    } else if (verdict.admitted()) {
      back(a, now);
    } else {
      rejectedPerMs.add(ms);
      a.closed(
          CloseCodes.TRY_AGAIN_LATER,
          config.hints() ? verdict.closeReason("overloaded") : "overloaded");
    }
  }

  private void back(Attempt a, long at) {
    acceptedPerMs.add((int) (at / MS));
    backAt[back++] = at;
    a.opened();
  }

  private HerdResult result() {
    int n = managers.length;
    return new HerdResult(
        config,
        back,
        backTime(quantileRank(n, 50)),
        backTime(quantileRank(n, 99)),
        backTime(n),
        dials,
        refusedPerMs.sum(),
        rejectedPerMs.sum(),
        acceptedPerMs.sum(),
        peakPerSecond(rejectedPerMs, acceptedPerMs),
        peakPerSecond(refusedPerMs, new Counts()),
        peakPerSecond(acceptedPerMs, new Counts()),
        buckets());
  }

  /** The rank (1-based) of the client that brings the share back to {@code percent}. */
  private static int quantileRank(int n, int percent) {
    return (int) Math.max(1, ((long) n * percent + 99) / 100);
  }

  private OptionalLong backTime(int rank) {
    if (rank > back) {
      return OptionalLong.empty();
    }
    return OptionalLong.of((backAt[rank - 1] + MS - 1) / MS);
  }

  private static int peakPerSecond(Counts a, Counts b) {
    int len = Math.max(a.length(), b.length());
    int window = 0;
    int peak = 0;
    for (int ms = 0; ms < len; ms++) {
      window += a.get(ms) + b.get(ms);
      if (ms >= 1000) {
        window -= a.get(ms - 1000) + b.get(ms - 1000);
      }
      peak = Math.max(peak, window);
    }
    return peak;
  }

  private List<HerdBucket> buckets() {
    int width = (int) config.bucket().toMillis();
    int len = Math.max(refusedPerMs.length(), Math.max(rejectedPerMs.length(), acceptedPerMs.length()));
    List<HerdBucket> out = new ArrayList<>();
    for (int start = 0; start < len; start += width) {
      int end = Math.min(len, start + width);
      out.add(
          new HerdBucket(
              start,
              refusedPerMs.sum(start, end),
              rejectedPerMs.sum(start, end),
              acceptedPerMs.sum(start, end)));
    }
    return out;
  }

  /** A growable ring of (due time, client) pairs, in due order. */
  private static final class ArrivalQueue {
    private long[] due = new long[1024];
    private int[] client = new int[1024];
    private int head;
    private int size;

    boolean isEmpty() {
      return size == 0;
    }

    long headDue() {
      return due[head];
    }

    void add(long at, int who) {
      if (size == due.length) {
        grow();
      }
      int tail = (head + size) % due.length;
      due[tail] = at;
      client[tail] = who;
      size++;
    }

    int poll() {
      int who = client[head];
      head = (head + 1) % due.length;
      size--;
      return who;
    }

    private void grow() {
      long[] d = new long[due.length * 2];
      int[] c = new int[due.length * 2];
      for (int i = 0; i < size; i++) {
        d[i] = due[(head + i) % due.length];
        c[i] = client[(head + i) % due.length];
      }
      due = d;
      client = c;
      head = 0;
    }
  }

  /** A growable array of counts per millisecond. */
  private static final class Counts {
    private int[] counts = new int[1024];
    private int length;

    void add(int index) {
      if (index >= counts.length) {
        counts = Arrays.copyOf(counts, Math.max(index + 1, counts.length * 2));
      }
      counts[index]++;
      length = Math.max(length, index + 1);
    }

    int get(int index) {
      return index < length ? counts[index] : 0;
    }

    int length() {
      return length;
    }

    long sum() {
      long s = 0;
      for (int i = 0; i < length; i++) {
        s += counts[i];
      }
      return s;
    }

    int sum(int from, int to) {
      int s = 0;
      for (int i = from; i < Math.min(to, length); i++) {
        s += counts[i];
      }
      return s;
    }
  }
}
