package dev.ddpkit.reconnect;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = SECONDS)
class VirtualSchedulerTest {
  private final VirtualScheduler clock = new VirtualScheduler();
  private final List<String> ran = new ArrayList<>();

  private Runnable record(String name) {
    return () -> ran.add(name + "@" + clock.now().toMillis());
  }

  @Test
  void bothClocksFollowTheVirtualTime() {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    VirtualScheduler s = new VirtualScheduler(start);
    List<String> seen = new ArrayList<>();
    s.schedule(Duration.ofSeconds(3), () -> seen.add(s.nanoTime() + " " + s.wallTime()));
    s.advance(Duration.ofSeconds(5));
    assertThat(seen).containsExactly("3000000000 2026-01-01T00:00:03Z");
    assertThat(s.nanoTime()).isEqualTo(s.read()).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(s.wallTime()).isEqualTo(start.plusSeconds(5));
    assertThat(new VirtualScheduler().wallTime()).isEqualTo(Instant.EPOCH);
  }

  @Test
  void aLambdaSchedulerReadsTheSystemClocks() {
    Scheduler lambda = (delay, task) -> () -> {};
    long before = System.nanoTime();
    assertThat(lambda.nanoTime()).isGreaterThanOrEqualTo(before);
    assertThat(lambda.wallTime()).isAfter(Instant.parse("2020-01-01T00:00:00Z"));
  }

  @Test
  void nothingRunsUntilTheClockMovesAndThenInDeadlineOrder() {
    clock.schedule(Duration.ofSeconds(3), record("c"));
    clock.schedule(Duration.ofSeconds(1), record("a"));
    clock.schedule(Duration.ofSeconds(2), record("b"));
    assertThat(ran).isEmpty();
    assertThat(clock.pendingTasks()).isEqualTo(3);

    assertThat(clock.advance(Duration.ofMillis(2500))).isEqualTo(2);
    assertThat(ran).containsExactly("a@1000", "b@2000");
    assertThat(clock.now()).isEqualTo(Duration.ofMillis(2500));
    assertThat(clock.read()).isEqualTo(2_500_000_000L);
    assertThat(clock.pendingTasks()).isEqualTo(1);
  }

  @Test
  void equalDeadlinesRunInTheOrderTheyWereScheduled() {
    for (String name : List.of("1", "2", "3", "4", "5")) {
      clock.schedule(Duration.ofSeconds(1), record(name));
    }
    clock.schedule(Duration.ZERO, record("now"));
    clock.advance(Duration.ofSeconds(1));
    assertThat(ran).containsExactly("now@0", "1@1000", "2@1000", "3@1000", "4@1000", "5@1000");
  }

  @Test
  void zeroAndNegativeDelaysRunOnTheNextRunDueNotOnTheCallersStack() {
    clock.schedule(Duration.ZERO, record("zero"));
    clock.schedule(Duration.ofSeconds(-5), record("negative"));
    assertThat(ran).isEmpty();
    assertThat(clock.runDue()).isEqualTo(2);
    assertThat(ran).containsExactly("zero@0", "negative@0");
    assertThat(clock.now()).isEqualTo(Duration.ZERO);
  }

  @Test
  void cancelledTasksDoNotRunAndLeavePendingTasks() {
    Cancellable a = clock.schedule(Duration.ofSeconds(1), record("a"));
    clock.schedule(Duration.ofSeconds(2), record("b"));
    Cancellable c = clock.schedule(Duration.ofSeconds(3), record("c"));
    a.cancel();
    c.cancel();
    c.cancel(); // twice: still one less, not two
    assertThat(clock.pendingTasks()).isEqualTo(1);
    // The cancelled head is skipped when looking for the next deadline.
    assertThat(clock.nextDeadline()).isEqualTo(Duration.ofSeconds(2));

    assertThat(clock.advance(Duration.ofSeconds(10))).isEqualTo(1);
    assertThat(ran).containsExactly("b@2000");
    assertThat(clock.pendingTasks()).isZero();
    assertThat(clock.nextDeadline()).isNull();
  }

  @Test
  void cancellingATaskThatAlreadyRanIsANoOp() {
    Cancellable a = clock.schedule(Duration.ofSeconds(1), record("a"));
    clock.advance(Duration.ofSeconds(1));
    a.cancel();
    clock.schedule(Duration.ofSeconds(1), record("b"));
    assertThat(clock.pendingTasks()).isEqualTo(1);
  }

