package dev.ddpkit.reconnect.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.reconnect.admission.Admission;
import dev.ddpkit.reconnect.admission.Admission.Outcome;
import dev.ddpkit.reconnect.admission.Admission.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The simulation predicts the server: the same arrival times, fed through the model server as
 * the herd simulation uses it (nanoseconds since the drop, down for D) and through an {@link
 * Admission} built the way {@code ChatServer} builds it (when it starts, on its wall clock in
 * milliseconds), get the same verdicts, appointments included.
 */
class AdmissionParityTest {
  private static final long MS = 1_000_000L;
  private static final long DOWN_MS = 1_000;
  private static final long EPOCH_MS = 1_764_590_400_000L;

  private long wallMillis;

  @Test
  void theModelServerAndAServerOnItsWallClockGiveTheSameVerdicts() {
    for (boolean hints : new boolean[] {true, false}) {
      List<String> model = new ArrayList<>();
      List<String> server = new ArrayList<>();
      run(hints, model, server);
      assertThat(server).as("hints " + hints).isEqualTo(model);
      assertThat(model).as("hints " + hints).hasSizeGreaterThan(1_500);
      // Both kinds of admission and rejections happened, so the comparison covers them all.
      assertThat(String.join("\n", model)).contains("REJECTED").contains("ADMITTED");
      if (hints) {
        assertThat(String.join("\n", model)).contains("CLAIMED");
        // Some admissions were held under the peak limit, and held alike by both.
        assertThat(String.join("\n", model)).containsPattern("holdMillis=[1-9]");
      }
    }
  }

  private void run(boolean hints, List<String> model, List<String> server) {
    int capacity = 200;
    ModelServer modelServer = new ModelServer(DOWN_MS * MS, capacity, capacity, hints, false);
    Admission chatServer = null; // built when the server comes up, as ChatServer's is
    SplittableRandom random = new SplittableRandom(3);
    PriorityQueue<long[]> arrivals =
        new PriorityQueue<>(
            (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    for (int i = 0; i < 1_000; i++) {
      arrivals.add(new long[] {DOWN_MS + random.nextLong(2_000), i});
    }
    while (!arrivals.isEmpty()) {
      long[] next = arrivals.poll();
      long t = next[0]; // ms after the drop
      if (chatServer == null) {
        wallMillis = EPOCH_MS + DOWN_MS;
        chatServer =
            Admission.builder()
                .capacity(capacity)
                .appointments(hints)
                .millisClock(() -> wallMillis)
                .build();
      }
      wallMillis = EPOCH_MS + t;
      Verdict byServer = chatServer.admit();
      Verdict byModel = modelServer.admit(t * MS);
      model.add(t + " " + byModel);
      server.add(t + " " + byServer);
      if (byModel.outcome() == Outcome.REJECTED) {
        // Back at the hint plus a spread (or, without a hint, after a backoff of its own).
        long wait =
            hints ? byModel.retryAfterMillis() + random.nextLong(50) : 500 + random.nextLong(1_000);
        arrivals.add(new long[] {t + wait, next[1]});
      }
    }
  }
}
