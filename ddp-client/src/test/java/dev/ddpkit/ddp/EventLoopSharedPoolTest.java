package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The event loop on the JVM's shared pool (the default): a client's tasks run on a pool thread,
 * one at a time and in order; a task submitted from a task is queued behind it, never run inside
 * it; a drain hands the pool back after {@link EventLoop#BATCH} tasks; a pool thread never waits
 * on a backlog. (Until issue 11 this class tested the direct mode, which the pool replaced.)
 */
@Timeout(value = 20, unit = SECONDS)
class EventLoopSharedPoolTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  /** An executor that only queues the loop's drains; the test runs them when it wants. */
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
  void tasksRunOnAPoolThreadInOrderNotOnTheCaller() throws Exception {
    EventLoop loop = EventLoop.shared("shared-test");
    List<String> ran = new CopyOnWriteArrayList<>();
    CompletableFuture<String> thread = new CompletableFuture<>();

    for (int i = 0; i < 100; i++) {
      int n = i;
      loop.execute(() -> ran.add("task " + n));
    }
    loop.executeInbound(() -> thread.complete(Thread.currentThread().getName()));

    assertThat(thread.get(PATIENCE.toSeconds(), SECONDS)).startsWith(LoopPool.THREAD_PREFIX);
    assertThat(ran).hasSize(100);
    for (int i = 0; i < 100; i++) {
      assertThat(ran.get(i)).isEqualTo("task " + i);
    }
    assertThat(loop.inLoop()).as("the caller is not the loop").isFalse();
  }

  @Test
  void aTaskFromAnotherThreadDoesNotWaitForTheDrain() throws Exception {
    EventLoop loop = EventLoop.shared("shared-test");
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    loop.execute(() -> {
      running.countDown();
      awaitLatch(release);
      ran.add("first");
    });
    awaitLatch(running);

    // A user's call (execute, not executeInbound) is queued and returns at once.
    CompletableFuture<String> second = new CompletableFuture<>();
    assertThat(loop.execute(() -> {
      ran.add("second");
      second.complete(Thread.currentThread().getName());
    })).isTrue();
    assertThat(ran).isEmpty();

    release.countDown();
    assertThat(second.get(PATIENCE.toSeconds(), SECONDS)).startsWith(LoopPool.THREAD_PREFIX);
    assertThat(ran).containsExactly("first", "second");
  }

  @Test
  void aTaskSubmittedFromInsideTheLoopIsQueuedNotRunInline() throws Exception {
    // A transport may report synchronously from a call made on the loop (closeConnection calls
    // onClose on the calling thread), and a listener may call the client: both are queued.
    EventLoop loop = EventLoop.shared("shared-test");
    List<String> ran = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);

    loop.execute(() -> {
      loop.executeInbound(() -> {
        ran.add("nested inbound");
        done.countDown();
      });
      loop.execute(() -> ran.add("nested"));
      ran.add("outer");
    });
    awaitLatch(done);

    await().atMost(PATIENCE).until(() -> ran.size() == 3);
    assertThat(ran).containsExactly("outer", "nested inbound", "nested");
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
  void aLongDrainHandsThePoolBackAfterOneBatch() {
    HeldExecutor pool = new HeldExecutor();
    EventLoop busy = EventLoop.pooled("busy", pool);
    EventLoop other = EventLoop.pooled("other", pool);
    List<String> ran = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 2 * EventLoop.BATCH + 1; i++) {
      busy.execute(() -> ran.add("busy"));
    }
    other.execute(() -> ran.add("other"));

    pool.take().run(); // busy's drain: one batch, then it queues itself behind other's
    assertThat(ran).hasSize(EventLoop.BATCH).containsOnly("busy");
    pool.take().run(); // other's drain
    assertThat(ran).hasSize(EventLoop.BATCH + 1).endsWith("other");
    pool.take().run();
    pool.take().run();
    assertThat(ran).hasSize(2 * EventLoop.BATCH + 2);
    assertThat(pool.take()).as("the queue is empty: no drain left").isNull();
    assertThat(busy.execute(() -> ran.add("later"))).isTrue();
    pool.take().run();
    assertThat(ran).endsWith("later");
  }

  @Test
  void aLongDrainKeepsItsThreadWhileNoOtherDrainWaits() {
    HeldExecutor pool = new HeldExecutor();
    boolean[] othersWaiting = {false};
    EventLoop busy = EventLoop.pooled("busy", pool, () -> othersWaiting[0]);
    List<String> ran = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 3 * EventLoop.BATCH + 1; i++) {
      busy.execute(() -> ran.add("busy"));
    }
    pool.take().run(); // nobody else waits: the whole backlog in one drain
    assertThat(ran).hasSize(3 * EventLoop.BATCH + 1);
    assertThat(pool.take()).as("the drain did not queue itself again").isNull();

    othersWaiting[0] = true;
    for (int i = 0; i < EventLoop.BATCH + 1; i++) {
      busy.execute(() -> ran.add("busy"));
    }
    pool.take().run(); // another drain waits: one batch, then the thread goes back
    assertThat(ran).hasSize(4 * EventLoop.BATCH + 1);
    pool.take().run();
    assertThat(ran).hasSize(4 * EventLoop.BATCH + 2);
  }

  @Test
  void aPoolThreadNeverWaitsOnABacklog() throws Exception {
    HeldExecutor held = new HeldExecutor();
    EventLoop loop = EventLoop.on("backlog-from-pool", held);
    AtomicInteger submitted = new AtomicInteger();
    CompletableFuture<Void> done = new CompletableFuture<>();
    // Another client's task, on a pool thread, feeding this loop far past its bound.
    LoopPool.shared().execute(() -> {
      for (int i = 0; i < EventLoop.MAX_QUEUED + 10; i++) {
        loop.executeInbound(() -> { });
        submitted.incrementAndGet();
      }
      done.complete(null);
    });

    done.get(PATIENCE.toSeconds(), SECONDS);
    assertThat(submitted.get()).isEqualTo(EventLoop.MAX_QUEUED + 10);
  }

  @Test
  void afterShutdownNothingIsAcceptedAndNothingWaits() throws Exception {
    EventLoop loop = EventLoop.shared("shared-test");
    loop.shutdown();
    AtomicBoolean ran = new AtomicBoolean();

    assertThat(loop.executeInbound(() -> ran.set(true))).isFalse();
    assertThat(loop.execute(() -> ran.set(true))).isFalse();
    assertThat(loop.awaitTermination(Duration.ofSeconds(1))).isTrue();
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
