package dev.ddpkit.reconnect.sim;

import dev.ddpkit.reconnect.admission.Admission;
import java.time.Duration;

/**
 * The server of the herd model, on times in nanoseconds since the drop: refused outright while
 * down ({@code t < downtime}), then the server's own {@link Admission}, built when the server
 * comes up at {@code downtime} (its bucket empty then), on a ticker that reads the time of the
 * dial being judged. Starting empty makes {@code D + N/C} a true lower bound on the time the last
 * client is back.
 *
 * <p>Warming up ({@link HerdConfig#warmUp()}), the server listens from the drop on: its admission
 * is built then with a warm-up as long as the downtime, so a dial during the downtime is turned
 * away (1013) with a slot after it instead of refused.
 *
 * <p>With hints, a rejected dial is given the next free slot and the slot is reserved (the
 * admission's appointments); without, the admission is the plain token bucket, since nobody would
 * come back in a slot nobody was told about.
 */
final class ModelServer {
  private final long downNanos;
  private final boolean warmUp;
  private final Admission admission;
  private long now;

  ModelServer(long downNanos, int capacity, int burst, boolean hints, boolean warmUp) {
    this.downNanos = downNanos;
    this.warmUp = warmUp;
    this.now = warmUp ? 0 : downNanos;
    this.admission =
        Admission.builder()
            .capacity(capacity)
            .burst(burst)
            .appointments(hints)
            .warmUp(Duration.ofNanos(warmUp ? downNanos : 0))
            .ticker(() -> now)
            .build();
  }

  /**
   * Whether a dial at {@code at} nanoseconds after the drop finds nothing listening (1006): during
   * the downtime, unless the server is warming up.
   */
  boolean down(long at) {
    return !warmUp && at < downNanos;
  }

  /**
   * Judges a dial arriving {@code at} nanoseconds after the drop, once the server is up; times
   * never go back.
   */
  Admission.Verdict admit(long at) {
    if (down(at)) {
      throw new IllegalStateException("the server is down until " + downNanos + " ns: " + at);
    }
    now = at;
    return admission.admit();
  }

  /**
   * The appointment (its time in milliseconds after the drop) of the connection in place {@code
   * place} (1, 2, ...) closed for a planned restart: the downtime plus its place in the queue at
   * C/s.
   */
  Admission.Verdict restartAppointment(int place) {
    return admission.restartAppointment(Duration.ofNanos(downNanos), place);
  }
}
