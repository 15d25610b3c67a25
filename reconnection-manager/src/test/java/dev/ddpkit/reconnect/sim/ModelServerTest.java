package dev.ddpkit.reconnect.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.reconnect.sim.ModelServer.Verdict;
import org.junit.jupiter.api.Test;

class ModelServerTest {
  private static final long MS = 1_000_000L;

  @Test
  void refusesWhileDownThenStartsWithAnEmptyBucket() {
    ModelServer server = new ModelServer(5_000 * MS, 500, 500);

    assertThat(server.admit(0)).isEqualTo(Verdict.REFUSED);
    assertThat(server.admit(4_999 * MS)).isEqualTo(Verdict.REFUSED);
    // Up at 5 s with no token yet; one token accrues every 2 ms at 500/s.
    assertThat(server.admit(5_000 * MS)).isEqualTo(Verdict.REJECTED);
    assertThat(server.admit(5_001 * MS)).isEqualTo(Verdict.REJECTED);
    assertThat(server.admit(5_002 * MS)).isEqualTo(Verdict.ACCEPTED);
    assertThat(server.admit(5_002 * MS)).isEqualTo(Verdict.REJECTED);
  }

  @Test
  void admitsAtMostTheBurstAfterAnIdleSpellAndThenTheRate() {
    ModelServer server = new ModelServer(0, 100, 10);
    server.admit(0); // starts the bucket

    int accepted = 0;
    for (int i = 0; i < 50; i++) {
      if (server.admit(3_600_000 * MS) == Verdict.ACCEPTED) {
        accepted++;
      }
    }
    assertThat(accepted).isEqualTo(10);
    // 100/s: the next token comes 10 ms later, not before.
    assertThat(server.admit(3_600_000 * MS + 9 * MS)).isEqualTo(Verdict.REJECTED);
    assertThat(server.admit(3_600_000 * MS + 10 * MS)).isEqualTo(Verdict.ACCEPTED);
  }

  @Test
  void hintsSpreadTheBacklogAtTheCapacity() {
    ModelServer server = new ModelServer(0, 500, 500);

    // The k-th client rejected into the backlog is told k/C seconds: 2 ms apart at 500/s.
    assertThat(server.retryAfterMillis(0)).isEqualTo(2);
    assertThat(server.retryAfterMillis(0)).isEqualTo(4);
    assertThat(server.retryAfterMillis(0)).isEqualTo(6);
    // 1 ms later the backlog ends 5 ms from now; the next slot is 2 ms after it.
    assertThat(server.retryAfterMillis(MS)).isEqualTo(7);
    // Once the backlog has drained, counting starts again.
    assertThat(server.retryAfterMillis(1_000 * MS)).isEqualTo(2);
  }
}
