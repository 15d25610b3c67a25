package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (review): {@code connect()} called from a status listener on FAILED, after the server
 * refused every DDP version, was undone by the manager's STOPPED notification still queued from
 * that failure: the client went back to FAILED with the manager CONNECTING and no dial, for good
 * (a later {@code connect()} did nothing either).
 */
@Timeout(value = 30, unit = SECONDS)
class ConnectFromFailedListenerTest {

  @Test
  void connectFromAFailedListenerAfterAVersionFailureDialsAgain() {
    AtomicReference<DdpClient> self = new AtomicReference<>();
    AtomicBoolean retried = new AtomicBoolean();
    try (Harness h = new Harness(b -> b.addStatusListener(st -> {
          if (st.state() == DdpStatus.State.FAILED && retried.compareAndSet(false, true)) {
            self.get().connect(); // "after a failure for good it starts again"
          }
        }))) {
      self.set(h.client);
      h.client.connect();
      ServerEnd s = h.net.last().open().expect(Harness.CONNECT);

      s.send("{'msg':'failed','version':'99'}");

      assertThat(retried).isTrue();
      assertThat(h.net.count()).as("a new dial after connect()").isEqualTo(2);
      assertThat(h.manager.status().state()).isEqualTo(ReconnectionManager.State.CONNECTING);
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.CONNECTING);
      h.handshake(Harness.CONNECT, "s2");
      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.CONNECTED);
    }
  }

  @Test
  void aStopOfTheManagerStillFailsTheClient() {
    try (Harness h = new Harness()) {
      h.connect("s1");

      h.manager.stop(); // not stale: the manager really stopped

      assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.FAILED);
      h.time.advance(Duration.ofMinutes(5));
      assertThat(h.net.count()).as("no redial").isEqualTo(1);
    }
  }
}
