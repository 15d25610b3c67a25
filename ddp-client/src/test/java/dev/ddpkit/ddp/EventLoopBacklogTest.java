package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The loop's backlog is bounded: past {@link EventLoop#MAX_QUEUED} queued tasks, the socket's
 * reader waits for the loop instead of queueing frames without limit; user tasks never wait.
 */
@Timeout(value = 30, unit = SECONDS)
class EventLoopBacklogTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  /** An executor that only queues the loop's drain; the test runs it when it wants. */
  private static final class HeldExecutor implements Executor {
    private final ArrayDeque<Runnable> held = new ArrayDeque<>();

    @Override
    public synchronized void execute(Runnable r) {
      held.add(r);
    }

    synchronized Runnable take() {
      return held.poll();
    }
  }

  @Test
  void aReaderPastTheBoundWaitsUntilTheLoopHasWorkedDownToHalf() throws Exception {
    HeldExecutor executor = new HeldExecutor();
    EventLoop loop = EventLoop.on("backlog", executor);
    AtomicInteger ran = new AtomicInteger();
    AtomicInteger submitted = new AtomicInteger();
    Thread reader = new Thread(() -> {
      for (int i = 0; i < EventLoop.MAX_QUEUED + 10; i++) {
        loop.executeInbound(ran::incrementAndGet);
        submitted.incrementAndGet();
      }
    }, "backlog-reader");
    reader.start();

    await().atMost(PATIENCE).until(() -> reader.getState() == Thread.State.WAITING);
    assertThat(submitted.get()).as("stopped right past the bound").isEqualTo(EventLoop.MAX_QUEUED);
    assertThat(loop.execute(ran::incrementAndGet)).as("a user task is still taken").isTrue();

    Runnable drain = executor.take();
    assertThat(drain).isNotNull();
    Thread drainer = new Thread(drain, "backlog-drainer");
    drainer.start();
    reader.join(PATIENCE.toMillis());
    drainer.join(PATIENCE.toMillis());
    assertThat(reader.isAlive()).isFalse();
    assertThat(drainer.isAlive()).isFalse();
    assertThat(submitted.get()).isEqualTo(EventLoop.MAX_QUEUED + 10);
    // Whatever the drainer had not run when the reader's last submissions came is run by it too,
    // or by a drain it scheduled (none: it was still scheduled).
    Runnable rest = executor.take();
    if (rest != null) {
      rest.run();
    }
    assertThat(ran.get()).as("every task ran once").isEqualTo(EventLoop.MAX_QUEUED + 11);
  }

  @Test
  void shuttingTheLoopDownReleasesAWaitingReader() {
    HeldExecutor executor = new HeldExecutor();
    EventLoop loop = EventLoop.on("backlog-shutdown", executor);
    Thread reader = new Thread(() -> {
      for (int i = 0; i <= EventLoop.MAX_QUEUED; i++) {
        loop.executeInbound(() -> { });
      }
    }, "backlog-reader-2");
    reader.start();
    await().atMost(PATIENCE).until(() -> reader.getState() == Thread.State.WAITING);

    loop.shutdown();

    await().atMost(PATIENCE).until(() -> !reader.isAlive());
  }
}
