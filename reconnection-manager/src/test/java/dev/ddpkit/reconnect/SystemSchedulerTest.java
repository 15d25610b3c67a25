package dev.ddpkit.reconnect;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = SECONDS)
class SystemSchedulerTest {

  @Test
  void runsTasksOnOneSharedNamedDaemonThread() throws InterruptedException {
    Scheduler scheduler = Scheduler.systemScheduler();
    assertThat(scheduler).isSameAs(Scheduler.systemScheduler());
    List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch ran = new CountDownLatch(2);
    scheduler.schedule(Duration.ZERO, () -> {
      threads.add(Thread.currentThread());
      ran.countDown();
    });
    scheduler.schedule(Duration.ofMillis(5), () -> {
      threads.add(Thread.currentThread());
      ran.countDown();
    });
    assertThat(ran.await(10, SECONDS)).isTrue();
    assertThat(threads).hasSize(2);
    assertThat(threads.get(0)).isSameAs(threads.get(1)).isNotSameAs(Thread.currentThread());
    assertThat(threads.get(0).getName()).isEqualTo("ddpkit-reconnect");
    assertThat(threads.get(0).isDaemon()).isTrue();
  }

  @Test
  void aCancelledTaskDoesNotRunAndAFailingTaskDoesNotKillTheThread() throws InterruptedException {
    Scheduler scheduler = Scheduler.systemScheduler();
    // The scheduler's one thread waits at this gate until the task is cancelled, so that a slow
    // machine cannot run the task before the cancel comes.
    CountDownLatch gate = new CountDownLatch(1);
    scheduler.schedule(Duration.ZERO, () -> {
      try {
        gate.await(10, SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    CountDownLatch never = new CountDownLatch(1);
    Cancellable c = scheduler.schedule(Duration.ofMillis(50), never::countDown);
    c.cancel();
    gate.countDown();
    scheduler.schedule(Duration.ZERO, () -> {
      throw new IllegalStateException("task bug (expected in this test)");
    });
    AtomicReference<String> after = new AtomicReference<>();
    CountDownLatch ran = new CountDownLatch(1);
    // Scheduled after the cancelled task's deadline: when it has run, the other one would have.
    scheduler.schedule(Duration.ofMillis(100), () -> {
      after.set(Thread.currentThread().getName());
      ran.countDown();
    });
    assertThat(ran.await(10, SECONDS)).isTrue();
    assertThat(after.get()).isEqualTo("ddpkit-reconnect");
    assertThat(never.getCount()).isEqualTo(1);
  }

  @Test
  void theThreadEndsWhenNothingIsScheduledAndComesBackForTheNextTask() throws Exception {
    Scheduler scheduler = Scheduler.systemScheduler();
    AtomicReference<Thread> first = new AtomicReference<>();
    CountDownLatch ran = new CountDownLatch(1);
    // A later task keeps the thread alive past the keep-alive time while it is queued.
    scheduler.schedule(Duration.ZERO, () -> first.set(Thread.currentThread()));
    scheduler.schedule(SystemScheduler.KEEP_ALIVE.plusMillis(500), ran::countDown);
    assertThat(ran.await(10, SECONDS)).isTrue();
    assertThat(first.get().getName()).isEqualTo("ddpkit-reconnect");

    // Then, idle, it ends (join with a timeout: no sleeping).
    first.get().join(SystemScheduler.KEEP_ALIVE.plusSeconds(5).toMillis());
    assertThat(first.get().isAlive()).isFalse();

    AtomicReference<Thread> second = new AtomicReference<>();
    CountDownLatch again = new CountDownLatch(1);
    scheduler.schedule(Duration.ZERO, () -> {
      second.set(Thread.currentThread());
      again.countDown();
    });
    assertThat(again.await(10, SECONDS)).isTrue();
    assertThat(second.get().getName()).isEqualTo("ddpkit-reconnect");
    assertThat(second.get().isDaemon()).isTrue();
  }

  @Test
  void aHugeDelayIsAcceptedAndCancelled() {
    Cancellable c =
        Scheduler.systemScheduler().schedule(Duration.ofSeconds(Long.MAX_VALUE), () -> { });
    c.cancel();
    assertThat(c).isNotNull();
  }
}
