package dev.ddpkit.reconnect;

import static dev.ddpkit.reconnect.ReconnectionManager.State.CONNECTED;
import static dev.ddpkit.reconnect.ReconnectionManager.State.CONNECTING;
import static dev.ddpkit.reconnect.ReconnectionManager.State.HELD;
import static dev.ddpkit.reconnect.ReconnectionManager.State.IDLE;
import static dev.ddpkit.reconnect.ReconnectionManager.State.STOPPED;
import static dev.ddpkit.reconnect.ReconnectionManager.State.WAITING;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The state machine on virtual time, as transcripts of what the connector and a listener saw. */
@Timeout(value = 10, unit = SECONDS)
class ReconnectionManagerTest {
  private final VirtualScheduler clock = new VirtualScheduler();
  private final ReconnectRecorder rec = new ReconnectRecorder(clock);
  private RecordingRandom samples = RecordingRandom.constant(0.5);

  /** RFC curve, DDP profile, stable after 10 s; sample 0.5, so delays are 1250, 2500, 5000 ms... */
  private ReconnectionManager.Builder builder() {
    return ReconnectionManager.builder()
        .scheduler(clock)
        .random(samples)
        .listener(rec)
        .credentialsRefresher(rec.refresher())
        .name("test");
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  private ReconnectionManager startAndOpen(ReconnectionManager m) {
    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    rec.attempt().opened();
    rec.expect("CONNECTED #0");
    return m;
  }

  // ---- backoff on the curve, reset only when stable ----

  @Test
  void serverThatAcceptsThenDropsTwentyTimesIsBackedOffUpTheCurve() {
    samples = RecordingRandom.seeded(20_260_101);
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    Duration last = Duration.ZERO;
    for (int n = 1; n <= 20; n++) {
      rec.attempt().opened();
      rec.expectStatus(CONNECTED, n - 1);
      rec.attempt().closed(CloseCodes.ABNORMAL, "");

      ReconnectStatus waiting = rec.expectStatus(WAITING, n);
      Duration expected = Backoff.rfc().delay(n, samples.last());
      assertThat(waiting.delay()).as("delay of attempt %d", n).isEqualTo(expected);
      assertThat(waiting.nextAttemptAtNanos()).isEqualTo(clock.read() + expected.toNanos());
      assertThat(clock.pendingTasks()).isEqualTo(1);

      clock.advance(expected.minusNanos(1));
      rec.assertExhausted();
      clock.advance(Duration.ofNanos(1));
      rec.expectStatus(CONNECTING, n);
      rec.expectDial(n);
      last = expected;
    }
    // Not reset by any of the twenty opens: the last waits are on the 60-90 s plateau.
    assertThat(last).isBetween(Duration.ofSeconds(60), Duration.ofSeconds(90));
    rec.assertExhausted();
  }

  @Test
  void counterResetsOnlyAfterTheConnectionStayedUpStableAfter() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #1 delay=1250ms at=1250ms (closed 1006)");
    clock.advance(ms(1250));
    rec.expect("CONNECTING #1 delay=1250ms (closed 1006)", "dial #1 at=1250ms");
    rec.attempt().opened();
    rec.expect("CONNECTED #1 delay=1250ms");

    // Up 9.9 s: not stable yet, the next drop goes on up the curve.
    clock.advance(ms(9_900));
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #2 delay=2500ms at=13650ms (closed 1006)");
    clock.advance(ms(2500));
    rec.expect("CONNECTING #2 delay=2500ms (closed 1006)", "dial #2 at=13650ms");
    rec.attempt().opened();
    rec.expect("CONNECTED #2 delay=2500ms");

    // Up 10 s: stable, the counter is back to 0 and the timer is gone.
    clock.advance(ms(9_999));
    rec.assertExhausted();
    clock.advance(ms(1));
    rec.expect("CONNECTED #0");
    assertThat(clock.pendingTasks()).isZero();

    clock.advance(Duration.ofMinutes(5));
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #1 delay=1250ms at=324900ms (closed 1006)");
    rec.assertExhausted();
  }

  @Test
  void stableAfterIsConfigurable() {
    ReconnectionManager m = startAndOpen(builder().stableAfter(Duration.ofSeconds(30)).build());
    clock.advance(Duration.ofSeconds(10));
    rec.assertExhausted();
    clock.advance(Duration.ofSeconds(20));
    rec.expect("CONNECTED #0");
    assertThat(m.status().state()).isEqualTo(CONNECTED);
    rec.assertExhausted();
  }

  // ---- one timer, one dial per wait ----

  @Test
  void aSecondCloseReportIsIgnored() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.attempt().closed(CloseCodes.POLICY_VIOLATION, "late and wrong");
    rec.expect("WAITING #1 delay=1250ms at=1250ms (closed 1006)");
    assertThat(clock.pendingTasks()).isEqualTo(1);
    clock.advance(Duration.ofMinutes(1));
    rec.expect("CONNECTING #1 delay=1250ms (closed 1006)", "dial #1 at=1250ms");
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  @ParameterizedTest(name = "kick scheduled before the close: {0}")
  @ValueSource(booleans = {true, false})
  void networkAvailableAtExactlyTheTimersDeadlineDialsOnce(boolean kickFirst) {
    ReconnectionManager m = startAndOpen(builder().backoff(Backoff.fixed(ms(1000))).build());
    // Equal deadlines run in the order they were scheduled, so this puts the kick just before
    // or just after the manager's own timer, at the same instant.
    if (kickFirst) {
      clock.schedule(ms(1000), m::networkAvailable);
    }
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    if (!kickFirst) {
      clock.schedule(ms(1000), m::networkAvailable);
    }
    clock.advance(ms(1000));
    rec.expect(
        "WAITING #1 delay=1000ms at=1000ms (closed 1006)",
        "CONNECTING #1 delay=1000ms (closed 1006)",
        "dial #1 at=1000ms");
    assertThat(clock.pendingTasks()).isZero();
    clock.advance(Duration.ofMinutes(1));
    assertThat(rec.dials()).containsExactly(0, 1);
    rec.assertExhausted();
  }

