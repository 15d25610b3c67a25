package dev.ddpkit.reconnect.admission;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.admission.Admission.Outcome;
import dev.ddpkit.reconnect.admission.Admission.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = SECONDS)
class AdmissionTest {
  private static final long MS = 1_000_000L;

  /** A ticker the test moves by hand. */
  private long now;

  private Admission.Builder at500() {
    return Admission.builder().capacity(500).ticker(() -> now);
  }

  private Verdict at(long millis, Admission a) {
    now = millis * MS;
    return a.admit();
  }

  private static Verdict rejected(long millis) {
    return new Verdict(Outcome.REJECTED, millis);
  }

  private static final Verdict ADMITTED = new Verdict(Outcome.ADMITTED, 0);
  private static final Verdict CLAIMED = new Verdict(Outcome.CLAIMED, 0);

  @Test
  void startsEmptyAndBooksTheNextFreeSlotsAtTheCapacity() {
    Admission a = at500().build();

    // Up at 0 with no token; at 500/s a token accrues every 2 ms, and each rejection books one.
    assertThat(at(0, a)).isEqualTo(rejected(2));
    assertThat(at(0, a)).isEqualTo(rejected(4));
    assertThat(at(0, a)).isEqualTo(rejected(6));
    // 1 ms later the queue ends 5 ms from now; the next slot is 2 ms after it.
    assertThat(at(1, a)).isEqualTo(rejected(7));
    assertThat(a.reservations()).isEqualTo(4);
  }

  @Test
  void eachRejectedClientGetsItsOwnSlotWhereAPlainBucketNamesTheSameTokenTwice() {
    Admission plain = at500().appointments(false).build();
    assertThat(at(0, plain)).isEqualTo(rejected(2));
    assertThat(at(0, plain)).isEqualTo(rejected(2));
    assertThat(at(2, plain)).isEqualTo(ADMITTED);
    assertThat(at(2, plain)).isEqualTo(rejected(2)); // the second one told 2 ms is turned away

    now = 0;
    Admission kept = at500().build();
    assertThat(at(0, kept)).isEqualTo(rejected(2));
    assertThat(at(0, kept)).isEqualTo(rejected(4));
    assertThat(at(2, kept)).isEqualTo(CLAIMED);
    assertThat(at(3, kept)).isEqualTo(rejected(3)); // the 4 ms token is promised: a newcomer waits
    assertThat(at(4, kept)).isEqualTo(CLAIMED); // the second one, in its slot
  }

  @Test
  void aDueSlotGoesToTheFirstDialThatArrivesWhoeverItIs() {
    Admission a = at500().build();
    assertThat(at(0, a)).isEqualTo(rejected(2)); // A: slot at 2 ms
    assertThat(at(0, a)).isEqualTo(rejected(4)); // B: slot at 4 ms

    // Clients are not identified: a newcomer at 3 ms takes the due 2 ms slot, A (late, at 3 ms
    // too) finds none due and is booked after B. The server still admits one client per slot.
    assertThat(at(3, a)).isEqualTo(CLAIMED);
    assertThat(at(3, a)).isEqualTo(rejected(3)); // A: slot at 6 ms
    assertThat(at(5, a)).isEqualTo(CLAIMED); // B
    assertThat(at(5, a)).isEqualTo(rejected(3)); // nothing free until 8 ms
    assertThat(at(6, a)).isEqualTo(CLAIMED); // A
    assertThat(a.reservations()).isEqualTo(1);
  }

  @Test
  void aClientBackBeforeItsSlotIsNotAdmittedOnIt() {
    Admission a = at500().build();
    assertThat(at(0, a)).isEqualTo(rejected(2));

    assertThat(at(1, a)).isEqualTo(rejected(3)); // too early: booked again, at 4 ms
    assertThat(a.reservations()).isEqualTo(2);
  }

  @Test
  void aReservationNotClaimedInTimeIsReleasedToTheBucket() {
    // 10/s: one slot every 100 ms; a reservation waits 200 ms after its slot.
    Admission a =
        Admission.builder()
            .capacity(10)
            .claimWindow(Duration.ofMillis(200))
            .ticker(() -> now)
            .build();
    assertThat(at(0, a)).isEqualTo(rejected(100)); // slot at 100 ms, never claimed
    assertThat(at(0, a)).isEqualTo(rejected(200)); // slot at 200 ms

    now = 300 * MS;
    assertThat(a.reservations()).isEqualTo(2); // 100 ms + 200 ms: still claimable at 300 ms
    now = 300 * MS + 1;
    assertThat(a.reservations()).isEqualTo(1); // released

    // At 350 ms: the slot of 200 ms is claimed; the released token is free; 150 ms accrued since
    // the queue ended at 200 ms (1.5 tokens): one more; then the next token is at 400 ms.
    assertThat(at(350, a)).isEqualTo(CLAIMED);
    assertThat(at(350, a)).isEqualTo(ADMITTED);
    assertThat(at(350, a)).isEqualTo(ADMITTED);
    assertThat(at(350, a)).isEqualTo(rejected(50));
  }

