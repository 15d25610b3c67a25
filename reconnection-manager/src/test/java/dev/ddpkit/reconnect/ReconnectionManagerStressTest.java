package dev.ddpkit.reconnect;

import static dev.ddpkit.reconnect.ReconnectionManager.State.CONNECTED;
import static dev.ddpkit.reconnect.ReconnectionManager.State.CONNECTING;
import static dev.ddpkit.reconnect.ReconnectionManager.State.HELD;
import static dev.ddpkit.reconnect.ReconnectionManager.State.IDLE;
import static dev.ddpkit.reconnect.ReconnectionManager.State.STOPPED;
import static dev.ddpkit.reconnect.ReconnectionManager.State.WAITING;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.reconnect.ReconnectionManager.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * Real threads hammer one manager on the real {@link SystemScheduler} with every report at once,
 * while its timers fire every millisecond. Afterwards the record must show: at most one timer
 * pending at any moment, the connector and the listeners never running concurrently, every dial
 * right after its own CONNECTING, only legal transitions, and a consistent final state.
 */
@Timeout(value = 60, unit = SECONDS)
class ReconnectionManagerStressTest {
  private static final int THREADS = 4;
  private static final int OPS_PER_THREAD = 20_000;

  /** Which state may follow which when no 4401 is reported and no stop until the end. */
  private static final Map<State, Set<State>> LEGAL =
      Map.of(
          IDLE, EnumSet.of(CONNECTING, HELD, STOPPED),
          // Same-state events re-announce a change of the offline flag (or, when connected,
          // that the connection became stable).
          CONNECTING, EnumSet.of(CONNECTING, CONNECTED, WAITING, HELD, STOPPED),
          CONNECTED, EnumSet.of(CONNECTED, WAITING, HELD, STOPPED),
          WAITING, EnumSet.of(CONNECTING, HELD, STOPPED),
          HELD, EnumSet.of(HELD, CONNECTING, STOPPED),
          STOPPED, EnumSet.noneOf(State.class));

  /**
   * Wraps the system scheduler, counting timers scheduled and neither run nor cancelled yet. A
   * timer is settled (by firing or by its cancel) and uncounted in one step under {@code count}:
   * with a separate flag and counter, a timer that had just begun to fire but was not yet
   * uncounted would be seen alongside the manager's next one, a second live timer that the manager
   * never had (the old one's task finds its generation superseded and does nothing).
   */
  private static final class CountingScheduler implements Scheduler {
    private final Object count = new Object();
    private int live; // guarded by count
    private int maxLive; // guarded by count
    private int scheduled; // guarded by count

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
      boolean[] settled = {false}; // guarded by count
      synchronized (count) {
        live++;
        maxLive = Math.max(maxLive, live);
        scheduled++;
      }
      Cancellable c =
          Scheduler.systemScheduler()
              .schedule(
                  delay,
                  () -> {
                    if (settle(settled)) {
                      task.run();
                    }
                  });
      return () -> {
        if (settle(settled)) {
          c.cancel();
        }
      };
    }

    private boolean settle(boolean[] settled) {
      synchronized (count) {
        if (settled[0]) {
          return false;
        }
        settled[0] = true;
        live--;
        return true;
      }
    }

    int live() {
      synchronized (count) {
        return live;
      }
    }

    int maxLive() {
      synchronized (count) {
        return maxLive;
      }
    }

