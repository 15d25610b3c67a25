package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Heartbeat, half-open detection, connect timeout and checkHealth, on virtual time. */
@Timeout(value = 30, unit = SECONDS)
class HeartbeatTest {

  @Test
  void pingsAfterTheIdleIntervalAndAnyInboundFrameCountsAsPong() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofSeconds(24));
      s.expectNothing();
      h.time.advance(Duration.ofSeconds(1));
      s.expect("{'msg':'ping'}");

      s.send("{'msg':'added','collection':'c','id':'1','fields':{}}"); // not a pong, but traffic
      h.time.advance(Duration.ofSeconds(15));
      assertThat(s.closedByClient()).isFalse();
      s.expectNothing();
      h.time.advance(Duration.ofSeconds(10)); // 25 s after the last frame
      s.expect("{'msg':'ping'}");
    }
  }

  @Test
  void inboundTrafficPostponesThePing() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofSeconds(20));
      s.send("{'msg':'pong'}");
      h.time.advance(Duration.ofSeconds(20));
      s.expectNothing();
      h.time.advance(Duration.ofSeconds(5));
      s.expect("{'msg':'ping'}");
    }
  }

  @Test
  void halfOpenSocketIsClosedLocallyAndRedialedWithoutWaitingForItsOnClose() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofSeconds(25));
      s.expect("{'msg':'ping'}");

      h.time.advance(Duration.ofSeconds(15)); // nothing came back

      assertThat(s.closedByClient()).isTrue();
      assertThat(h.client.stats().heartbeatTimeouts()).isEqualTo(1);
      assertThat(h.manager.status().lastCloseCode()).isEqualTo(1006);
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.WAITING);
      assertThat(h.client.status().reason()).contains("heartbeat timeout");
      h.time.advance(Duration.ofSeconds(1));
      assertThat(h.net.count()).as("redialed within interval + timeout + backoff").isEqualTo(2);
      assertThat(h.time.now()).isEqualTo(Duration.ofSeconds(41));

      s.lateClose(1006, "read timed out"); // the dead socket's late callback

      assertThat(h.net.count()).isEqualTo(2);
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.CONNECTING);
      assertThat(h.manager.status().attempt()).isEqualTo(1);
      h.handshake(h.connectWithSession("s1"), "s2");
      assertThat(h.client.status().connected()).isTrue();
    }
  }

  @Test
  void lateFramesFromAnOldSocketAreIgnored() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s1.send("{'msg':'ping','id':'old'}");
      s1.send("{'msg':'added','collection':'c','id':'1','fields':{}}");
      s2.expectNothing();
      assertThat(h.client.collection("c").size()).isZero();
    }
  }

  @Test
  void dialThatNeverReachesConnectedTimesOutAsAFailedAttempt() {
    try (Harness h = new Harness()) {
      h.client.connect();
      ServerEnd s = h.net.last().open().expect(Harness.CONNECT);

      h.time.advance(Duration.ofSeconds(10));

      assertThat(s.closedByClient()).isTrue();
      assertThat(h.client.stats().connectTimeouts()).isEqualTo(1);
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.WAITING);
      assertThat(h.client.status().reason()).contains("connect timeout");
      assertThat(h.client.status().attempt()).isEqualTo(1);
    }
  }

  @Test
  void checkHealthWithRecentTrafficIsAliveWithoutAPing() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofSeconds(1));
      assertThat(h.client.checkHealth()).isCompletedWithValue(true);
      s.expectNothing();
    }
  }

  @Test
  void checkHealthInBetweenPingsAndAnAnswerMeansAlive() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofSeconds(5));
      CompletableFuture<Boolean> alive = h.client.checkHealth();
      s.expect("{'msg':'ping'}");
      assertThat(alive).isNotDone();
      s.send("{'msg':'pong'}");
      assertThat(alive).isCompletedWithValue(true);
      assertThat(s.closedByClient()).isFalse();
    }
  }

  @Test
  void checkHealthWithoutAnswerWithinTwoSecondsRedialsAtOnce() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofSeconds(5));
      CompletableFuture<Boolean> alive = h.client.checkHealth();
      h.time.advance(Duration.ofSeconds(2));
      assertThat(alive).isCompletedWithValue(false);
      assertThat(s.closedByClient()).isTrue();
      assertThat(h.net.count()).as("dialed at once, no backoff").isEqualTo(2);
    }
  }

  /**
   * Regression: with the defaults (25 s interval, 15 s timeout) a room silent for 20 s has not
   * even been pinged yet; the health check used to redial it because 20 s exceeds the timeout.
   */
  @Test
  void quietRoomIdleFor20SecondsSurvivesCheckHealthViaAPing() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofSeconds(20));
      s.expectNothing(); // the heartbeat has not pinged yet

      CompletableFuture<Boolean> alive = h.client.checkHealth();

      s.expect("{'msg':'ping'}");
      assertThat(alive).isNotDone();
      assertThat(s.closedByClient()).isFalse();
      s.send("{'msg':'pong'}");
      assertThat(alive).isCompletedWithValue(true);
      assertThat(s.closedByClient()).isFalse();
      assertThat(h.net.count()).isEqualTo(1);
      assertThat(h.client.stats().heartbeatTimeouts()).isZero();
    }
  }

  @Test
  void deadSocketSilentBeyondIntervalPlusTimeoutIsRedialedAtOnceWithoutPinging() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.clock.holdTimersFor(Duration.ofSeconds(41)); // in the background: the clock ran, no timer did
      s.expectNothing();

      assertThat(h.client.checkHealth()).isCompletedWithValue(false);

      s.expectNothing();
      assertThat(s.closedByClient()).isTrue();
      assertThat(h.net.count()).as("dialed at once, no backoff").isEqualTo(2);
    }
  }

  @Test
  void silenceWithinIntervalPlusTimeoutIsProbedEvenIfTimersWereHeld() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.clock.holdTimersFor(Duration.ofSeconds(39));

      CompletableFuture<Boolean> alive = h.client.checkHealth();

      s.expect("{'msg':'ping'}");
      s.send("{'msg':'pong'}");
      assertThat(alive).isCompletedWithValue(true);
      assertThat(s.closedByClient()).isFalse();
    }
  }

  @Test
  void withTheHeartbeatOffALongSilenceIsProbedNotRedialed() {
    try (Harness h = new Harness(b -> b.heartbeatInterval(Duration.ZERO))) {
      ServerEnd s = h.connect("s1");
      h.time.advance(Duration.ofMinutes(5));
      s.expectNothing(); // heartbeat off

      CompletableFuture<Boolean> alive = h.client.checkHealth();

      s.expect("{'msg':'ping'}");
      s.send("{'msg':'pong'}");
      assertThat(alive).isCompletedWithValue(true);
      assertThat(s.closedByClient()).isFalse();
    }
  }

  @Test
  void networkAvailableDialsAtOnceWhenWaiting() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      s.closeFromServer(1006, "");
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.WAITING);
      h.client.networkAvailable();
      assertThat(h.net.count()).isEqualTo(2);
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.CONNECTING);
    }
  }
}
