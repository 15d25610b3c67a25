package dev.ddpkit.chat.bench;

import dev.ddpkit.reconnect.sim.HerdBucket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a real reconnect wave looked like, recorded from many threads at once: dials (client side),
 * accepts and 1013 rejections (server side) per millisecond after the drop, the first time each
 * client was logged in again ("catching up" or "connected"), and samples of how many clients the server holds subscribed.
 * Times are milliseconds after the drop; events past the recorded span land in its last slot.
 */
final class WaveRecorder {
  private final int clients;
  private final int spanMs;
  private final AtomicIntegerArray refused;
  private final AtomicIntegerArray dialsUp;
  private final AtomicIntegerArray accepted;
  private final AtomicIntegerArray rejected;
  private final AtomicLongArray loggedInAt;
  private final AtomicLongArray lostAt;
  /** subscribedAt[k - 1]: first sample at which the server held k or more subscriptions. */
  private final long[] subscribedAt;
  private int subscribedSeen; // guarded by this
  private volatile long dropEpochMs = -1;
  private volatile long upEpochMs = Long.MAX_VALUE;

  WaveRecorder(int clients, long spanMs) {
    if (clients < 1 || spanMs < 1 || spanMs > Integer.MAX_VALUE - 1) {
      throw new IllegalArgumentException("clients and spanMs must be positive");
    }
    this.clients = clients;
    this.spanMs = (int) spanMs + 1;
    this.refused = new AtomicIntegerArray(this.spanMs);
    this.dialsUp = new AtomicIntegerArray(this.spanMs);
    this.accepted = new AtomicIntegerArray(this.spanMs);
    this.rejected = new AtomicIntegerArray(this.spanMs);
    this.loggedInAt = new AtomicLongArray(clients);
    this.lostAt = new AtomicLongArray(clients);
    Arrays.fill(subscribedAt = new long[clients], -1);
    for (int i = 0; i < clients; i++) {
      loggedInAt.set(i, -1);
      lostAt.set(i, -1);
    }
  }

  /** Starts recording: the drop happens at {@code epochMs}. */
  void drop(long epochMs) {
    dropEpochMs = epochMs;
  }

  /** The server listens again from {@code epochMs}: dials before it were refused. */
  void serverUp(long epochMs) {
    upEpochMs = epochMs;
  }

  boolean armed() {
    return dropEpochMs >= 0;
  }

  /** A client started a dial at {@code epochMs}. */
  void dial(long epochMs) {
    if (!armed()) {
      return;
    }
    (epochMs < upEpochMs ? refused : dialsUp).incrementAndGet(slot(epochMs));
  }

  /** The server admitted a connection. */
  void accepted(long epochMs) {
    if (armed()) {
      accepted.incrementAndGet(slot(epochMs));
    }
  }

  /** The server closed a connection with 1013. */
  void rejected(long epochMs) {
    if (armed()) {
      rejected.incrementAndGet(slot(epochMs));
    }
  }

  /** Client {@code i} noticed the drop (its manager left CONNECTED); only the first counts. */
  void lost(int i, long epochMs) {
    if (armed()) {
      lostAt.compareAndSet(i, -1, Math.max(0, epochMs - dropEpochMs));
    }
  }

  /**
   * When the {@code rank}-th client (1-based) noticed the drop, ms after it; empty if fewer did.
   * The spread of these times is jitter the simulation does not have (it drops all at t=0).
   */
  OptionalLong lostAt(int rank) {
    long[] t = java.util.stream.IntStream.range(0, clients)
        .mapToLong(lostAt::get).filter(v -> v >= 0).sorted().toArray();
    return rank < 1 || rank > t.length ? OptionalLong.empty() : OptionalLong.of(t[rank - 1]);
  }

  /**
   * Client {@code i} is logged in again (its status is "catching up" or "connected"); only the
   * first counts.
   */
  void loggedIn(int i, long epochMs) {
    if (armed()) {
      loggedInAt.compareAndSet(i, -1, Math.max(0, epochMs - dropEpochMs));
    }
  }