  @Test
  void anOpenedFromAStaleAttemptIsIgnored() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().opened(); // twice: no second stable timer
    assertThat(clock.pendingTasks()).isEqualTo(1);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #1 delay=1250ms at=1250ms (closed 1006)");
    rec.attempt().opened(); // the old socket, late
    assertThat(m.status().state()).isEqualTo(WAITING);
    assertThat(clock.pendingTasks()).isEqualTo(1);
    clock.advance(ms(1250));
    rec.expect("CONNECTING #1 delay=1250ms (closed 1006)", "dial #1 at=1250ms");
    rec.assertExhausted();
  }

  // Issue 11: reports carried nothing, so a late onClose from an earlier socket was charged to
  // the current connection. They are now made on the attempt, and an overtaken one is a no-op.
  @Test
  void lateReportsFromAnEarlierAttemptAreIgnored() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    Attempt first = rec.attempt();
    first.opened();
    first.closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(1250));
    rec.expect(
        "CONNECTED #0",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=1250ms");
    Attempt second = rec.attempt();
    assertThat(second.number()).isEqualTo(1);
    assertThat(first.isCurrent()).isFalse();
    assertThat(second.isCurrent()).isTrue();

    // The first socket's callbacks arrive late, while the second is dialing: none counts.
    first.opened();
    first.closed(CloseCodes.ABNORMAL, "late");
    first.failed(new IOException("late"));
    assertThat(m.status().state()).isEqualTo(CONNECTING);
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();

    second.opened();
    rec.expect("CONNECTED #1 delay=1250ms");
    // ... and while it is connected: a late close with a stopping code would have ended it.
    first.closed(CloseCodes.POLICY_VIOLATION, "late and wrong");
    assertThat(m.status().state()).isEqualTo(CONNECTED);
    clock.advance(Duration.ofSeconds(10));
    rec.expect("CONNECTED #0");
    second.closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #1 delay=1250ms at=12500ms (closed 1006)");
    rec.assertExhausted();
  }

  @Test
  void reportsOnAnAttemptMadeBeforeAStopAreIgnoredEvenAfterARestart() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    Attempt beforeStop = rec.attempt();
    m.stop();
    assertThat(beforeStop.isCurrent()).isFalse();
    beforeStop.opened();
    rec.expect("CONNECTING #0", "dial #0 at=0ms", "STOPPED #0 (stopped by client)");
    rec.assertExhausted();

    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    // The new attempt has the same number, but it is not the same attempt.
    assertThat(rec.attempt().number()).isEqualTo(beforeStop.number());
    beforeStop.opened();
    beforeStop.closed(CloseCodes.POLICY_VIOLATION, "");
    assertThat(m.status().state()).isEqualTo(CONNECTING);
    rec.attempt().opened();
    rec.expect("CONNECTED #0");
    rec.assertExhausted();
  }

  @Test
  void failedReportsAnAbnormalCloseNamingTheError() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.attempt().failed(new IOException("connection refused"));
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006 failed: IOException)");
    assertThat(m.status().lastCloseCode()).isEqualTo(CloseCodes.ABNORMAL);
    rec.assertExhausted();
  }

  @Test
  void aTimerThatLostTheRaceWithItsCancelDoesNothing() {
    // A real scheduler cannot cancel a task that has already started: this one never cancels.
    Scheduler neverCancels =
        new Scheduler() {
          @Override
          public Cancellable schedule(Duration delay, Runnable task) {
            clock.schedule(delay, task);
            return () -> {};
          }

          @Override
          public long nanoTime() {
            return clock.nanoTime();
          }
        };
    ReconnectionManager m = builder().scheduler(neverCancels).build();
    startAndOpen(m); // stable timer S1 due at 10 s
    clock.advance(ms(1000));
    rec.attempt().closed(CloseCodes.ABNORMAL, ""); // dial timer T1 due at 2.25 s
    rec.expect("WAITING #1 delay=1250ms at=2250ms (closed 1006)");
    clock.advance(ms(500));
    m.networkAvailable();
    rec.expect("CONNECTING #1 delay=1250ms (closed 1006)", "dial #1 at=1500ms");
    rec.attempt().opened(); // stable timer S2 due at 11.5 s
    rec.expect("CONNECTED #1 delay=1250ms");

    clock.advance(ms(1000)); // T1 fires: stale, must not dial
    clock.advance(ms(7750)); // S1 fires at 10 s: stale, must not declare the connection stable
    rec.assertExhausted();
    clock.advance(ms(1500)); // S2 fires at 11.5 s
    rec.expect("CONNECTED #0");
    assertThat(rec.dials()).containsExactly(0, 1);
    rec.assertExhausted();
  }

  @Test
  void networkAvailableWhileWaitingDialsOnceAtOnceAndKeepsTheCounter() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(1250));
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=1250ms",
        "WAITING #2 delay=2500ms at=3750ms (closed 1006)");

    clock.advance(ms(100));
    m.networkAvailable();
    rec.expect("CONNECTING #2 delay=2500ms (closed 1006)", "dial #2 at=1350ms");
    assertThat(clock.pendingTasks()).isZero();
    m.networkAvailable();
    m.resume();
    m.networkAvailable();
    clock.advance(Duration.ofMinutes(1));
    rec.assertExhausted();

    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #3 delay=5000ms at=66350ms (closed 1006)");
    rec.assertExhausted();
  }

  @Test
  void networkAvailableOutsideAWaitDoesNothing() {
    ReconnectionManager m = builder().build();
    m.networkAvailable();
    assertThat(m.status().state()).isEqualTo(IDLE);
    m.start(rec);
    m.networkAvailable();
    rec.attempt().opened();
    m.networkAvailable();
    rec.expect("CONNECTING #0", "dial #0 at=0ms", "CONNECTED #0");
    assertThat(clock.pendingTasks()).isEqualTo(1);
    rec.assertExhausted();
  }

  /**
   * Random interleavings of every report and of time: after each step at most one timer is
   * pending (exactly one while waiting, none while connecting, held or stopped), the last status a
   * listener saw is the manager's status, and every dial comes right after its own CONNECTING.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 2026})
  void oneTimerAndOneDialPerWaitWhateverTheOrderOfEvents(long seed) {
    java.util.Random r = new java.util.Random(seed);
    samples = RecordingRandom.seeded(seed);
    ReconnectionManager m = builder().maxAttempts(r.nextBoolean() ? 0 : 8).build();
    m.start(rec);
    String previous = null;
    int dials = 0;
    for (int step = 0; step < 3_000; step++) {
      switch (r.nextInt(13)) {
        case 0, 1 -> rec.attempt().opened();
        case 2 -> rec.attempt().closed(CloseCodes.ABNORMAL, "");
        case 3 -> rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, r.nextBoolean() ? "" : "retry-after=700");
        case 4 -> rec.attempt().closed(CloseCodes.UNAUTHORIZED, "");
        case 5 -> m.networkAvailable();
        case 6 -> m.networkLost();
        case 7 -> m.suspend();
        case 8 -> m.resume();
        case 9 -> clock.advance(ms(r.nextInt(20_000)));
        case 10 -> clock.advance(clock.nextDeadline() == null ? Duration.ZERO
            : clock.nextDeadline().minus(clock.now()));
        case 11 -> {
          if (r.nextInt(20) == 0) {
            m.stop();
          } else {
            rec.attempt().closed(CloseCodes.NORMAL, "");
          }
        }
        case 12 -> {
          if (m.status().state() == STOPPED) {
            m.start(rec);
          } else {
            m.networkAvailable();
          }
        }
        default -> throw new AssertionError();
      }
      ReconnectionManager.State state = m.status().state();
      int pending = clock.pendingTasks();
      assertThat(pending).as("pending timers in %s at step %d", state, step).isLessThanOrEqualTo(1);
      switch (state) {
        case WAITING -> assertThat(pending).as("step %d", step).isEqualTo(1);
        case IDLE, CONNECTING, HELD, STOPPED -> assertThat(pending).as("step %d", step).isZero();
        case CONNECTED -> { }
        default -> throw new AssertionError("Unexpected state: " + state);
      }
      while (!rec.isEmpty()) {
        String e = rec.next();
        if (e.startsWith("dial #")) {
          dials++;
          String attempt = e.substring("dial ".length(), e.indexOf(" at="));
          assertThat(previous).as("before %s at step %d", e, step)
              .startsWith("CONNECTING " + attempt);
        }
        previous = e;
      }
      if (previous != null && !previous.startsWith("dial") && !previous.startsWith("refresh")) {
        // After a stop the flags change in the snapshot only, with no event.
        String now = ReconnectRecorder.describe(m.status());
        assertThat(withoutFlags(previous)).as("step %d", step).isEqualTo(withoutFlags(now));
        if (state != STOPPED) {
          assertThat(previous).as("step %d", step).isEqualTo(now);
        }
      }
    }
    assertThat(dials).isEqualTo(rec.dials().size()).isGreaterThan(10);
  }

  private static String withoutFlags(String status) {
    int i = status.indexOf(" [");
    return i < 0 ? status : status.substring(0, i);
  }

  // ---- holding: network lost, app suspended ----

  @Test
  void networkLostHoldsEveryDialUntilTheNetworkIsBack() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    m.networkLost();
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "HELD #1 delay=1250ms (closed 1006) [offline]");
    assertThat(clock.pendingTasks()).isZero();
    clock.advance(Duration.ofHours(1));
    m.resume(); // not suspended, still offline: nothing
    m.networkLost();
    rec.assertExhausted();

    m.networkAvailable();
    rec.expect("CONNECTING #1 delay=1250ms (closed 1006)", "dial #1 at=3600000ms");
    // Offline while connecting or connected: the status says so, and the next close holds
    // instead of arming a timer.
    m.networkLost();
    rec.attempt().opened();
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect(
        "CONNECTING #1 delay=1250ms (closed 1006) [offline]",
        "CONNECTED #1 delay=1250ms [offline]",
        "HELD #2 delay=2500ms (closed 1006) [offline]");
    assertThat(clock.pendingTasks()).isZero();
    m.networkAvailable();
    rec.expect("CONNECTING #2 delay=2500ms (closed 1006)", "dial #2 at=3600000ms");
    rec.assertExhausted();
  }

  @Test
  void suspendHoldsAndResumeDialsAtOnce() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    m.suspend();
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "HELD #1 delay=1250ms (closed 1006) [suspended]");
    assertThat(clock.pendingTasks()).isZero();
    clock.advance(Duration.ofHours(1));
    m.networkAvailable(); // the network is fine, but the app is in the background
    rec.assertExhausted();

    m.resume();
    rec.expect("CONNECTING #1 delay=1250ms (closed 1006)", "dial #1 at=3600000ms");
    rec.assertExhausted();
  }

  @Test
  void theStatusShowsOfflineAndSuspendedWhileConnectedAndBeforeStart() {
    ReconnectionManager m = builder().build();
    m.networkLost();
    assertThat(m.status().networkLost()).isTrue();
    assertThat(m.status().state()).isEqualTo(IDLE);
    m.networkAvailable();
    assertThat(m.status().networkLost()).isFalse();
    startAndOpen(m);
    m.suspend();
    m.suspend(); // no change, no event
    m.networkLost();
    m.resume();
    m.networkAvailable();
    m.networkAvailable(); // no change, no event
    rec.expect(
        "CONNECTED #0 [suspended]",
        "CONNECTED #0 [offline] [suspended]",
        "CONNECTED #0 [offline]",
        "CONNECTED #0");
    assertThat(m.status().networkLost()).isFalse();
    assertThat(clock.pendingTasks()).isEqualTo(1);
    rec.assertExhausted();
  }

  @Test
  void resumeWhileWaitingDialsAtOnce() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(200));
    m.resume();
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=200ms");
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  @Test
  void bothHeldReasonsMustClearBeforeADial() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    m.suspend();
    m.networkLost();
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "HELD #1 delay=1250ms (closed 1006) [suspended]",
        "HELD #1 delay=1250ms (closed 1006) [offline] [suspended]");
    m.resume();
    rec.expect("HELD #1 delay=1250ms (closed 1006) [offline]");
    m.networkAvailable();
    rec.expect("CONNECTING #1 delay=1250ms (closed 1006)", "dial #1 at=0ms");
    rec.assertExhausted();
  }

  @Test
  void startWhileOfflineHoldsWithNoTimerThenDialsTheFirstAttempt() {
    ReconnectionManager m = builder().build();
    m.networkLost();
    m.start(rec);
    rec.expect("HELD #0 [offline]");
    assertThat(clock.pendingTasks()).isZero();
    assertThat(rec.dials()).isEmpty();
    assertThatThrownBy(() -> m.start(rec)).isInstanceOf(IllegalStateException.class);
    clock.advance(Duration.ofMinutes(1));
    m.networkAvailable();
    rec.expect("CONNECTING #0", "dial #0 at=60000ms");
    rec.assertExhausted();
  }

  @Test
  void startWhileSuspendedHoldsUntilResume() {
    ReconnectionManager m = builder().build();
    m.suspend();
    m.start(rec);
    rec.expect("HELD #0 [suspended]");
    m.networkAvailable();
    rec.assertExhausted();
    m.resume();
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    rec.assertExhausted();
  }

  // ---- stopping ----

  @ParameterizedTest(name = "close {0} stops for good")
  @ValueSource(ints = {CloseCodes.POLICY_VIOLATION, CloseCodes.UNSUPPORTED_DATA, CloseCodes.FORBIDDEN})
  void aStoppingCloseCodeStopsForGood(int code) {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(code, "go away");
    rec.expect("STOPPED #0 (closed " + code + " go away)");
    assertThat(clock.pendingTasks()).isZero();
    m.networkAvailable();
    m.resume();
    rec.attempt().opened();
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(Duration.ofHours(1));
    assertThat(m.status().state()).isEqualTo(STOPPED);
    assertThat(m.status().lastCloseCode()).isEqualTo(code);
    rec.assertExhausted();
  }

  @Test
  void clientStopStopsForGood() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    m.stop();
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "STOPPED #1 delay=1250ms (stopped by client)");
    assertThat(clock.pendingTasks()).isZero();
    m.stop();
    m.networkAvailable();
    rec.attempt().opened();
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(Duration.ofHours(1));
    assertThat(rec.dials()).containsExactly(0);
    rec.assertExhausted();
  }

  @Test
  void clientStopWhileConnectedCancelsTheStableTimer() {
    ReconnectionManager m = startAndOpen(builder().build());
    assertThat(clock.pendingTasks()).isEqualTo(1);
    m.stop();
    rec.expect("STOPPED #0 (stopped by client)");
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  @ParameterizedTest(name = "{0} profile, server close {1} -> {2}")
  @CsvSource({
    "ddp,       1000, WAITING #1 delay=1250ms at=1250ms (closed 1000)",
    "ddp,       4000, WAITING #1 delay=1250ms at=1250ms (closed 4000)",
    "websocket, 1000, STOPPED #0 (closed 1000)",
    "websocket, 1001, WAITING #1 delay=1250ms at=1250ms (closed 1001)",
  })
  void serverNormalCloseRetriesUnderDdpAndStopsUnderWebsocket(
      String profile, int code, String expected) {
    ClosePolicy policy = profile.equals("ddp") ? ClosePolicy.ddp() : ClosePolicy.websocket();
    ReconnectionManager m = startAndOpen(builder().closePolicy(policy).build());
    rec.attempt().closed(code, "");
    rec.expect(expected);
    rec.assertExhausted();
  }

  @Test
  void givesUpAfterMaxAttempts() {
    ReconnectionManager m = builder().maxAttempts(3).build();
    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    for (int n = 1; n <= 3; n++) {
      rec.attempt().closed(CloseCodes.ABNORMAL, "");
      ReconnectStatus w = rec.expectStatus(WAITING, n);
      clock.advance(w.delay());
      rec.expectStatus(CONNECTING, n);
      rec.expectDial(n);
    }
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    ReconnectStatus s = rec.expectStatus(STOPPED, 3);
    assertThat(s.reason()).isEqualTo("gave up after 3 attempts (closed 1006)");
    assertThat(clock.pendingTasks()).isZero();
    clock.advance(Duration.ofHours(1));
    rec.assertExhausted();
  }

  @Test
  void anAuthRefreshRetryCountsAgainstMaxAttempts() {
    ReconnectionManager m = startAndOpen(builder().maxAttempts(1).build());
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(1250));
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "");
    rec.expect(
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=1250ms",
        "STOPPED #1 delay=1250ms (gave up after 1 attempts (closed 4401))");
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  // ---- server hints and credentials ----

  @ParameterizedTest(name = "sample {0}: dial at {1} ms")
  @CsvSource({"0.0, 2500", "0.5, 2750", "0.9999, 3000"})
  void retryAfterHintHoldsTheDialInsideTheHintedWindow(double sample, long dialAt) {
    samples = RecordingRandom.constant(sample);
    // The whole 20 % window, not capped by maxHintSpread (see theSpreadAfterAnAppointmentIsCapped).
    ReconnectionManager m = startAndOpen(builder().maxHintSpread(Duration.ofSeconds(1)).build());
    rec.attempt().closed(CloseCodes.ABNORMAL, "retry-after=2500");
    ReconnectStatus w = rec.expectStatus(WAITING, 1);
    assertThat(w.delay()).isEqualTo(ms(dialAt)).isBetween(ms(2500), ms(3000));
    clock.advance(ms(2499));
    rec.assertExhausted();
    clock.advance(ms(dialAt - 2499));
    rec.expectStatus(CONNECTING, 1);
    rec.expectDial(1);
    rec.assertExhausted();
  }

  @Test
  void tryAgainLaterWithoutHintWaitsAtLeastTheSlowFloor() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "");
    rec.expect("WAITING #1 delay=5500ms at=5500ms (closed 1013)");
    rec.assertExhausted();
  }

  @Test
  void unauthorizedRefreshesCredentialsOnceThenBacksOffUntilStable() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "token expired");
    rec.expect("refresh at=0ms", "CONNECTING #1 (closed 4401 token expired)", "dial #1 at=0ms");
    assertThat(clock.pendingTasks()).isZero();

    rec.attempt().opened();
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "");
    rec.expect("CONNECTED #1", "WAITING #2 delay=2500ms at=2500ms (closed 4401)");
    clock.advance(ms(2500));
    rec.attempt().opened();
    clock.advance(Duration.ofSeconds(10));
    rec.expect(
        "CONNECTING #2 delay=2500ms (closed 4401)",
        "dial #2 at=2500ms",
        "CONNECTED #2 delay=2500ms",
        "CONNECTED #0");

    // After a stable period the refresh is available again.
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "");
    rec.expect("refresh at=12500ms", "CONNECTING #1 (closed 4401)", "dial #1 at=12500ms");
    rec.assertExhausted();
  }

  @Test
  void aRepeatedUnauthorizedHonoursARetryAfterHint() {
    ReconnectionManager m = startAndOpen(builder().maxHintSpread(Duration.ofSeconds(1)).build());
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "");
    rec.attempt().opened();
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "retry-after=4000");
    rec.expect(
        "refresh at=0ms",
        "CONNECTING #1 (closed 4401)",
        "dial #1 at=0ms",
        "CONNECTED #1",
        "WAITING #2 delay=4400ms at=4400ms (closed 4401 retry-after=4000)");
    rec.assertExhausted();
  }

  // Regression (review): a hint raises the floor whatever the code, but the first 4401 refreshed
  // the credentials and dialled at 0 ms, ignoring "retry-after=5000".
  @Test
  void aFirstUnauthorizedWithARetryAfterHintRefreshesThenWaitsTheHint() {
    ReconnectionManager m = startAndOpen(builder().maxHintSpread(Duration.ofSeconds(1)).build());
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "retry-after=5000");
    rec.expect(
        "refresh at=0ms", "WAITING #1 delay=5500ms at=5500ms (closed 4401 retry-after=5000)");
    clock.advance(ms(5499));
    rec.assertExhausted();
    clock.advance(ms(1));
    rec.expect(
        "CONNECTING #1 delay=5500ms (closed 4401 retry-after=5000)", "dial #1 at=5500ms");
    // The refresh was used: a second 4401 backs off as usual, with no second refresh.
    rec.attempt().opened();
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "");
    rec.expect("CONNECTED #1 delay=5500ms", "WAITING #2 delay=2500ms at=8000ms (closed 4401)");
    rec.assertExhausted();
  }

  // Issue 9: on 1013 a small hint used to be raised to the 5 s floor ("a hint only raises it"),
  // so "come back in 100 ms" brought the client back in 5.5 s. The floor is for a 1013 without
  // a hint; a hint is an appointment.
  @Test
  void aSmallHintOnTryAgainLaterIsAnAppointmentNotRaisedToTheSlowFloor() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=100");
    rec.expect("WAITING #1 delay=110ms at=110ms (closed 1013 retry-after=100)");
    clock.advance(ms(110));
    rec.expect("CONNECTING #1 delay=110ms (closed 1013 retry-after=100)", "dial #1 at=110ms");
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=1000");
    rec.expect("WAITING #2 delay=1100ms at=1210ms (closed 1013 retry-after=1000)");
    rec.assertExhausted();
  }

  @Test
  void aHintShorterThanTheCurveIsAnAppointmentAndTheCurveResumesWhereItWas() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    for (long[] step : new long[][] {{1, 1250, 1250}, {2, 2500, 3750}, {3, 5000, 8750}}) {
      rec.attempt().closed(CloseCodes.ABNORMAL, "");
      rec.expect("WAITING #" + step[0] + " delay=" + step[1] + "ms at=" + step[2] + "ms (closed 1006)");
      clock.advance(ms(step[1]));
      rec.expect(
          "CONNECTING #" + step[0] + " delay=" + step[1] + "ms (closed 1006)",
          "dial #" + step[0] + " at=" + step[2] + "ms");
    }
    // The curve says 10 s for attempt 4; the server says 300 ms: 300 ms it is, plus the spread.
    rec.attempt().closed(CloseCodes.SERVICE_RESTART, "retry-after=300");
    rec.expect("WAITING #4 delay=330ms at=9080ms (closed 1012 retry-after=300)");
    clock.advance(ms(330));
    rec.expect(
        "CONNECTING #4 delay=330ms (closed 1012 retry-after=300)", "dial #4 at=9080ms");
    // The appointment failed with no new hint: the curve goes on at attempt 5 (16 s + 25 %).
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #5 delay=20000ms at=29080ms (closed 1006)");
    rec.assertExhausted();
  }

  // Issue 9: networkAvailable() and resume() dialled at once even while the manager waited for
  // the server's appointment, so a phone whose network flickered came back before its slot and
  // was turned away again. The appointment is the server's word; a network change does not move it.
  @Test
  void networkAvailableAndResumeKeepTheServersAppointment() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=5000");
    rec.expect("WAITING #1 delay=5125ms at=5125ms (closed 1013 retry-after=5000)");
    clock.advance(ms(1000));
    m.networkAvailable();
    m.resume();
    rec.assertExhausted();
    assertThat(clock.pendingTasks()).as("the appointment's timer, still armed").isEqualTo(1);
    clock.advance(ms(4124));
    rec.assertExhausted();
    clock.advance(ms(1));
    rec.expect(
        "CONNECTING #1 delay=5125ms (closed 1013 retry-after=5000)", "dial #1 at=5125ms");
    rec.assertExhausted();
  }

  @Test
  void aHoldDuringAnAppointmentWaitsForItWhenTheNetworkComesBackEarly() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.SERVICE_RESTART, "retry-after=8000");
    rec.expect("WAITING #1 delay=8125ms at=8125ms (closed 1012 retry-after=8000)");
    clock.advance(ms(1000));
    m.networkLost();
    rec.expect("HELD #1 delay=8125ms (closed 1012 retry-after=8000) [offline]");
    clock.advance(ms(2000));
    m.networkAvailable(); // at 3000 ms: the appointment is at 8125 ms
    rec.expect("WAITING #1 delay=8125ms at=8125ms (closed 1012 retry-after=8000)");
    clock.advance(ms(5124));
    rec.assertExhausted();
    clock.advance(ms(1));
    rec.expect(
        "CONNECTING #1 delay=8125ms (closed 1012 retry-after=8000)", "dial #1 at=8125ms");

    // Past the appointment, the network's return dials at once, as after any wait.
    rec.attempt().closed(CloseCodes.SERVICE_RESTART, "retry-after=2000");
    rec.expect("WAITING #2 delay=2125ms at=10250ms (closed 1012 retry-after=2000)");
    m.suspend();
    rec.expect("HELD #2 delay=2125ms (closed 1012 retry-after=2000) [suspended]");
    clock.advance(ms(10_000));
    m.resume();
    rec.expect(
        "CONNECTING #2 delay=2125ms (closed 1012 retry-after=2000)", "dial #2 at=18125ms");

    // A wait on the curve (no hint) is still cut short by the network's return.
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #3 delay=5000ms at=23125ms (closed 1006)");
    m.networkAvailable();
    rec.expect("CONNECTING #3 delay=5000ms (closed 1006)", "dial #3 at=18125ms");
    rec.assertExhausted();
  }

  @Test
  void aHintAboveTenMinutesIsCappedToTenMinutes() {
    ReconnectionManager m = startAndOpen(builder().build());
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=86400000");
    rec.expect("WAITING #1 delay=600125ms at=600125ms (closed 1013 retry-after=86400000)");
    rec.assertExhausted();
  }

  @Test
  void theSpreadAfterAnAppointmentIsCappedSoTheClientKeepsItsSlot() {
    samples = RecordingRandom.constant(0.9999);
    ReconnectionManager m = startAndOpen(builder().build());
    // 20 % of 10 s would be up to 2 s late; a server holding the slot waits far less.
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=10000");
    rec.expect("WAITING #1 delay=10250ms at=10250ms (closed 1013 retry-after=10000)");
    rec.assertExhausted();
  }

  @ParameterizedTest(name = "hintMinimum {0} ms: {1} dials in 10 s, {2} ms apart")
  @CsvSource({"default, 91, 110", "500, 19, 550"})
  void aServerAnsweringEveryDialWithRetryAfterZeroGetsAtMostOneDialPerMinimum(
      String minimum, int dials, long apart) {
    // The default minimum is 100 ms; the sample 0.5 adds half of its 20 % spread: 110 ms apart.
    ReconnectionManager m =
        minimum.equals("default")
            ? builder().build()
            : builder().hintMinimum(ms(Long.parseLong(minimum))).build();
    List<Long> dialTimes = new ArrayList<>();
    rec.onDial(() -> {
      dialTimes.add(clock.read());
      rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "busy; retry-after=0");
    });
    m.start(rec);
    clock.advance(Duration.ofSeconds(10));
    m.stop();
    assertThat(dialTimes).hasSize(dials);
    for (int i = 1; i < dialTimes.size(); i++) {
      assertThat(dialTimes.get(i) - dialTimes.get(i - 1)).isEqualTo(ms(apart).toNanos());
    }
  }

  @Test
  void hintedDialsCountTowardMaxAttempts() {
    ReconnectionManager m = startAndOpen(builder().maxAttempts(2).build());
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=200");
    clock.advance(ms(220));
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=200");
    clock.advance(ms(220));
    rec.attempt().closed(CloseCodes.TRY_AGAIN_LATER, "retry-after=200");
    rec.expect(
        "WAITING #1 delay=220ms at=220ms (closed 1013 retry-after=200)",
        "CONNECTING #1 delay=220ms (closed 1013 retry-after=200)",
        "dial #1 at=220ms",
        "WAITING #2 delay=220ms at=440ms (closed 1013 retry-after=200)",
        "CONNECTING #2 delay=220ms (closed 1013 retry-after=200)",
        "dial #2 at=440ms",
        "STOPPED #2 delay=220ms (gave up after 2 attempts (closed 1013 retry-after=200))");
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  @Test
  void aFirstUnauthorizedWithASmallHintRefreshesThenKeepsTheAppointment() {
    ReconnectionManager m = startAndOpen(builder().hintMinimum(ms(150)).build());
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "retry-after=40");
    rec.expect("refresh at=0ms", "WAITING #1 delay=165ms at=165ms (closed 4401 retry-after=40)");
    rec.assertExhausted();
  }

  @Test
  void aFailingCredentialsRefresherStillLetsTheRetryHappen() {
    ReconnectionManager m =
        startAndOpen(
            builder()
                .credentialsRefresher(
                    () -> {
                      throw new IllegalStateException("auth server down");
                    })
                .build());
    rec.attempt().closed(CloseCodes.UNAUTHORIZED, "");
    rec.expect("CONNECTING #1 (closed 4401)", "dial #1 at=0ms");
    rec.assertExhausted();
  }

  // ---- listeners ----

  @Test
  void listenersSeeEveryStateWithAttemptDelayAndNextTryTime() {
    ReconnectionManager m = builder().build();
    assertThat(m.status()).isEqualTo(
        new ReconnectStatus(IDLE, 0, Duration.ZERO, 0, 0, "", false, false));
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(1250));
    rec.attempt().closed(CloseCodes.INTERNAL_ERROR, "oops");
    clock.advance(ms(1000));
    m.networkAvailable();
    rec.attempt().opened();
    clock.advance(Duration.ofSeconds(10));
    rec.attempt().closed(CloseCodes.SERVICE_RESTART, "");
    m.networkLost();
    m.networkAvailable();
    rec.attempt().opened();
    m.stop();
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=1250ms",
        "WAITING #2 delay=2500ms at=3750ms (closed 1011 oops)",
        "CONNECTING #2 delay=2500ms (closed 1011 oops)",
        "dial #2 at=2250ms",
        "CONNECTED #2 delay=2500ms",
        "CONNECTED #0",
        "WAITING #1 delay=1250ms at=13500ms (closed 1012)",
        "HELD #1 delay=1250ms (closed 1012) [offline]",
        "CONNECTING #1 delay=1250ms (closed 1012)",
        "dial #1 at=12250ms",
        "CONNECTED #1 delay=1250ms",
        "STOPPED #1 delay=1250ms (stopped by client)");
    rec.assertExhausted();
  }

  @Test
  void statusTellsHowLongUntilTheNextTry() {
    ReconnectionManager m = startAndOpen(builder().build());
    clock.advance(ms(500));
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    ReconnectStatus w = rec.expectStatus(WAITING, 1);
    assertThat(m.status()).isEqualTo(w);
    assertThat(w.nextAttemptAtNanos()).isEqualTo(ms(1750).toNanos());
    assertThat(w.retryIn(clock.read())).isEqualTo(ms(1250));
    clock.advance(ms(1000));
    assertThat(m.status().retryIn(clock.read())).isEqualTo(ms(250));
    assertThat(w.retryIn(ms(5000).toNanos())).isEqualTo(Duration.ZERO);
    clock.advance(ms(250));
    rec.expectStatus(CONNECTING, 1);
    assertThat(m.status().retryIn(clock.read())).isEqualTo(Duration.ZERO);
    rec.expectDial(1);
    rec.assertExhausted();
  }

  @Test
  void aThrowingListenerBreaksNeitherTheManagerNorOtherListeners() {
    // No builder listener: a bad listener goes first, then the recorder, then another one.
    ReconnectionManager bare = ReconnectionManager.builder().scheduler(clock).random(samples).build();
    List<String> after = new ArrayList<>();
    bare.addListener(s -> {
      throw new IllegalStateException("listener bug");
    });
    bare.addListener(rec);
    bare.addListener(s -> after.add(s.state().name()));
    bare.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(1250));
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=1250ms");
    assertThat(after).containsExactly("CONNECTING", "WAITING", "CONNECTING");
    assertThat(bare.status().state()).isEqualTo(CONNECTING);
    rec.assertExhausted();
  }

  // Builder.listener() said "adds" but replaced: only the last one set was ever called.
  @Test
  void everyListenerGivenToTheBuilderHearsEveryChange() {
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    ReconnectionManager m =
        ReconnectionManager.builder()
            .scheduler(clock)
            .random(samples)
            .listener(s -> first.add(s.state().name()))
            .listener(s -> second.add(s.state().name()))
            .build();
    m.start(rec);
    m.stop();
    assertThat(first).containsExactly("CONNECTING", "STOPPED");
    assertThat(second).containsExactly("CONNECTING", "STOPPED");
  }

  @Test
  void aRemovedListenerHearsNoMore() {
    ReconnectionManager m = ReconnectionManager.builder().scheduler(clock).random(samples).build();
    Cancellable handle = m.addListener(rec);
    m.start(rec);
    handle.cancel();
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    rec.assertExhausted();
  }

  @Test
  void aListenerMayStopTheManagerAndEveryoneSeesTheEventsInOrder() {
    ReconnectionManager m = builder().build();
    m.addListener(s -> {
      if (s.state() == WAITING) {
        m.stop();
      }
    });
    List<String> third = new ArrayList<>();
    m.addListener(s -> third.add(ReconnectRecorder.describe(s)));
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    List<String> expected =
        List.of(
            "CONNECTING #0",
            "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
            "STOPPED #1 delay=1250ms (stopped by client)");
    rec.expect(expected.get(0), "dial #0 at=0ms", expected.get(1), expected.get(2));
    assertThat(third).isEqualTo(expected);
    assertThat(clock.pendingTasks()).isZero();
    clock.advance(Duration.ofHours(1));
    rec.assertExhausted();
  }

  @Test
  void aListenerMayKickTheManagerFromWithinACallback() {
    ReconnectionManager m = builder().build();
    m.addListener(s -> {
      if (s.state() == WAITING) {
        m.networkAvailable();
      }
    });
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=0ms");
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  @Test
  void aListenerThatStopsTheManagerOnConnectingPreventsTheDial() {
    ReconnectionManager m = builder().build();
    m.addListener(s -> {
      if (s.state() == CONNECTING && s.attempt() == 1) {
        m.stop();
      }
    });
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(1250));
    // Stopped before the dial ran: the connector must not be called (its socket would leak, as
    // every later report from it is ignored).
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "STOPPED #1 delay=1250ms (stopped by client)");
    assertThat(rec.dials()).containsExactly(0);
    rec.assertExhausted();
  }

  @Test
  void aListenerThrowingAnErrorDoesNotStrandTheQueuedDial() {
    ReconnectionManager m = builder().build();
    m.addListener(s -> {
      if (s.state() == CONNECTING) {
        throw new AssertionError("listener blew up");
      }
    });
    // The Error reaches the caller, but the dial queued behind the event is not lost: it runs
    // on the scheduler instead of waiting for some later report to drain it.
    assertThatThrownBy(() -> m.start(rec)).isInstanceOf(AssertionError.class);
    rec.expect("CONNECTING #0");
    clock.runDue();
    rec.expect("dial #0 at=0ms");
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  // ---- the connector ----

  @Test
  void aThrowingConnectorCountsAsAFailedAttemptAndBacksOff() {
    rec.failNextDial(new IOException("refused"))
        .failNextDial(new IllegalStateException("bug"))
        .failNextDial(new IOException("refused"));
    ReconnectionManager m = builder().build();
    m.start(rec);
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006 connect failed: IOException)");
    assertThat(clock.pendingTasks()).isEqualTo(1);
    clock.advance(Duration.ofMinutes(1));
    rec.expect(
        "CONNECTING #1 delay=1250ms (closed 1006 connect failed: IOException)",
        "dial #1 at=1250ms",
        "WAITING #2 delay=2500ms at=3750ms (closed 1006 connect failed: IllegalStateException)",
        "CONNECTING #2 delay=2500ms (closed 1006 connect failed: IllegalStateException)",
        "dial #2 at=3750ms",
        "WAITING #3 delay=5000ms at=8750ms (closed 1006 connect failed: IOException)",
        "CONNECTING #3 delay=5000ms (closed 1006 connect failed: IOException)",
        "dial #3 at=8750ms");
    assertThat(m.status().state()).isEqualTo(CONNECTING);
    assertThat(m.status().lastCloseCode()).isEqualTo(CloseCodes.ABNORMAL);
    rec.assertExhausted();
  }

  @Test
  void aConnectorThatOpensAndDropsSynchronouslyIsBackedOffToo() {
    ReconnectionManager m = builder().build();
    rec.onDial(() -> {
      rec.attempt().opened();
      rec.attempt().closed(CloseCodes.ABNORMAL, "");
    });
    m.start(rec);
    clock.advance(ms(1250 + 2500));
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "CONNECTED #0",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=1250ms",
        "CONNECTED #1 delay=1250ms",
        "WAITING #2 delay=2500ms at=3750ms (closed 1006)",
        "CONNECTING #2 delay=2500ms (closed 1006)",
        "dial #2 at=3750ms",
        "CONNECTED #2 delay=2500ms",
        "WAITING #3 delay=5000ms at=8750ms (closed 1006)");
    rec.assertExhausted();
  }

  // Until issue 11 a broken custom backoff was silently replaced by the RFC curve: the bug stayed
  // hidden, and the client ran on a curve nobody chose. It now fails in the caller's face.
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"throws", "null", "negative"})
  void aBackoffBrokenOnTheFirstAttemptsIsRefusedAtTheSetter(String how) {
    Backoff broken = brokenFrom(3, how);
    assertThatThrownBy(() -> ReconnectionManager.builder().backoff(broken))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("backoff: backoff broken-from-3 ")
        .hasMessageContaining("for attempt 3");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"throws", "null", "negative"})
  void aBackoffThatBreaksLaterStopsTheManagerAndThrowsAtTheReportInsteadOfWedgingIt(String how) {
    // Past the attempts the setter tries: found only when the outage gets that long.
    ReconnectionManager m = builder().backoff(brokenFrom(20, how)).build();
    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    for (int n = 1; n < 20; n++) {
      rec.attempt().closed(CloseCodes.ABNORMAL, "");
      rec.expect("WAITING #" + n + " delay=1ms at=" + n + "ms (closed 1006)");
      clock.advance(ms(1));
      rec.expect("CONNECTING #" + n + " delay=1ms (closed 1006)", "dial #" + n + " at=" + n + "ms");
    }
    Attempt nineteenth = rec.attempt();
    assertThatThrownBy(() -> nineteenth.closed(CloseCodes.ABNORMAL, ""))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("backoff broken-from-20 ")
        .hasMessageContaining("for attempt 20");
    ReconnectStatus stopped = rec.expectStatus(STOPPED, 20);
    assertThat(stopped.reason()).startsWith("backoff broken-from-20 ").contains("for attempt 20");
    assertThat(nineteenth.isCurrent()).isFalse();
    assertThat(clock.pendingTasks()).isZero();
    rec.assertExhausted();
  }

  @Test
  void reportClosedTellsABrokenBackoffThroughTheStatusOnly() {
    // Broken past the attempts the policy's builder probes.
    ReconnectionManager m = builder().backoff(brokenFrom(20, "throws")).build();
    m.start(rec);
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    for (int n = 1; n < 20; n++) {
      rec.attempt().reportClosed(CloseCodes.ABNORMAL, "");
      rec.expect("WAITING #" + n + " delay=1ms at=" + n + "ms (closed 1006)");
      clock.advance(ms(1));
      rec.expect("CONNECTING #" + n + " delay=1ms (closed 1006)", "dial #" + n + " at=" + n + "ms");
    }
    Attempt nineteenth = rec.attempt();
    nineteenth.reportClosed(CloseCodes.ABNORMAL, ""); // no exception: the owner reads the status
    ReconnectStatus stopped = rec.expectStatus(STOPPED, 20);
    assertThat(stopped.reason()).startsWith("backoff broken-from-20 ").contains("for attempt 20");
    assertThat(nineteenth.isCurrent()).isFalse();
    rec.assertExhausted();
  }

  @Test
  void withAnExecutorEveryCallReachesItInTheOrderOfTheChangesBeforeTheReportReturns() {
    ArrayDeque<Runnable> loop = new ArrayDeque<>();
    List<String> seen = new ArrayList<>();
    List<Attempt> dials = new ArrayList<>();
    ReconnectionManager m =
        ReconnectionManager.builder().scheduler(clock).random(samples).executor(loop::add)
            .listener(s -> seen.add(s.state() + " #" + s.attempt())).build();
    m.start(dials::add);
    assertThat(seen).as("nothing runs on the reporting thread").isEmpty();
    assertThat(dials).isEmpty();
    runAll(loop);
    assertThat(seen).containsExactly("CONNECTING #0");
    assertThat(dials).hasSize(1);

    // One task of the owner's loop stops the manager and starts it again: the STOPPED comes
    // before the new run's CONNECTING, both after the task, none of them late.
    m.stop();
    m.start(dials::add);
    assertThat(seen).hasSize(1);
    runAll(loop);
    assertThat(seen).containsExactly("CONNECTING #0", "STOPPED #0", "CONNECTING #0");
    assertThat(dials).hasSize(2);

    // A timer's change, made on the scheduler's thread, is handed over in order too.
    dials.get(1).closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(2_000));
    runAll(loop);
    assertThat(seen).endsWith("WAITING #1", "CONNECTING #1");
    assertThat(dials).hasSize(3);
  }

  private static void runAll(ArrayDeque<Runnable> loop) {
    for (Runnable r; (r = loop.poll()) != null; ) {
      r.run();
    }
  }

  /** 1 ms until {@code attempt}, then broken {@code how}; named {@code broken-from-<attempt>}. */
  private static Backoff brokenFrom(int attempt, String how) {
    return new Backoff() {
      @Override
      public Duration delay(int n, double sample) {
        if (n < attempt) {
          return ms(1);
        }
        return switch (how) {
          case "throws" -> throw new ArithmeticException("backoff bug (expected in this test)");
          case "null" -> null;
          case "negative" -> ms(-5);
          default -> throw new AssertionError(how);
        };
      }

      @Override
      public String toString() {
        return "broken-from-" + attempt;
      }
    };
  }

  @Test
  void aMisbehavingRandomSourceDoesNotWedgeTheManager() {
    ReconnectionManager m = builder().random(RecordingRandom.constant(1.5)).build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    ReconnectStatus w = rec.expectStatus(WAITING, 1);
    assertThat(w.delay()).isBetween(ms(1000), ms(1500));
    assertThat(clock.pendingTasks()).isEqualTo(1);
    rec.assertExhausted();
  }

  @Test
  void aHugeCustomDelayDoesNotOverflowTheNextTryTime() {
    ReconnectionManager m =
        builder().backoff((attempt, sample) -> Duration.ofSeconds(Long.MAX_VALUE)).build();
    m.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("CONNECTING #0", "dial #0 at=0ms");
    ReconnectStatus w = rec.expectStatus(WAITING, 1);
    assertThat(w.delay()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
    assertThat(w.nextAttemptAtNanos()).isEqualTo(Long.MAX_VALUE);
    rec.assertExhausted();
  }

  // ---- start ----

  @Test
  void startTwiceThrowsAndStartAfterStoppedStartsAfresh() {
    ReconnectionManager m = builder().build();
    m.start(rec);
    assertThatThrownBy(() -> m.start(rec))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already started");
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    clock.advance(ms(1250));
    rec.attempt().closed(CloseCodes.POLICY_VIOLATION, "");
    rec.expect(
        "CONNECTING #0",
        "dial #0 at=0ms",
        "WAITING #1 delay=1250ms at=1250ms (closed 1006)",
        "CONNECTING #1 delay=1250ms (closed 1006)",
        "dial #1 at=1250ms",
        "STOPPED #1 delay=1250ms (closed 1008)");

    ReconnectRecorder second = new ReconnectRecorder(clock);
    m.start(second);
    rec.expect("CONNECTING #0");
    second.expect("dial #0 at=1250ms");
    assertThat(m.status().lastCloseCode()).isZero();
    second.attempt().closed(CloseCodes.ABNORMAL, "");
    rec.expect("WAITING #1 delay=1250ms at=2500ms (closed 1006)");
    rec.assertExhausted();
    second.assertExhausted();
  }

  @Test
  void builderRejectsBadSettingsNamingTheField() {
    assertThatThrownBy(() -> ReconnectionManager.builder().stableAfter(ms(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("stableAfter");
    assertThatThrownBy(() -> ReconnectionManager.builder().maxAttempts(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxAttempts");
    assertThatThrownBy(() -> ReconnectionManager.builder().hintSpread(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hintSpread");
    assertThatThrownBy(() -> ReconnectionManager.builder().hintSpread(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hintSpread");
    assertThatThrownBy(() -> ReconnectionManager.builder().hintMinimum(ms(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hintMinimum");
    assertThatThrownBy(() -> ReconnectionManager.builder().hintMinimum(Duration.ofMinutes(11)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hintMinimum");
    assertThatThrownBy(() -> ReconnectionManager.builder().maxHintSpread(ms(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxHintSpread");
    assertThatThrownBy(() -> ReconnectionManager.builder().backoff(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("backoff");
    assertThatThrownBy(() -> builder().build().start(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("connector");
  }
}