  @Test
  void withoutAppointmentsItIsThePlainTokenBucket() {
    Admission a = at500().appointments(false).build();

    assertThat(at(0, a)).isEqualTo(rejected(2));
    assertThat(at(1, a)).isEqualTo(rejected(1)); // nothing reserved: the same token is named again
    assertThat(at(2, a)).isEqualTo(ADMITTED);
    assertThat(at(2, a)).isEqualTo(rejected(2));
    assertThat(a.reservations()).isZero();
  }

  @Test
  void admitsAtMostTheBurstAfterAnIdleSpellAndThenTheRate() {
    Admission a = Admission.builder().capacity(100).burst(10).ticker(() -> now).build();

    int admitted = 0;
    for (int i = 0; i < 50; i++) {
      if (at(3_600_000, a).admitted()) {
        admitted++;
      }
    }
    assertThat(admitted).isEqualTo(10);
    assertThat(a.reservations()).isEqualTo(40);
    // The 40 rejected hold the next 40 slots (10 ms apart at 100/s); a newcomer comes after them.
    assertThat(at(3_600_000, a)).isEqualTo(rejected(410));
  }

  @Test
  void aHerdTurnedAwayAtOnceComesBackSlotBySlotEachAdmittedOnItsAppointment() {
    int clients = 5_000;
    HerdRun run = herd(clients, /* firstWaveMillis= */ 0, /* spreadMillis= */ 100);

    // Reserved slots honoured: every client was told its slot, came back in it and got in.
    for (int d : run.dials) {
      assertThat(d).isEqualTo(2);
    }
    // C per second, plus the slots that came due while their clients were still on the way
    // (at most C * spread): a client late by u takes a token that accrued u earlier.
    assertThat(maxInAnyWindow(run.admittedAt, 1_000 * MS)).isLessThanOrEqualTo(500 + 50);
    // The last one is back at N/C (10 s) plus at most its spread.
    assertThat(run.admittedAt.get(clients - 1)).isBetween(10_000 * MS, 10_100 * MS);
    // Those late claims bunch up (more than C decided in some second); the peak limit holds the
    // ones too many, so no more than C are served in any second, and the last only a little later.
    assertThat(maxInAnyWindow(run.admittedAt, 1_000 * MS)).isGreaterThan(500);
    assertThat(maxInAnyWindow(run.startedAt, 1_000 * MS)).isEqualTo(500);
    assertThat(run.startedAt.get(clients - 1)).isBetween(10_000 * MS, 10_100 * MS);
    assertThat(maxHold(run)).isLessThan(100 * MS);
  }

  @Test
  void aHerdBackExactlyOnItsAppointmentsIsAdmittedAtExactlyTheCapacity() {
    HerdRun run = herd(5_000, /* firstWaveMillis= */ 0, /* spreadMillis= */ 0);

    assertThat(maxInAnyWindow(run.admittedAt, 1_000 * MS)).isEqualTo(500);
    assertThat(run.admittedAt.get(4_999)).isEqualTo(10_000 * MS);
    assertThat(run.startedAt).as("nobody held: the slots alone keep the rate")
        .isEqualTo(run.admittedAt);
  }

  @Test
  void aHerdArrivingOverASecondIsAdmittedAtTheCapacityWithAtMostTwoDialsEachOnAverage() {
    int clients = 5_000;
    HerdRun run = herd(clients, /* firstWaveMillis= */ 1_000, /* spreadMillis= */ 100);

    // A newcomer that takes a due slot saves its own second dial and costs the slot's holder
    // one more: dials = N + rejections, and each rejection was claimed (none released).
    long dials = 0;
    for (int d : run.dials) {
      dials += d;
    }
    assertThat(dials).isLessThanOrEqualTo(2L * clients);
    assertThat(run.admission.reservations()).isZero();
    // The bucket never fills in a herd: C per second plus at most C * spread of late claims.
    assertThat(maxInAnyWindow(run.admittedAt, 1_000 * MS)).isLessThanOrEqualTo(500 + 50);
    assertThat(run.admittedAt.get(clients - 1)).isBetween(10_000 * MS, 10_100 * MS);
    assertThat(maxInAnyWindow(run.startedAt, 1_000 * MS)).isLessThanOrEqualTo(500);
    assertThat(run.startedAt.get(clients - 1)).isBetween(10_000 * MS, 10_100 * MS);
  }