  @Test
  void aTaskCanCancelItselfWhileRunning() {
    Cancellable[] self = new Cancellable[1];
    self[0] =
        clock.schedule(
            Duration.ofSeconds(1),
            () -> {
              self[0].cancel();
              ran.add("ran");
            });
    clock.advance(Duration.ofSeconds(1));
    assertThat(ran).containsExactly("ran");
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void tasksScheduledByTasksRunInTheSameAdvanceWhenDue() {
    clock.schedule(
        Duration.ofSeconds(1),
        () -> {
          ran.add("outer@" + clock.now().toMillis());
          clock.schedule(Duration.ZERO, record("same-instant"));
          clock.schedule(Duration.ofSeconds(1), record("one-later"));
          clock.schedule(Duration.ofSeconds(5), record("too-late"));
        });
    assertThat(clock.advance(Duration.ofSeconds(3))).isEqualTo(3);
    assertThat(ran).containsExactly("outer@1000", "same-instant@1000", "one-later@2000");
    assertThat(clock.pendingTasks()).isEqualTo(1);
    assertThat(clock.nextDeadline()).isEqualTo(Duration.ofSeconds(6));
    assertThat(clock.now()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aTaskCancelledByAnEarlierTaskAtTheSameInstantDoesNotRun() {
    Cancellable[] victim = new Cancellable[1];
    clock.schedule(Duration.ofSeconds(1), () -> victim[0].cancel());
    victim[0] = clock.schedule(Duration.ofSeconds(1), record("victim"));
    assertThat(clock.advance(Duration.ofSeconds(1))).isEqualTo(1);
    assertThat(ran).isEmpty();
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void runUntilIdleJumpsFromDeadlineToDeadlineAndStopsAtTheGuard() {
    clock.schedule(Duration.ofMinutes(5), record("late"));
    assertThat(clock.runUntilIdle(10)).isEqualTo(1);
    assertThat(ran).containsExactly("late@300000");

    Runnable[] forever = new Runnable[1];
    forever[0] = () -> clock.schedule(Duration.ofSeconds(1), forever[0]);
    clock.schedule(Duration.ofSeconds(1), forever[0]);
    assertThat(clock.runUntilIdle(100)).isEqualTo(100);
    assertThat(clock.now()).isEqualTo(Duration.ofSeconds(300 + 100));
    assertThat(clock.pendingTasks()).isEqualTo(1);
  }

  @Test
  void advanceWithANegativeDurationThrows() {
    assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("amount");
    assertThat(clock.now()).isEqualTo(Duration.ZERO);
  }

  @Test
  void aHugeDelayIsParkedAtTheEndOfTimeInsteadOfOverflowing() {
    clock.advance(Duration.ofSeconds(1));
    clock.schedule(Duration.ofSeconds(Long.MAX_VALUE), record("never"));
    clock.schedule(Duration.ofNanos(Long.MAX_VALUE), record("never either"));
    clock.advance(Duration.ofDays(365));
    assertThat(ran).isEmpty();
    assertThat(clock.pendingTasks()).isEqualTo(2);
    assertThat(clock.nextDeadline()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
  }
  @Test
  void thousandsOfTasksWithTiesAndCancelsRunInDeadlineThenSchedulingOrder() {
    // A reference model: sort the survivors by (deadline, order of scheduling). Few distinct
    // deadlines make many ties; cancelling from anywhere in the heap exercises its removal.
    SplittableRandom random = new SplittableRandom(7);
    List<long[]> expected = new ArrayList<>();
    List<Cancellable> toCancel = new ArrayList<>();
    List<Long> order = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      long deadline = random.nextInt(200);
      long id = i;
      Cancellable c = clock.schedule(Duration.ofMillis(deadline), () -> order.add(id));
      if (random.nextInt(3) == 0) {
        toCancel.add(c);
      } else {
        expected.add(new long[] {deadline, id});
      }
    }
    // Cancelled once all are in, so that most leave from the middle of the heap.
    toCancel.forEach(Cancellable::cancel);
    expected.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
    assertThat(clock.pendingTasks()).isEqualTo(expected.size());

    assertThat(clock.advance(Duration.ofSeconds(1))).isEqualTo(expected.size());

    assertThat(order).containsExactlyElementsOf(expected.stream().map(e -> e[1]).toList());
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void cancellingEveryOtherTaskLeavesNothingBehind() {
    List<Cancellable> handles = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      handles.add(clock.schedule(Duration.ofSeconds(1 + i % 7), record("t" + i)));
    }
    for (int i = 0; i < handles.size(); i += 2) {
      handles.get(i).cancel();
    }
    assertThat(clock.pendingTasks()).isEqualTo(500);
    handles.forEach(Cancellable::cancel);
    assertThat(clock.pendingTasks()).isZero();
    assertThat(clock.nextDeadline()).isNull();
    assertThat(clock.advance(Duration.ofSeconds(10))).isZero();
    assertThat(ran).isEmpty();
  }
  @Test
  void plusSaturatedAgreesWithTheDurationFormulaAtEveryEdge() {
    long max = Long.MAX_VALUE;
    long[] nows = {0, 1, 999_999_999, 1_000_000_000, 5_000_000_001L, max - 1_000_000_000L, max - 1,
        max, -1, -1_000_000_001L, Long.MIN_VALUE};
    List<Duration> delays = new ArrayList<>(List.of(Duration.ZERO, Duration.ofNanos(1),
        Duration.ofNanos(-1), Duration.ofSeconds(5), Duration.ofSeconds(Long.MAX_VALUE),
        Duration.ofSeconds(Long.MIN_VALUE), Duration.ofNanos(max)));
    for (long now : nows) {
      long room = max - now;
      for (long near = -2; near <= 2; near++) {
        delays.add(Duration.ofNanos(room).plusNanos(near));
      }
    }
    for (long now : nows) {
      for (Duration d : delays) {
        long expected =
            d.isNegative()
                ? now
                : d.compareTo(Duration.ofNanos(max - now)) >= 0 ? max : now + d.toNanos();
        assertThat(VirtualScheduler.plusSaturated(now, d))
            .as("%d + %s", now, d)
            .isEqualTo(expected);
      }
    }
  }
}