  /** A sample: the server held {@code count} room subscriptions at {@code epochMs}. */
  synchronized void subscriptions(long epochMs, int count) {
    if (!armed()) {
      return;
    }
    long t = Math.max(0, epochMs - dropEpochMs);
    for (int k = subscribedSeen + 1; k <= Math.min(count, clients); k++) {
      subscribedAt[k - 1] = t;
    }
    subscribedSeen = Math.max(subscribedSeen, Math.min(count, clients));
  }

  /** How many clients are logged in again. */
  int loggedInCount() {
    int n = 0;
    for (int i = 0; i < clients; i++) {
      n += loggedInAt.get(i) >= 0 ? 1 : 0;
    }
    return n;
  }

  /** How many clients are back: logged in again and subscribed on the server. */
  synchronized int backCount() {
    return Math.min(loggedInCount(), subscribedSeen);
  }

  /**
   * When the {@code rank}-th client (1-based) was back: the later of the rank-th login and the
   * sample at which the server first held {@code rank} subscriptions; empty if not reached.
   */
  synchronized OptionalLong backAt(int rank) {
    long[] logins = sortedLogins();
    if (rank < 1 || rank > logins.length || rank > subscribedSeen) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Math.max(logins[rank - 1], subscribedAt[rank - 1]));
  }

  private long[] sortedLogins() {
    return java.util.stream.IntStream.range(0, clients)
        .mapToLong(loggedInAt::get).filter(t -> t >= 0).sorted().toArray();
  }

  long refusedTotal() {
    return sum(refused);
  }

  long dialsTotal() {
    return sum(refused) + sum(dialsUp);
  }

  long acceptedTotal() {
    return sum(accepted);
  }

  long rejectedTotal() {
    return sum(rejected);
  }

  /** The most accepts plus 1013s in any one-second window (sliding by 1 ms). */
  int peakArrivalsPerSecond() {
    return peak(accepted, rejected);
  }

  /** The most accepts in any one-second window (sliding by 1 ms). */
  int peakAcceptsPerSecond() {
    return peak(accepted, null);
  }

  /** The most refused dials in any one-second window while the server was down. */
  int peakRefusedPerSecond() {
    return peak(refused, null);
  }

  /** The most accepts within one wall-clock second (the server's admission window). */
  int peakAcceptsPerWallSecond() {
    long drop = dropEpochMs;
    int best = 0;
    int current = 0;
    long second = Long.MIN_VALUE;
    for (int ms = 0; ms < spanMs; ms++) {
      long s = Math.floorDiv(drop + ms, 1000L);
      if (s != second) {
        second = s;
        current = 0;
      }
      current += accepted.get(ms);
      best = Math.max(best, current);
    }
    return best;
  }

  /** Dials per bucket of {@code widthMs}, up to the last bucket with a dial. */
  List<HerdBucket> buckets(int widthMs) {
    int last = -1;
    for (int ms = 0; ms < spanMs; ms++) {
      if (refused.get(ms) + accepted.get(ms) + rejected.get(ms) > 0) {
        last = ms;
      }
    }
    List<HerdBucket> out = new ArrayList<>();
    for (int start = 0; start <= last; start += widthMs) {
      int r = 0;
      int x = 0;
      int a = 0;
      for (int ms = start; ms < Math.min(spanMs, start + widthMs); ms++) {
        r += refused.get(ms);
        x += rejected.get(ms);
        a += accepted.get(ms);
      }
      out.add(new HerdBucket(start, r, x, a));
    }
    return out;
  }

  private int slot(long epochMs) {
    long t = epochMs - dropEpochMs;
    return (int) Math.max(0, Math.min(spanMs - 1, t));
  }

  private int peak(AtomicIntegerArray a, AtomicIntegerArray b) {
    int window = 0;
    int best = 0;
    for (int ms = 0; ms < spanMs; ms++) {
      window += a.get(ms) + (b == null ? 0 : b.get(ms));
      if (ms >= 1000) {
        window -= a.get(ms - 1000) + (b == null ? 0 : b.get(ms - 1000));
      }
      best = Math.max(best, window);
    }
    return best;
  }

  private static long sum(AtomicIntegerArray a) {
    long s = 0;
    for (int i = 0; i < a.length(); i++) {
      s += a.get(i);
    }
    return s;
  }
}