  private static long maxHold(HerdRun run) {
    long max = 0;
    for (int i = 0; i < run.admittedAt.size(); i++) {
      max = Math.max(max, run.startedAt.get(i) - run.admittedAt.get(i));
    }
    return max;
  }

  /**
   * @param admittedAt when each admission was decided
   * @param startedAt when each admitted connection was served: the decision plus its hold
   */
  private record HerdRun(
      Admission admission, List<Long> admittedAt, List<Long> startedAt, int[] dials) {}

  /**
   * Clients first dial at random in {@code [0, firstWave)}, then each comes back at its hint plus
   * U(0, spread), on a 500/s admission built at 0.
   */
  private HerdRun herd(int clients, long firstWaveMillis, long spreadMillis) {
    now = 0;
    Admission a = at500().build(); // claim window: 500 ms by default
    List<Long> admittedAt = new ArrayList<>();
    List<Long> startedAt = new ArrayList<>();
    int[] dials = new int[clients];
    // (time in ns, client), earliest first; ties in client order.
    PriorityQueue<long[]> arrivals =
        new PriorityQueue<>(
            (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < clients; i++) {
      long first = firstWaveMillis == 0 ? 0 : random.nextLong(firstWaveMillis * MS);
      arrivals.add(new long[] {first, i});
    }
    while (!arrivals.isEmpty()) {
      long[] next = arrivals.poll();
      now = next[0];
      int client = (int) next[1];
      dials[client]++;
      Verdict v = a.admit();
      if (v.admitted()) {
        admittedAt.add(now);
        startedAt.add(now + v.holdMillis() * MS);
      } else {
        long late = spreadMillis == 0 ? 0 : random.nextLong(spreadMillis * MS);
        long back = now + v.retryAfterMillis() * MS + late;
        arrivals.add(new long[] {back, client});
      }
    }
    assertThat(admittedAt).hasSize(clients);
    return new HerdRun(a, admittedAt, startedAt, dials);
  }

  @Test
  void neverMoreThanTheBurstPlusTheRateInAnyWindowWhateverTheArrivals() {
    int capacity = 200;
    int burst = 50;
    Admission a =
        Admission.builder()
            .capacity(capacity)
            .burst(burst)
            .claimWindow(Duration.ofMillis(200))
            .ticker(() -> now)
            .build();
    SplittableRandom random = new SplittableRandom(11);
    List<Long> admittedAt = new ArrayList<>();
    List<Long> startedAt = new ArrayList<>();
    long maxHold = 0;
    PriorityQueue<Long> arrivals = new PriorityQueue<>();
    // Waves of newcomers with idle spells between them, and rejected clients that come back in
    // their slot, late, or never.
    for (int wave = 0; wave < 20; wave++) {
      long start = wave * 3_000 * MS;
      for (int i = 0; i < 400; i++) {
        arrivals.add(start + random.nextLong(500 * MS));
      }
    }
    while (!arrivals.isEmpty()) {
      now = arrivals.poll();
      Verdict v = a.admit();
      if (v.admitted()) {
        admittedAt.add(now);
        startedAt.add(now + v.holdMillis() * MS);
        maxHold = Math.max(maxHold, v.holdMillis());
      } else if (random.nextInt(4) != 0) {
        arrivals.add(now + v.retryAfterMillis() * MS + random.nextLong(400 * MS));
      }
    }

    assertThat(admittedAt).hasSizeGreaterThan(capacity * 20);
    assertThat(maxInAnyWindow(admittedAt, 1_000 * MS)).isLessThanOrEqualTo(capacity + burst);
    assertThat(maxInAnyWindow(admittedAt, 100 * MS)).isLessThanOrEqualTo(capacity / 10 + burst);
    // Served, under the peak limit: never more than the capacity in any second, and no
    // connection kept waiting a second or more for it.
    assertThat(startedAt).isSorted();
    assertThat(maxInAnyWindow(startedAt, 1_000 * MS)).isEqualTo(capacity);
    assertThat(maxHold).isPositive().isLessThan(1_000);
  }

  @Test
  void afterAnIdleSpellTheBucketsDepthIsLetInAndTheNextTokensAreHeldToTheCapacityPerSecond() {
    Admission a = Admission.builder().capacity(2).ticker(() -> now).build();

    assertThat(at(10_000, a)).isEqualTo(ADMITTED); // the bucket is full: 2 tokens
    assertThat(at(10_000, a)).isEqualTo(ADMITTED);
    // 0.6 s later 1.2 tokens have accrued: one is taken, but 2 were let in 0.6 s ago, so the
    // connection is held until the first of them is a second old.
    assertThat(at(10_600, a)).isEqualTo(new Verdict(Outcome.ADMITTED, 0, 400));
    // No token left: the next slot (11.0 s) is booked, and claimed on time with no hold, as
    // the two let in at 10 s are a second old by then.
    assertThat(at(10_600, a)).isEqualTo(rejected(400));
    assertThat(at(11_000, a)).isEqualTo(CLAIMED);
    // Holds are whole milliseconds: 1 ms before the first of two is a second old, 1 ms.
    assertThat(at(20_000, a)).isEqualTo(ADMITTED);
    assertThat(at(20_000, a)).isEqualTo(ADMITTED);
    assertThat(at(20_999, a)).isEqualTo(new Verdict(Outcome.ADMITTED, 0, 1));
  }

  @Test
  void startsNeverGoBackInTimeThoughHoldsAreRoundedUpToWholeMilliseconds() {
    Admission a = Admission.builder().capacity(2).burst(4).ticker(() -> now).build();
    now = 10_000 * MS;
    assertThat(a.admit()).isEqualTo(ADMITTED);
    assertThat(a.admit()).isEqualTo(ADMITTED);
    // 0.4 us past 10.6 s: held to 11.0 s, rounded up to 400 ms, so it starts 0.4 us after 11.0 s.
    now = 10_600 * MS + 400;
    assertThat(a.admit()).isEqualTo(new Verdict(Outcome.ADMITTED, 0, 400));
    // At 10.7 s the window alone would say 11.0 s (300 ms), before the previous start: 301 ms.
    now = 10_700 * MS;
    assertThat(a.admit()).isEqualTo(new Verdict(Outcome.ADMITTED, 0, 301));
  }

  @Test
  void withoutAppointmentsNothingIsHeld() {
    Admission a = Admission.builder().capacity(2).appointments(false).ticker(() -> now).build();

    assertThat(at(10_000, a)).isEqualTo(ADMITTED);
    assertThat(at(10_000, a)).isEqualTo(ADMITTED);
    assertThat(at(10_600, a)).as("the plain bucket: 3 in 0.6 s").isEqualTo(ADMITTED);
  }

  @Test
  void aVerdictHoldsOnlyAnAdmission() {
    assertThat(new Verdict(Outcome.CLAIMED, 0, 5).holdMillis()).isEqualTo(5);
    assertThat(new Verdict(Outcome.REJECTED, 5).holdMillis()).isZero();
    assertThatThrownBy(() -> new Verdict(Outcome.REJECTED, 5, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holdMillis");
    assertThatThrownBy(() -> new Verdict(Outcome.ADMITTED, 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holdMillis");
  }

  @Test
  void withABurstShorterThanTheClaimWindowDueSlotsStillWaitAndFreeTokensOverflowFirst() {
    // 100/s, burst 1: slots 10 ms apart, each held 500 ms; 30 come due unclaimed.
    Admission a = Admission.builder().capacity(100).burst(1).ticker(() -> now).build();
    for (int i = 0; i < 30; i++) {
      assertThat(at(0, a)).isEqualTo(rejected(10 * (i + 1)));
    }

    now = 300 * MS;
    assertThat(a.reservations()).isEqualTo(30); // none released, whatever the burst
    int admitted = 0;
    while (at(300, a).admitted()) {
      admitted++;
    }
    assertThat(admitted).isEqualTo(30); // the 30 promises, and no free token beside them
  }

  @Test
  void isThreadSafe() throws Exception {
    Admission a = Admission.builder().capacity(100).burst(100).ticker(() -> now).build();
    now = 10_000 * MS; // bucket full: 100 tokens, and no time passes while the threads run
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      Callable<Integer> hammer =
          () -> {
            int admitted = 0;
            for (int i = 0; i < 1_000; i++) {
              if (a.admit().admitted()) {
                admitted++;
              }
            }
            return admitted;
          };
      List<Future<Integer>> results = pool.invokeAll(List.of(hammer, hammer, hammer, hammer));
      int admitted = 0;
      for (Future<Integer> f : results) {
        admitted += f.get();
      }
      assertThat(admitted).isEqualTo(100);
      assertThat(a.reservations()).isEqualTo(3_900);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void warmingUpItAdmitsNobodyAndBooksEveryDialASlotAfterTheWarmUpInOrder() {
    now = 0;
    Admission a = at500().warmUp(Duration.ofSeconds(5)).build();
    // Dials during the warm-up: each booked 2 ms after the previous one, from 5 s on.
    assertThat(at(0, a)).isEqualTo(rejected(5_002));
    assertThat(at(1_000, a)).isEqualTo(rejected(4_004));
    assertThat(at(4_999, a)).isEqualTo(rejected(7));
    assertThat(a.reservations()).isEqualTo(3);
    // A dial at 5 s finds no free token: the bucket starts filling, empty, only now.
    assertThat(at(5_000, a)).isEqualTo(rejected(8));
    // The booked clients come back on their slots and are admitted there.
    assertThat(at(5_002, a)).isEqualTo(CLAIMED);
    assertThat(at(5_004, a)).isEqualTo(CLAIMED);
    assertThat(at(5_006, a)).isEqualTo(CLAIMED);
    assertThat(at(5_008, a)).isEqualTo(CLAIMED);
    assertThat(a.reservations()).isZero();
    // Idle for a second, it then admits its burst on free tokens.
    assertThat(at(6_100, a)).isEqualTo(ADMITTED);
  }

  @Test
  void warmingUpWithoutAppointmentsItStillAdmitsNobodyUntilItIsReady() {
    now = 0;
    Admission a = at500().appointments(false).warmUp(Duration.ofMillis(100)).build();
    assertThat(at(0, a)).isEqualTo(rejected(102));
    assertThat(at(50, a)).isEqualTo(rejected(52)); // the same token named again: nothing reserved
    assertThat(at(102, a)).isEqualTo(ADMITTED);
    assertThat(at(102, a)).isEqualTo(rejected(2));
  }

  @Test
  void aPlannedRestartGivesEachPlaceItsOwnSlotAfterTheDowntime() {
    Admission a = at500().build();

    assertThat(a.restartAppointment(Duration.ofSeconds(5), 1)).isEqualTo(rejected(5_002));
    assertThat(a.restartAppointment(Duration.ofSeconds(5), 2)).isEqualTo(rejected(5_004));
    assertThat(a.restartAppointment(Duration.ofSeconds(5), 10_000)).isEqualTo(rejected(25_000));
    assertThat(a.restartAppointment(Duration.ofSeconds(5), 1).closeReason("service restart"))
        .isEqualTo("service restart; retry-after=5002");
    assertThatThrownBy(() -> a.restartAppointment(Duration.ofSeconds(5), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("place");
  }

  @Test
  void theCloseReasonCarriesTheHintInTheFormatClientsParse() {
    Admission a = at500().build();
    Verdict v = at(0, a);

    assertThat(v.closeReason("try again later")).isEqualTo("try again later; retry-after=2");
    assertThat(ClosePolicy.retryAfterMillis(v.closeReason("x"))).hasValue(2);
    assertThatThrownBy(() -> at(2, a).closeReason("x")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aMillisClockDrivesItLikeATicker() {
    long[] epochMillis = {1_764_590_400_000L};
    Admission a = Admission.builder().capacity(500).millisClock(() -> epochMillis[0]).build();

    assertThat(a.admit()).isEqualTo(rejected(2));
    epochMillis[0] += 2;
    assertThat(a.admit()).isEqualTo(CLAIMED);
  }

  @Test
  void validatesItsSettings() {
    assertThatThrownBy(() -> Admission.builder().capacity(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity");
    assertThatThrownBy(() -> Admission.builder().burst(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("burst");
    assertThatThrownBy(() -> Admission.builder().claimWindow(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("claimWindow");
    assertThatThrownBy(() -> Admission.builder().warmUp(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("warmUp");
    assertThatThrownBy(() -> Admission.builder().warmUp(Duration.ofMinutes(10).plusMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0..10 minutes");
    assertThat(Admission.builder().capacity(1).warmUp(Duration.ofMinutes(10)).build())
        .isNotNull();
    assertThatThrownBy(() -> Admission.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("capacity");
  }

  @Test
  void theLongestWarmUpIsTheLongestAppointmentAClientKeeps() {
    // The module does not depend on reconnection-manager, so it keeps its own copy of the cap: a
    // warm-up past what clients keep would book slots they come back before.
    assertThat(Admission.Builder.MAX_WARM_UP).isEqualTo(ClosePolicy.MAX_RETRY_AFTER);
  }

  private static int maxInAnyWindow(List<Long> sortedTimes, long window) {
    int max = 0;
    int from = 0;
    for (int to = 0; to < sortedTimes.size(); to++) {
      while (sortedTimes.get(to) - sortedTimes.get(from) >= window) {
        from++;
      }
      max = Math.max(max, to - from + 1);
    }
    return max;
  }
}
