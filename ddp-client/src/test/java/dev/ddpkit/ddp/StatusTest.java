package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.ddp.DdpStatus.State;
import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Meteor's status(): states, retry count, retry time and reason. */
@Timeout(value = 30, unit = SECONDS)
class StatusTest {

  @Test
  void transitionsWithRetryCountAndWallClockRetryTime() {
    try (Harness h = new Harness()) {
      assertThat(h.client.status()).isEqualTo(new DdpStatus(State.CONNECTING, 0, null, ""));
      ServerEnd s = h.connect("s1");
      assertThat(h.client.status()).isEqualTo(new DdpStatus(State.CONNECTED, 0, null, ""));

      s.closeFromServer(1001, "going away");
      assertThat(h.client.status())
          .isEqualTo(
              new DdpStatus(State.WAITING, 1, Harness.T0.plusSeconds(1), "closed 1001 going away"));

      assertThat(h.client.status().retryIn(Harness.T0)).isEqualTo(Duration.ofSeconds(1));
      assertThat(h.client.status().retryIn(Harness.T0.plusMillis(400)))
          .isEqualTo(Duration.ofMillis(600));
      assertThat(h.client.status().retryIn(Harness.T0.plusSeconds(2))).as("overdue: never negative")
          .isEqualTo(Duration.ZERO);

      h.redial();
      assertThat(h.client.status().state()).isEqualTo(State.CONNECTING);
      assertThat(h.client.status().retryIn(Harness.T0)).as("no attempt scheduled")
          .isEqualTo(Duration.ZERO);
      h.net.last().open();
      assertThat(h.client.status().state()).as("socket open, handshake pending")
          .isEqualTo(State.CONNECTING);
      h.net.last().drain();
      h.net.last().send("{'msg':'connected','session':'s2'}");
      assertThat(h.client.status()).isEqualTo(new DdpStatus(State.CONNECTED, 1, null, ""));

      h.time.advance(Duration.ofSeconds(10)); // stable: the count resets
      assertThat(h.client.status()).isEqualTo(new DdpStatus(State.CONNECTED, 0, null, ""));

      h.client.close();
      assertThat(h.client.status()).isEqualTo(new DdpStatus(State.OFFLINE, 0, null,
          "closed by client"));
      assertThat(h.statuses)
          .extracting(DdpStatus::state)
          .containsExactly(
              State.CONNECTED, State.WAITING, State.CONNECTING, State.CONNECTED, State.CONNECTED,
              State.OFFLINE);
    }
  }

