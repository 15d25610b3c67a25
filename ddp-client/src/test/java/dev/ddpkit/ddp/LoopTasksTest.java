package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** execute() and schedule(): the user's tasks and timers on the client's event loop. */
@Timeout(value = 30, unit = SECONDS)
class LoopTasksTest {
  private final List<String> log = new CopyOnWriteArrayList<>();

  @Test
  void executeRunsTasksInTheOrderTheyWereGiven() {
    try (Harness h = new Harness()) {
      assertThat(h.client.execute(() -> log.add("a"))).isTrue();
      h.client.execute(() -> log.add("b"));
      h.client.execute(() -> log.add("c"));
      assertThat(log).containsExactly("a", "b", "c");
    }
  }

  @Test
  void executeFromAListenerIsQueuedBehindItNeverRunInside() {
    try (Harness h = new Harness()) {
      h.client.addStatusListener(s -> {
        if (s.state() == DdpStatus.State.CONNECTED) {
          h.client.execute(() -> log.add("task"));
          log.add("listener returns");
        }
      });
      h.connect("s1");
      assertThat(log).containsExactly("listener returns", "task");
    }
  }

  @Test
  void aCallOrSubscribeFromAListenerIsSentOnlyAfterTheListenerReturns() {
    // Issue 11: the loop never runs a task inside another, so the client's code is never
    // re-entered by a listener that calls it.
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      List<Integer> framesSeenInListener = new CopyOnWriteArrayList<>();
      h.client.addStreamListener("events", (collection, id, fields) -> {
        h.client.call("echo", 1);
        h.client.subscribe("room", "r1");
        framesSeenInListener.add(s1.drain().size());
      });

      s1.send("{'msg':'changed','collection':'events','id':'e1','fields':{'x':1}}");

      assertThat(framesSeenInListener).as("nothing sent while the listener ran").containsExactly(0);
      List<com.fasterxml.jackson.databind.JsonNode> sent = s1.drain();
      assertThat(sent).extracting(f -> f.path("msg").asText())
          .as("sent once it returned, in the order asked").containsExactly("method", "sub");
    }
  }

  @Test
  void aTaskThatThrowsDoesNotStopTheLoop() {
    try (Harness h = new Harness()) {
      h.client.execute(() -> {
        throw new IllegalStateException("boom");
      });
      h.client.execute(() -> log.add("next"));
      assertThat(log).containsExactly("next");
    }
  }

  @Test
  void aTimerRunsOnceItsDelayHasPassedOnTheSchedulersTime() {
    try (Harness h = new Harness()) {
      h.client.schedule(Duration.ofSeconds(5), () -> log.add("fired"));
      h.time.advance(Duration.ofMillis(4_999));
      assertThat(log).isEmpty();
      h.time.advance(Duration.ofMillis(1));
      assertThat(log).containsExactly("fired");
      h.time.advance(Duration.ofMinutes(1));
      assertThat(log).containsExactly("fired");
    }
  }

  @Test
  void timersDueAtTheSameTimeRunInTheOrderTheyWereScheduled() {
    try (Harness h = new Harness()) {
      h.client.schedule(Duration.ofSeconds(1), () -> log.add("first"));
      h.client.schedule(Duration.ofSeconds(1), () -> log.add("second"));
      h.client.schedule(Duration.ZERO, () -> log.add("now"));
      h.time.advance(Duration.ofSeconds(1));
      assertThat(log).containsExactly("now", "first", "second");
    }
  }

  @Test
  void aCancelledTimerNeverRuns() {
    try (Harness h = new Harness()) {
      Cancellable t = h.client.schedule(Duration.ofSeconds(1), () -> log.add("fired"));
      t.cancel();
      t.cancel(); // idempotent
      h.time.advance(Duration.ofSeconds(2));
      assertThat(log).isEmpty();
      assertThat(h.time.pendingTasks()).isZero();
    }
  }

  @Test
  void aTimerCancelledOnTheLoopAfterItFellDueDoesNotRun() {
    try (Harness h = new Harness()) {
      Cancellable t = h.client.schedule(Duration.ofSeconds(1), () -> log.add("fired"));
      h.client.execute(() -> {
        // The timer falls due while this task runs: its turn is queued behind this task.
        h.time.advance(Duration.ofSeconds(1));
        t.cancel();
        log.add("cancelled");
      });
      assertThat(log).containsExactly("cancelled");
    }
  }

  @Test
  void closeCancelsEveryTimerAndLaterOnesNeverRun() {
    Harness h = new Harness();
    h.client.schedule(Duration.ofSeconds(1), () -> log.add("a"));
    h.client.schedule(Duration.ofHours(1), () -> log.add("b"));
    int before = h.time.pendingTasks();

    h.client.close();

    assertThat(h.time.pendingTasks()).isEqualTo(before - 2);
    Cancellable late = h.client.schedule(Duration.ZERO, () -> log.add("late"));
    assertThat(h.client.execute(() -> log.add("task"))).isFalse();
    h.time.advance(Duration.ofHours(2));
    assertThat(log).isEmpty();
    late.cancel(); // harmless
  }

  @Test
  void aTimerCancelledByCloseWhileItsTurnWasQueuedDoesNotRun() {
    try (Harness h = new Harness()) {
      h.client.schedule(Duration.ofSeconds(1), () -> log.add("fired"));
      h.client.execute(() -> {
        h.time.advance(Duration.ofSeconds(1)); // queued behind this task
        h.client.close();
      });
      assertThat(log).isEmpty();
    }
  }

  @Test
  void tasksAndTimersRunOnTheSharedLoopPool() throws Exception {
    VirtualScheduler time = new VirtualScheduler();
    try (DdpClient client =
        DdpClient.builder()
            .url(Harness.URL)
            .name("loop-tasks-client")
            .scheduler(time)
            .transportFactory(new InMemoryTransportFactory())
            .build()) {
      CompletableFuture<String> task = new CompletableFuture<>();
      CompletableFuture<String> timer = new CompletableFuture<>();
      client.execute(() -> task.complete(Thread.currentThread().getName()));
      client.schedule(Duration.ofSeconds(3), () -> timer.complete(Thread.currentThread().getName()));
      assertThat(task.get(5, SECONDS)).startsWith(LoopPool.THREAD_PREFIX);
      time.advance(Duration.ofSeconds(3));
      assertThat(timer.get(5, SECONDS)).startsWith(LoopPool.THREAD_PREFIX);
    }
  }

  @Test
  void badArgumentsAreRefusedNamingTheField() {
    try (Harness h = new Harness()) {
      assertThatThrownBy(() -> h.client.schedule(Duration.ofMillis(-1), () -> {}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("delay");
      assertThatThrownBy(() -> h.client.schedule(null, () -> {}))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("delay");
      assertThatThrownBy(() -> h.client.execute(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("task");
    }
  }
}
