package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ChatClientBuilder#random}: the reconnection manager's backoff draws from it too, so a
 * seeded client (a benchmark's, a test's) waits the same time after the same failure every run.
 */
class SeededJitterTest {

  @Test
  void theSameSeedGivesTheSameReconnectDelayAndAnotherSeedAnother() {
    long a = firstRetryAtNanos(7);
    assertThat(firstRetryAtNanos(7)).isEqualTo(a);
    assertThat(firstRetryAtNanos(8)).isNotEqualTo(a);
  }

  /** When a full-jitter client seeded with {@code seed} dials again after its first dial fails. */
  private static long firstRetryAtNanos(long seed) {
    try (ChatHarness h = new ChatHarness(b -> b.room("general")
        .backoff(Backoff.fullJitter(Duration.ofSeconds(10), Duration.ofSeconds(60)))
        .random(new Random(seed)))) {
      h.client.start();
      h.refuse();
      ReconnectionManager m = h.client.reconnectionManager();
      assertThat(m.status().state()).isEqualTo(ReconnectionManager.State.WAITING);
      return m.status().nextAttemptAtNanos();
    }
  }
}
