package dev.ddpkit.reconnect.sim;

import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.admission.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The herd simulation: N clients, each with the decisions of a {@link
 * dev.ddpkit.reconnect.ReconnectionManager} ({@link HerdClients}), all connected and stable, then
 * dropped at once (t=0) by a model server that is down for a while and then admits only so many
 * connections per second through the server's own {@link Admission} (see {@link HerdConfig}).
 *
 * <p>Each client draws from its own random stream split in client order from the master seed
 * ({@link ClientRandoms}), and events at the same millisecond run in the order they were
 * scheduled ({@link EventCalendar}), so a run is a pure function of its configuration. The clients
 * are rows of one primitive array and the events cost no object each: a million clients take
 * about 4 s of CPU and under 300 MB. No thread is created and nothing sleeps.
 *
 * <p>A dial reaches the server {@code latency} after the client makes it, and the client learns
 * the verdict on its attempt at that same instant: opened if admitted, closed with 1006 while the
 * server is down, with 1013 over capacity; a dial the admission holds under its peak limit opens
 * (and is counted back) when the hold is over. Admitted clients stay connected. The run stops when
 * every client is back or at the horizon, whichever comes first, looking once a virtual second.
 */
public final class HerdSimulation {
  private static final Logger log = LoggerFactory.getLogger(HerdSimulation.class);
  private static final Duration STABLE_AFTER = Duration.ofSeconds(10);
  /**
   * Before the drop: long enough for every initial connection to become stable, its dial's round
   * trip included (until December the warm-up was 11 s whatever the latency, so with a latency
   * longer than that the first dials arrived after the drop and were counted twice).
   */
  private final long warmUpMs;
  private static final long SLICE_MS = 1_000;
  private static final long MS = 1_000_000L;
  /** Calendar event: a held dial's connection starts. */
  private static final int HOLD_OVER = 2;
  /** Calendar event: the dials due now reach the server. */
  private static final int PUMP = 3;

  private final HerdConfig config;
  private final ModelServer server;
  private final EventCalendar calendar;
  private final HerdClients clients;
  private final long latencyMs;
  private final ArrivalQueue inFlight;
  private boolean pumpScheduled;
  private final long[] backAt;
  private final Counts refusedPerMs = new Counts();
  private final Counts rejectedPerMs = new Counts();
  private final Counts acceptedPerMs = new Counts();
  private boolean dropped;
  private long dropAtMs;
  private long dials;
  private int back;

  private HerdSimulation(HerdConfig config, Backoff backoff) {
    this.config = config;
    this.server =
        new ModelServer(
            config.downtime().toNanos(), config.capacity(), config.burst(), config.hints(),
            config.warmUp());
    int n = config.clients();
    this.latencyMs = config.latency().toMillis();
    this.warmUpMs = saturatedAdd(latencyMs, STABLE_AFTER.toMillis() + 1_000);
    this.calendar = new EventCalendar();
    this.inFlight = new ArrivalQueue(n);
    this.backAt = new long[n];
    // The policy each client's manager would be built with (everything else its defaults).
    ReconnectPolicy policy =
        ReconnectPolicy.builder()
            .backoff(backoff)
            .closePolicy(ClosePolicy.ddp())
            .stableAfter(STABLE_AFTER)
            .build();
    long lastMs = saturatedAdd(warmUpMs, config.horizon().toMillis());
    this.clients = new HerdClients(n, config.seed(), policy, calendar, lastMs);
  }

  /** Runs one scenario and returns its figures. */
  public static HerdResult run(HerdConfig config) {
    return new HerdSimulation(config, config.policy().backoff()).execute();
  }

  /**
   * Runs one scenario with every client on {@code backoff} instead of the policy's preset (the
   * result still names the config's policy): for a sweep over curves.
   */
  static HerdResult run(HerdConfig config, Backoff backoff) {
    return new HerdSimulation(config, Objects.requireNonNull(backoff, "backoff")).execute();
  }

  /** Runs the same scenario once per policy, in the given order. */
  public static List<HerdResult> runAll(HerdConfig config, List<HerdPolicy> policies) {
    List<HerdResult> results = new ArrayList<>();
    for (HerdPolicy p : policies) {
      results.add(run(config.withPolicy(p)));
    }
    return results;
  }

