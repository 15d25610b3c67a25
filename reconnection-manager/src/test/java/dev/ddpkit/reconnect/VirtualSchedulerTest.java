package dev.ddpkit.reconnect;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
}
