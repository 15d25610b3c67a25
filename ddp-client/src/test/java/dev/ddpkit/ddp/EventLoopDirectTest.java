package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The direct event loop: tasks run on the submitting thread, one at a time and in order; a frame
 * submitted while another thread drains waits on its own (socket) thread until that drain has run
 * it, so a drain started by a timer thread is never kept busy by a stream of frames.
 */
@Timeout(value = 20, unit = SECONDS)
class EventLoopDirectTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  @Test
  void anIdleLoopRunsTheTaskOnTheCallingThreadBeforeReturning() {
    EventLoop loop = EventLoop.direct("direct-test");
    List<String> ran = new CopyOnWriteArrayList<>();

    loop.execute(() -> ran.add(Thread.currentThread().getName()));
    loop.executeInbound(() -> ran.add("inbound on " + Thread.currentThread().getName()));

    String me = Thread.currentThread().getName();
    assertThat(ran).containsExactly(me, "inbound on " + me);
    assertThat(loop.isDirect()).isTrue();
    assertThat(loop.inLoop()).as("not in the loop once the drain is over").isFalse();
  }

  @Test
  void aFrameSubmittedWhileAnotherThreadDrainsWaitsUntilThatThreadHasRunIt() throws Exception {
    EventLoop loop = EventLoop.direct("direct-test");
    CountDownLatch timerTaskRunning = new CountDownLatch(1);
    CountDownLatch releaseTimerTask = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    Thread timer = thread("fake-scheduler", () -> loop.execute(() -> {
      timerTaskRunning.countDown();
      awaitLatch(releaseTimerTask);
      ran.add("timer task");
    }));
    timer.start();
    awaitLatch(timerTaskRunning);

    AtomicBoolean returned = new AtomicBoolean();
    Thread reader = thread("fake-ws-read", () -> {
      loop.executeInbound(() -> ran.add("frame on " + Thread.currentThread().getName()));
      returned.set(true);
    });
    reader.start();
    // The reader waits (parked in the loop's monitor) while the timer thread is busy.
    await().atMost(PATIENCE).until(() -> reader.getState() == Thread.State.WAITING
        || returned.get());
    assertThat(returned).isFalse();
    assertThat(ran).isEmpty();

    releaseTimerTask.countDown();
    reader.join(PATIENCE.toMillis());
    timer.join(PATIENCE.toMillis());

    assertThat(returned).isTrue();
    assertThat(ran).containsExactly("timer task", "frame on fake-scheduler");
    assertThat(reader.isAlive() || timer.isAlive()).isFalse();
  }

  @Test
  void aTaskFromAnotherThreadDoesNotWaitForTheDrain() throws Exception {
    EventLoop loop = EventLoop.direct("direct-test");
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    Thread drainer = thread("drainer", () -> loop.execute(() -> {
      running.countDown();
      awaitLatch(release);
      ran.add("first");
    }));
    drainer.start();
    awaitLatch(running);

    // A user's call (execute, not executeInbound) is queued and returns at once.
    assertThat(loop.execute(() -> ran.add("second on " + Thread.currentThread().getName())))
        .isTrue();
    assertThat(ran).isEmpty();

    release.countDown();
    drainer.join(PATIENCE.toMillis());
    assertThat(ran).containsExactly("first", "second on drainer");
  }

  @Test
  void aFrameSubmittedFromInsideTheLoopIsQueuedNotAwaited() {
    // A transport may report synchronously from a call made on the loop (closeConnection calls
    // onClose on the calling thread): waiting for its own drain would deadlock.
    EventLoop loop = EventLoop.direct("direct-test");
    List<String> ran = new CopyOnWriteArrayList<>();

    loop.execute(() -> {
      loop.executeInbound(() -> ran.add("nested"));
      ran.add("outer");
    });

    assertThat(ran).containsExactly("outer", "nested");
  }

  @Test
  void onAnExecutorAnInboundTaskNeverWaits() throws Exception {
    EventLoop loop = EventLoop.on("executor-test", Runnable::run);
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    Thread drainer = thread("drainer", () -> loop.execute(() -> {
      running.countDown();
      awaitLatch(release);
      ran.add("first");
    }));
    drainer.start();
    awaitLatch(running);

    assertThat(loop.executeInbound(() -> ran.add("frame"))).isTrue(); // returns at once
    assertThat(ran).isEmpty();

    release.countDown();
    drainer.join(PATIENCE.toMillis());
    assertThat(ran).containsExactly("first", "frame");
  }

  @Test
  void afterShutdownNothingIsAcceptedAndNothingWaits() {
    EventLoop loop = EventLoop.direct("direct-test");
    loop.shutdown();
    AtomicBoolean ran = new AtomicBoolean();

    assertThat(loop.executeInbound(() -> ran.set(true))).isFalse();
    assertThat(loop.execute(() -> ran.set(true))).isFalse();
    assertThat(ran).isFalse();
  }

  private static Thread thread(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    return t;
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      if (!latch.await(PATIENCE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
        throw new AssertionError("latch not released within " + PATIENCE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
