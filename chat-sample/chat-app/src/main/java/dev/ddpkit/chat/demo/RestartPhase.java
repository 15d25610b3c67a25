package dev.ddpkit.chat.demo;

import dev.ddpkit.reconnect.admission.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One restart of the demo's server and how the clients came back from it: when the server went
 * away, when the next one was up, when the last client was back, and the server's view of the
 * wave (what it admitted, turned away, and the appointments it gave).
 *
 * @param kind how the server went away
 * @param stopAtNanos when it went away ({@code System.nanoTime()})
 * @param restartAtNanos when the next server was up (for {@link Kind#WARM}, ready: its warm-up over)
 * @param allBackSeconds from the restart until every client was logged in again
 * @param plannedAppointments for a planned restart, when each connection was told to come back
 *     (nanoTime); empty for a kill
 */
record RestartPhase(Kind kind, long stopAtNanos, long restartAtNanos, double allBackSeconds,
    List<Long> plannedAppointments) {

  /** How the server went away. */
  enum Kind {
    /**
     * A deploy: {@code ChatServer.stopForRestart} closes every connection with 1012 and its own
     * appointment, the time the next server is expected plus its place in the queue at C/s.
     */
    PLANNED("planned restart", "stop"),
    /** A crash: every socket cut at once, no close frame, no hint. */
    KILL("hard kill", "kill"),
    /**
     * The same crash, but the next server listens at once and warms up for D ({@code
     * ChatServerBuilder.warmUp}): every dial until it is ready is turned away with 1013 and a slot
     * after it, so nobody is left sleeping on a long backoff.
     */
    WARM("hard kill, next server warming up", "kill");

    final String title;
    final String event;

    Kind(String title, String event) {
      this.title = title;
      this.event = event;
    }

    /**
     * Parses {@code planned}, {@code kill}, {@code warm}, {@code both} (planned, kill) or {@code
     * all} (planned, kill, warm) into the kinds to run, in order.
     */
    static List<Kind> parse(String text) {
      switch (text) {
        case "planned":
          return List.of(PLANNED);
        case "kill":
          return List.of(KILL);
        case "warm":
          return List.of(WARM);
        case "both":
          return List.of(PLANNED, KILL);
        case "all":
          return List.of(PLANNED, KILL, WARM);
        default:
          throw new IllegalArgumentException(
              "--restart must be planned, kill, warm, both or all: " + text);
      }
    }
  }

  RestartPhase {
    plannedAppointments = List.copyOf(plannedAppointments);
  }

  /**
   * When each of {@code connections} connections is told to come back when a server admitting
   * {@code acceptRate} per second is stopped at {@code stopAtNanos} for {@code down}: computed by
   * the server's own {@link Admission}, so the chart shows what the server promised.
   */
  static List<Long> appointments(long stopAtNanos, Duration down, int connections, int acceptRate) {
    List<Long> due = new ArrayList<>(connections);
    if (acceptRate <= 0) {
      return due;
    }
    Admission plan = Admission.builder().capacity(acceptRate).build();
    for (int place = 1; place <= connections; place++) {
      long ms = plan.restartAppointment(down, place).retryAfterMillis();
      due.add(stopAtNanos + TimeUnit.MILLISECONDS.toNanos(ms));
    }
    return due;
  }

  /** The downtime: from the stop or kill until the next server was up, in seconds. */
  double downSeconds() {
    return (restartAtNanos - stopAtNanos) / 1e9;
  }

  /**
   * The wave at the server from the restart until {@code endNanos}: arrivals ({nanoTime, accepted,
   * rejected}) and the appointments given ({@code rejections}' and, for a planned restart, the
   * ones given at the stop), one row per {@code bucketMs}.
   */
  List<String> wave(Collection<long[]> arrivals, Collection<Long> rejections, long endNanos,
      long bucketMs, int acceptRate) {
    ArrivalHistogram h = new ArrivalHistogram(bucketMs);
    for (long[] a : arrivals) {
      if (a[0] >= restartAtNanos && a[0] < endNanos) {
        h.add((a[0] - restartAtNanos) / 1_000_000, a[1], a[2]);
      }
    }
    List<Long> due = new ArrayList<>(plannedAppointments);
    for (long d : rejections) {
      if (d >= stopAtNanos && d < endNanos) {
        due.add(d);
      }
    }
    for (long d : due) {
      if (d >= restartAtNanos) {
        h.appointment((d - restartAtNanos) / 1_000_000);
      }
    }
    long accepted = 0;
    long rejected = 0;
    for (long v : h.accepted()) {
      accepted += v;
    }
    for (long v : h.rejected()) {
      rejected += v;
    }
    List<String> lines = new ArrayList<>();
    if (kind == Kind.WARM) {
      long booked = 0;
      for (long[] a : arrivals) {
        booked += a[0] >= stopAtNanos && a[0] < restartAtNanos ? a[2] : 0;
      }
      lines.add(String.format(Locale.ROOT, "during the warm-up (%.1f s): %d dials turned away with"
          + " 1013, each given a slot after it", downSeconds(), booked));
    }
    lines.add(String.format(Locale.ROOT, "reconnect wave after the %s, per %d ms from the restart"
        + " (# accepted, x rejected 1013; due: appointments, clients told to come back then):",
        kind.title, bucketMs));
    lines.addAll(h.render(50));
    lines.add(String.format(Locale.ROOT, "  total: %d accepted, %d turned away with 1013 (accept"
        + " rate %d/s)", accepted, rejected, acceptRate));
    return lines;
  }

  /**
   * All-back time against the least the server allows: N/C after the restart (its bucket starts
   * empty), D + N/C from the stop or kill. Empty when nothing was measured or nothing is limited.
   */
  List<String> limit(int clients, int acceptRate) {
    if (Double.isNaN(allBackSeconds) || acceptRate <= 0) {
      return List.of();
    }
    double down = downSeconds();
    double nc = (double) clients / acceptRate;
    return List.of(String.format(Locale.ROOT, "  %s: all back %.1f s after the restart: limit"
        + " N/C = %d/%d/s = %.1f s (%.2fx); %.1f s after the %s: limit D + N/C = %.1f + %.1f"
        + " = %.1f s (%.2fx)",
        kind.title, allBackSeconds, clients, acceptRate, nc, allBackSeconds / nc,
        down + allBackSeconds, kind.event, down, nc, down + nc, (down + allBackSeconds)
            / (down + nc)));
  }
}