  private HerdResult execute() {
    int n = config.clients();
    for (int i = 0; i < n; i++) {
      dial(i);
    }
    runUntil(warmUpMs);
    dropped = true;
    dropAtMs = calendar.now();
    for (int i = 0; i < n; i++) {
      if (config.planned()) {
        // A planned restart: each connection is told when its place in the queue comes up.
        long at = server.restartAppointment(i + 1).retryAfterMillis();
        clients.closed(i, CloseCodes.SERVICE_RESTART, at, dropAtMs);
      } else {
        clients.closed(i, CloseCodes.ABNORMAL, -1, dropAtMs);
      }
    }
    long end = saturatedAdd(dropAtMs, config.horizon().toMillis());
    while (back < n && calendar.now() < end && calendar.pending() > 0) {
      runUntil(Math.min(calendar.now() + SLICE_MS, end));
    }
    if (back < n) {
      log.info(
          "{}: {} of {} clients back after {} ms", config.policy(), back, n,
          config.horizon().toMillis());
    }
    return result();
  }

  /** Runs every event due by {@code target} ms, in order. */
  private void runUntil(long target) {
    while (calendar.next(target)) {
      int kind = calendar.kind();
      int client = calendar.client();
      switch (kind) {
        case HerdClients.TIMER, HerdClients.STABLE -> {
          if (clients.fired(kind, client, calendar.tag())) {
            dial(client);
          }
        }
        case HOLD_OVER -> back(client, calendar.now() - dropAtMs);
        case PUMP -> pump();
        default -> throw new AssertionError("Unexpected event: " + kind);
      }
    }
  }

  /**
   * The client dials: the dial reaches the server {@code latency} later. With one latency for all,
   * dials arrive in the order they were made, so they wait in a FIFO and one event (the pump)
   * delivers all that are due, as the manager-driven simulation did on its scheduler.
   */
  private void dial(int client) {
    clients.dialing(client);
    if (dropped) {
      dials++;
    }
    long now = calendar.now();
    inFlight.add(now + latencyMs, client);
    if (!pumpScheduled) {
      pumpScheduled = true;
      calendar.schedule(now + latencyMs, PUMP, 0, 0);
    }
  }

  private void pump() {
    pumpScheduled = false;
    long now = calendar.now();
    while (!inFlight.isEmpty() && inFlight.headDue() <= now) {
      arrive(inFlight.poll());
    }
    if (!inFlight.isEmpty() && !pumpScheduled) {
      pumpScheduled = true;
      calendar.schedule(inFlight.headDue(), PUMP, 0, 0);
    }
  }

  private void arrive(int client) {
    long nowMs = calendar.now();
    if (!dropped) {
      clients.opened(client, nowMs);
      return;
    }
    long sinceDropMs = nowMs - dropAtMs;
    long sinceDrop = sinceDropMs * MS;
    int ms = (int) sinceDropMs;
    if (server.down(sinceDrop)) {
      refusedPerMs.add(ms);
      clients.closed(client, CloseCodes.ABNORMAL, -1, nowMs);
      return;
    }
    Admission.Verdict verdict = server.admit(sinceDrop);
    if (verdict.admitted() && verdict.holdMillis() > 0) {
      // Held under the server's peak limit: the connection is up, served from then on.
      calendar.schedule(nowMs + verdict.holdMillis(), HOLD_OVER, client, 0);
    } else if (verdict.admitted()) {
      back(client, sinceDropMs);
    } else {
      rejectedPerMs.add(ms);
      clients.closed(
          client, CloseCodes.TRY_AGAIN_LATER, config.hints() ? verdict.retryAfterMillis() : -1,
          nowMs);
    }
  }

  private void back(int client, long atMs) {
    acceptedPerMs.add((int) atMs);
    backAt[back++] = atMs;
    clients.opened(client, calendar.now());
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  private HerdResult result() {
    int n = config.clients();
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
    return OptionalLong.of(backAt[rank - 1]);
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

  /** A growable ring of (due time in ms, client) pairs, in due order. */
  private static final class ArrivalQueue {
    private long[] due;
    private int[] client;
    private int head;
    private int size;

    ArrivalQueue(int expected) {
      due = new long[Math.max(16, expected)];
      client = new int[due.length];
    }

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
      int tail = head + size;
      if (tail >= due.length) {
        tail -= due.length;
      }
      due[tail] = at;
      client[tail] = who;
      size++;
    }

    int poll() {
      int who = client[head];
      head = head + 1 == due.length ? 0 : head + 1;
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