    int scheduled() {
      synchronized (count) {
        return scheduled;
      }
    }
  }

  @RepeatedTest(3)
  void manyThreadsReportingAtOnceNeverLeaveTwoTimersOrTwoDials() throws Exception {
    CountingScheduler scheduler = new CountingScheduler();
    ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    AtomicInteger inCallback = new AtomicInteger();
    AtomicInteger dials = new AtomicInteger();
    CountDownLatch stopped = new CountDownLatch(1);
    CountDownLatch dialedAfterTheStorm = new CountDownLatch(1);
    AtomicBoolean stormOver = new AtomicBoolean();

    ReconnectionManager m =
        ReconnectionManager.builder()
            .scheduler(scheduler)
            .backoff(Backoff.fullJitter(Duration.ofMillis(1), Duration.ofMillis(2)))
            .stableAfter(Duration.ofMillis(1))
            .name("stress")
            .build();
    m.addListener(
        s -> {
          if (inCallback.incrementAndGet() != 1) {
            violations.add("listener ran concurrently with another callback: " + s);
          }
          log.add(ReconnectRecorder.describe(s));
          if (s.state() == STOPPED) {
            stopped.countDown();
          }
          inCallback.decrementAndGet();
        });
    // The reporters act as the latest socket would; a report on an overtaken one is a no-op.
    AtomicReference<Attempt> latest = new AtomicReference<>();
    Connector connector =
        attempt -> {
          if (inCallback.incrementAndGet() != 1) {
            violations.add("connector ran concurrently with another callback: " + attempt);
          }
          latest.set(attempt);
          log.add("dial #" + attempt.number());
          inCallback.decrementAndGet();
          if (stormOver.get()) {
            dialedAfterTheStorm.countDown();
          }
          if (dials.incrementAndGet() % 3 == 0) {
            // Every third dial fails at once: the manager must close that attempt, not a newer one.
            throw new java.io.IOException("refused");
          }
        };

    m.start(connector);
    // How many timers a storm schedules depends on the interleaving, as its dials do: a drop
    // reported while the network is lost, or overtaken by an available network's immediate dial,
    // schedules none. So storms follow each other until they have scheduled more than 10 (at
    // most 20 storms); every invariant below holds over all of them.
    for (int round = 0; round == 0 || (scheduler.scheduled() <= 10 && round < 20); round++) {
      CountDownLatch go = new CountDownLatch(1);
      CountDownLatch done = new CountDownLatch(THREADS);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        Random r = new Random(t + (long) round * THREADS); // round 0: the seeds of before
        Thread thread =
            new Thread(
                () -> {
                  try {
                    go.await();
                    for (int i = 0; i < OPS_PER_THREAD; i++) {
                      switch (r.nextInt(7)) {
                        case 0, 1 -> latest.get().closed(CloseCodes.ABNORMAL, "");
                        case 2, 3 -> m.networkAvailable();
                        case 4, 5 -> latest.get().opened();
                        case 6 -> m.networkLost();
                        default -> throw new AssertionError();
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } finally {
                    done.countDown();
                  }
                },
                "stress-reporter-" + t);
        threads.add(thread);
        thread.start();
      }
      go.countDown();
      assertThat(done.await(30, SECONDS)).as("reporters finished").isTrue();
      for (Thread thread : threads) {
        thread.join(SECONDS.toMillis(10));
        assertThat(thread.isAlive()).isFalse();
      }
    }
    // Still alive after the storm, whatever state it left: a drop is redialed. (How many dials the
    // storm itself made depends on the interleaving: a queued dial whose generation was
    // superseded before it ran is rightly not made, and under load most of them can be.)
    stormOver.set(true);
    m.networkAvailable();
    latest.get().opened();
    latest.get().closed(CloseCodes.ABNORMAL, "");
    assertThat(dialedAfterTheStorm.await(10, SECONDS)).as("dialed after the storm").isTrue();
    m.stop();
    assertThat(stopped.await(10, SECONDS)).as("STOPPED delivered").isTrue();

    assertThat(violations).isEmpty();
    assertThat(scheduler.maxLive()).as("timers pending at once").isEqualTo(1);
    assertThat(scheduler.live()).as("timers left after stop").isZero();
    assertThat(m.status().state()).isEqualTo(STOPPED);

    List<String> events = new ArrayList<>(log);
    assertThat(events.get(events.size() - 1)).isEqualTo(ReconnectRecorder.describe(m.status()));
    State previous = IDLE;
    String previousEvent = "";
    boolean dialOutstanding = false;
    for (String e : events) {
      if (e.startsWith("dial #")) {
        String attempt = e.substring("dial ".length());
        assertThat(previousEvent).as("event before %s", e).startsWith("CONNECTING " + attempt);
        assertThat(dialOutstanding).as("a dial still outstanding before %s", e).isFalse();
        dialOutstanding = true;
      } else {
        State next = State.valueOf(e.substring(0, e.indexOf(' ')));
        assertThat(LEGAL.get(previous)).as("%s -> %s", previous, e).contains(next);
        previous = next;
        dialOutstanding &= next == CONNECTING;
      }
      previousEvent = e;
    }
    assertThat(dials.get()).as("dials").isGreaterThan(1);
    assertThat(scheduler.scheduled()).as("timers").isGreaterThan(10);
  }
}
