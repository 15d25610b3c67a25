package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (review): when the delegate executor rejected the loop's drain, {@code execute}
 * cleared the whole queue, dropping tasks it had already accepted from other threads (such as
 * {@code close()}'s engine shutdown), which left futures hanging and sockets open.
 */
@Timeout(value = 30, unit = SECONDS)
class EventLoopRejectionKeepsAcceptedTasksTest {

  @Test
  void aTaskAcceptedWhileAnotherThreadsDrainIsRejectedStillRuns() throws Exception {
    CountDownLatch inExecute = new CountDownLatch(1);
    CountDownLatch otherQueued = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    EventLoop loop = EventLoop.on("t", r -> {
      if (calls.incrementAndGet() == 1) {
        inExecute.countDown();
        try {
          otherQueued.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        throw new RejectedExecutionException("pool saturated / shut down");
      }
      r.run();
    });
    List<String> ran = new CopyOnWriteArrayList<>();
    Thread a = new Thread(() -> loop.execute(() -> ran.add("first")), "frame-delivery");
    a.start();
    inExecute.await();
    boolean accepted = loop.execute(() -> ran.add("shutdown")); // e.g. close() -> engine::shutdown
    otherQueued.countDown();
    a.join();

    assertThat(accepted).isTrue();
    assertThat(ran).as("every task execute() accepted runs, in order")
        .containsExactly("first", "shutdown");
    assertThat(loop.execute(() -> ran.add("later"))).isTrue();
    assertThat(ran).as("the loop goes on with the executor").endsWith("later");
  }

  @Test
  void theSharedLoopRunsWhatWasAcceptedBeforeShutdownThenEnds() throws Exception {
    EventLoop loop = EventLoop.shared("event-loop-shutdown-test");
    CountDownLatch release = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    assertThat(loop.execute(() -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ran.add("first");
    })).isTrue();
    assertThat(loop.execute(() -> ran.add("second"))).isTrue();

    loop.shutdown();
    assertThat(loop.execute(() -> ran.add("after shutdown"))).isFalse();
    release.countDown();

    assertThat(loop.awaitTermination(Duration.ofSeconds(10))).isTrue();
    assertThat(ran).containsExactly("first", "second");
  }

  @Test
  void anIdleSharedLoopEndsAtOnceOnShutdown() throws Exception {
    EventLoop loop = EventLoop.shared("event-loop-idle-test");
    CountDownLatch ran = new CountDownLatch(1);
    loop.execute(ran::countDown);
    ran.await();

    loop.shutdown();

    assertThat(loop.awaitTermination(Duration.ofSeconds(10))).isTrue();
  }
}
