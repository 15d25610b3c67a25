package dev.ddpkit.reconnect.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.reconnect.admission.Admission.Outcome;
import dev.ddpkit.reconnect.admission.Admission.Verdict;
import org.junit.jupiter.api.Test;

class ModelServerTest {
  private static final long MS = 1_000_000L;

  private static Outcome outcome(ModelServer server, long at) {
    return server.admit(at).outcome();
  }

  @Test
  void refusesWhileDownThenStartsWithAnEmptyBucket() {
    ModelServer server = new ModelServer(5_000 * MS, 500, 500, /* hints= */ false, false);

    assertThat(server.down(0)).isTrue();
    assertThat(server.down(4_999 * MS)).isTrue();
    assertThatThrownBy(() -> server.admit(4_999 * MS)).isInstanceOf(IllegalStateException.class);
    assertThat(server.down(5_000 * MS)).isFalse();
    // Up at 5 s with no token yet; one token accrues every 2 ms at 500/s.
    assertThat(outcome(server, 5_000 * MS)).isEqualTo(Outcome.REJECTED);
    assertThat(outcome(server, 5_001 * MS)).isEqualTo(Outcome.REJECTED);
    assertThat(outcome(server, 5_002 * MS)).isEqualTo(Outcome.ADMITTED);
    assertThat(outcome(server, 5_002 * MS)).isEqualTo(Outcome.REJECTED);
  }

  @Test
  void warmingUpItListensThroughTheDowntimeAndBooksEachDialASlotAfterIt() {
    ModelServer server = new ModelServer(5_000 * MS, 500, 500, /* hints= */ true, true);

    assertThat(server.down(0)).isFalse();
    assertThat(server.admit(0)).isEqualTo(new Verdict(Outcome.REJECTED, 5_002));
    assertThat(server.admit(4_000 * MS)).isEqualTo(new Verdict(Outcome.REJECTED, 1_004));
    assertThat(outcome(server, 5_002 * MS)).isEqualTo(Outcome.CLAIMED);
    assertThat(outcome(server, 5_004 * MS)).isEqualTo(Outcome.CLAIMED);
    assertThat(outcome(server, 5_004 * MS)).isEqualTo(Outcome.REJECTED);
  }

  @Test
  void admitsAtMostTheBurstAfterAnIdleSpellAndThenTheRate() {
    ModelServer server = new ModelServer(0, 100, 10, /* hints= */ false, false);
    server.admit(0); // starts the bucket

    int accepted = 0;
    for (int i = 0; i < 50; i++) {
      if (server.admit(3_600_000 * MS).admitted()) {
        accepted++;
      }
    }
    assertThat(accepted).isEqualTo(10);
    // 100/s: the next token comes 10 ms later, not before.
    assertThat(outcome(server, 3_600_000 * MS + 9 * MS)).isEqualTo(Outcome.REJECTED);
    assertThat(outcome(server, 3_600_000 * MS + 10 * MS)).isEqualTo(Outcome.ADMITTED);
  }

  @Test
  void hintsSpreadTheBacklogAtTheCapacityAndKeepTheSlots() {
    ModelServer server = new ModelServer(0, 500, 500, /* hints= */ true, false);

    // The k-th client rejected into the backlog is told k/C seconds: 2 ms apart at 500/s.
    assertThat(server.admit(0)).isEqualTo(new Verdict(Outcome.REJECTED, 2));
    assertThat(server.admit(0)).isEqualTo(new Verdict(Outcome.REJECTED, 4));
    assertThat(server.admit(0)).isEqualTo(new Verdict(Outcome.REJECTED, 6));
    // 1 ms later the backlog ends 5 ms from now; the next slot is 2 ms after it.
    assertThat(server.admit(MS)).isEqualTo(new Verdict(Outcome.REJECTED, 7));
    // The four come back in their slots and get in on them.
    for (long slot : new long[] {2, 4, 6, 8}) {
      assertThat(outcome(server, slot * MS)).isEqualTo(Outcome.CLAIMED);
    }
    // Once the backlog has drained and the bucket has been emptied, counting starts again.
    while (server.admit(1_000 * MS).admitted()) {
      // takes the tokens that accrued since 8 ms
    }
    assertThat(server.admit(1_001 * MS)).isEqualTo(new Verdict(Outcome.REJECTED, 3));
  }

  @Test
  void aPlannedRestartGivesEachConnectionTheDowntimePlusItsPlaceAtC() {
    ModelServer server = new ModelServer(5_000 * MS, 500, 500, /* hints= */ false, false);

    assertThat(server.restartAppointment(1).retryAfterMillis()).isEqualTo(5_002);
    assertThat(server.restartAppointment(10_000).closeReason("service restart"))
        .isEqualTo("service restart; retry-after=25000");
  }
}