  @Test
  void heldWhileTheNetworkIsLostIsOffline() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      s.closeFromServer(1006, "");
      h.client.networkLost();
      assertThat(h.client.status().state()).isEqualTo(State.OFFLINE);
      h.client.networkAvailable();
      assertThat(h.client.status().state()).isEqualTo(State.CONNECTING);
    }
  }

  @Test
  void suspendedHoldsDialsUntilResumedWhichDialsAtOnce() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      h.client.suspend();
      s.closeFromServer(1006, "");
      assertThat(h.client.status().state()).isEqualTo(State.OFFLINE);
      int dials = h.net.count();

      h.time.advance(Duration.ofMinutes(5));
      assertThat(h.net.count()).as("no dial while suspended").isEqualTo(dials);

      h.client.resume();
      assertThat(h.client.status().state()).isEqualTo(State.CONNECTING);
      assertThat(h.net.count()).isEqualTo(dials + 1);
    }
  }

  @Test
  void networkLostAfterCloseIsIgnored() {
    try (Harness h = new Harness()) {
      h.connect("s1");
      h.client.close();
      h.client.networkLost();
      h.client.suspend();
      h.client.resume();
      assertThat(h.client.reconnectionManager().status().networkLost()).isFalse();
      assertThat(h.client.reconnectionManager().status().suspended()).isFalse();
    }
  }

  @Test
  void closeCodeThatStopsIsFailedAndFailsPendingWork() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      var call = h.client.call("x");
      Subscription sub = h.client.subscribe("y");

      s.closeFromServer(1008, "policy violation");

      assertThat(h.client.status().state()).isEqualTo(State.FAILED);
      assertThat(h.client.status().reason()).contains("1008");
      failure(call, DdpException.class);
      failure(sub.ready(), DdpException.class);
      h.time.advance(Duration.ofMinutes(10));
      assertThat(h.net.count()).isEqualTo(1);

      h.client.connect(); // starts again after a failure for good
      assertThat(h.net.count()).isEqualTo(2);
    }
  }

  @Test
  void aConnectFromTheFailedListenerStartsAfreshWithNoLateStoppedUndoingIt() {
    // The manager's STOPPED reaches the loop before the connect() the FAILED status asked for:
    // the client starts again and stays started (once, a STOPPED delivered late failed it again).
    try (Harness h = new Harness(b -> {})) {
      h.client.addStatusListener(st -> {
        if (st.state() == State.FAILED && h.net.count() == 1) {
          h.client.connect();
        }
      });
      h.connect("s1").closeFromServer(1008, "policy violation");
      assertThat(h.net.count()).as("dialed again at once").isEqualTo(2);
      assertThat(h.client.status().state()).isEqualTo(State.CONNECTING);
      // (The first CONNECTING is the status from the start: no change, so not told.)
      assertThat(h.statuses).extracting(DdpStatus::state).containsExactly(
          State.CONNECTED, State.FAILED, State.CONNECTING);
      // The last session is named (not resumable after a failure: no count), as after any failure.
      h.handshake("{'msg':'connect','version':'1','support':['1','pre2','pre1'],'session':'s1'}",
          "s2");
      assertThat(h.client.status().state()).isEqualTo(State.CONNECTED);
    }
  }

  @Test
  void theUserStoppingTheManagerFailsTheClientInOrder() {
    try (Harness h = new Harness()) {
      h.connect("s1").closeFromServer(1006, "");
      assertThat(h.client.status().state()).isEqualTo(State.WAITING);
      h.manager.stop();
      assertThat(h.client.status().state()).isEqualTo(State.FAILED);
      assertThat(h.client.status().reason()).isEqualTo("stopped by client");
      assertThat(h.statuses).extracting(DdpStatus::state).containsExactly(
          State.CONNECTED, State.WAITING, State.FAILED);
      h.client.connect();
      assertThat(h.net.count()).isEqualTo(2);
      assertThat(h.client.status().state()).isEqualTo(State.CONNECTING);
    }
  }

  @Test
  void legacyReopenRetriesAtAFixedInterval() {
    VirtualScheduler time = new VirtualScheduler(Harness.T0);
    InMemoryTransportFactory net = new InMemoryTransportFactory();
    try (DdpClient client =
        DdpClient.builder()
            .url(Harness.URL)
            .reopen(Duration.ofSeconds(5))
            .scheduler(time)
            .transportFactory(net)
            .executor(Runnable::run)
            .build()) {
      client.connect();
      for (int attempt = 1; attempt <= 4; attempt++) {
        net.last().closeFromServer(1006, "");
        // Five seconds from now on the one clock: T0 plus the virtual time elapsed.
        assertThat(client.status().retryTime()).isEqualTo(time.wallTime().plusSeconds(5));
        assertThat(client.status().attempt()).isEqualTo(attempt);
        time.advance(Duration.ofMillis(4_999));
        assertThat(net.count()).isEqualTo(attempt);
        time.advance(Duration.ofMillis(1));
        assertThat(net.count()).isEqualTo(attempt + 1);
      }
      assertThat(client.reconnectionManager().backoff().toString()).isEqualTo("fixed(5000ms)");
    }
  }

  @Test
  void aSeededJitterGivesTheSameRetryTimeAndAnotherSeedAnother() {
    Instant a = firstRetry(new Random(7));
    assertThat(firstRetry(new Random(7))).isEqualTo(a);
    assertThat(firstRetry(new Random(8))).isNotEqualTo(a);
    assertThatThrownBy(() -> DdpClient.builder().random(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("random");
    assertThatThrownBy(() -> deprecatedJitter(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("jitter");
  }

  @SuppressWarnings("deprecation") // the adapter still checks its argument
  private static void deprecatedJitter(java.util.function.DoubleSupplier jitter) {
    DdpClient.builder().jitter(jitter);
  }

  /** When a full-jitter client drawing from {@code random} retries after the server goes away. */
  private static Instant firstRetry(Random random) {
    try (Harness h = new Harness(Backoff.fullJitter(Duration.ofSeconds(10), Duration.ofSeconds(60)),
        b -> b.random(random))) {
      h.connect("s1").closeFromServer(1001, "going away");
      assertThat(h.client.status().state()).isEqualTo(State.WAITING);
      return h.client.status().retryTime();
    }
  }
}
