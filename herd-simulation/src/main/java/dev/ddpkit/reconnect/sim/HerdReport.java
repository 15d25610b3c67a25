package dev.ddpkit.reconnect.sim;

import com.google.common.base.CharMatcher;
import com.google.common.base.Strings;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Renders {@link HerdResult}s: a text table with the physical limit beside it, a text histogram
 * of arrivals, one JSON object per result, and an SVG chart. Pure functions of the results; all
 * numbers are formatted in {@link Locale#ROOT}.
 */
public final class HerdReport {
  private static final int TEXT_BAR_WIDTH = 60;
  private static final int TEXT_MAX_ROWS = 60;
  private static final int[] NICE_MERGES = {1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1200, 3600};

  private HerdReport() {}

  /**
   * Returns the scenario line, the physical limit line and the table, one row per result plus a
   * row for the physical limit.
   *
   * @throws IllegalArgumentException if the list is empty or the results are of different
   *     scenarios (anything but the policy differs)
   */
  public static String table(List<HerdResult> results) {
    HerdConfig c = scenarioOf(results);
    StringBuilder sb = new StringBuilder();
    sb.append(scenarioLine(c)).append('\n');
    sb.append(
        String.format(
            Locale.ROOT,
            "Physical limit: all %d back at %s (D + N/C = %d ms + %d/%d s), with 1.00 attempt per"
                + " client.%n",
            c.clients(), seconds(c.limitMillis()), c.downtime().toMillis(), c.clients(),
            c.capacity()));
    sb.append('\n');
    String fmt = "%-14s %9s %9s %10s %16s %16s %15s %8s %7s%n";
    sb.append(
        String.format(
            Locale.ROOT, fmt, "policy", "50% back", "99% back", "100% back", "attempts/client",
            "rejected (1013)", "refused (down)", "peak/s", "peak/C"));
    for (HerdResult r : results) {
      sb.append(
          String.format(
              Locale.ROOT, fmt, r.policyName(), seconds(r.p50Ms(), c), seconds(r.p99Ms(), c),
              seconds(r.maxMs(), c), String.format(Locale.ROOT, "%.2f", r.attemptsPerClient()),
              r.rejected(), r.refused(), r.peakPerSecond(),
              String.format(Locale.ROOT, "%.1f", (double) r.peakPerSecond() / c.capacity())));
    }
    sb.append(
        String.format(
            Locale.ROOT, fmt, "physical limit", seconds(limitFor(c, 50)), seconds(limitFor(c, 99)),
            seconds(c.limitMillis()), "1.00", 0, 0, c.capacity(), "1.0"));
    for (HerdResult r : results) {
      if (!r.complete()) {
        sb.append(
            String.format(
                Locale.ROOT, "%s: only %d of %d clients back when the run stopped at %s.%n",
                r.policyName(), r.clientsBack(), c.clients(), seconds(c.horizon().toMillis())));
      }
    }
    if (c.hints() || c.planned()) {
      appointments(sb, results, c);
    }
    return sb.toString();
  }

  /** The hint protocol's figures: against the limit, dials the server answered, peak admits. */
  private static void appointments(StringBuilder sb, List<HerdResult> results, HerdConfig c) {
    sb.append(
        String.format(
            Locale.ROOT,
            "%nAppointments kept: 100%% back against the limit, dials the server answered (admitted"
                + " or 1013) per client, most admitted in any 1 s window (C = %d):%n",
            c.capacity()));
    for (HerdResult r : results) {
      double x = r.complete() ? (double) r.maxMs().getAsLong() / c.limitMillis() : -1;
      String ratio = x < 0 ? "-" : String.format(Locale.ROOT, "%.2fx", x);
      sb.append(
          String.format(
              Locale.ROOT, "%-14s %9s %6.2f answered/client %6s admitted/s%n", r.policyName(),
              ratio,
              r.answeredPerClient(),
              r.peakAcceptedPerSecond() < 0 ? "-" : Integer.toString(r.peakAcceptedPerSecond())));
    }
  }

  /**
   * Returns a text histogram of the dials reaching the server over time: one row per bucket (or
   * per several buckets, so that there are at most 60 rows), {@code #} accepted, {@code x}
   * rejected with 1013, {@code .} refused while down, and {@code |} where the row would reach the
   * capacity C (when the bar is shorter). The scale fits what the server must answer once up (or
   * C); a longer row of refusals is cut and ends with {@code >}. Each row ends with its count.
   */
  public static String histogram(HerdResult r) {
    HerdConfig c = r.config();
    List<HerdBucket> rows = merge(r.buckets(), mergeFactor(r.buckets().size(), TEXT_MAX_ROWS));
    long rowMs = c.bucket().toMillis() * mergeFactor(r.buckets().size(), TEXT_MAX_ROWS);
    double capacityPerRow = c.capacity() * rowMs / 1000.0;
    double max = capacityPerRow;
    for (HerdBucket b : rows) {
      max = Math.max(max, b.accepted() + b.rejected());
    }
    double perChar = Math.max(1.0, max / TEXT_BAR_WIDTH);
    int capacityColumn = (int) Math.round(capacityPerRow / perChar);
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "Dials reaching the server, %s: one row per %s, one character = %s dials;%n"
                + "  # accepted, x rejected (1013), . refused while down (> cut), | capacity C ="
                + " %d/s (%s per row)%n",
            r.policyName(), seconds(rowMs), trim(perChar), c.capacity(), trim(capacityPerRow)));
    for (HerdBucket b : rows) {
      StringBuilder bar = new StringBuilder();
      bar.append(Strings.repeat("#", chars(b.accepted(), perChar)));
      bar.append(Strings.repeat("x", chars(b.rejected(), perChar)));
      int refused = chars(b.refused(), perChar);
      if (bar.length() + refused > TEXT_BAR_WIDTH) {
        bar.append(Strings.repeat(".", Math.max(0, TEXT_BAR_WIDTH - bar.length()))).append('>');
      } else {
        bar.append(Strings.repeat(".", refused));
      }
      if (bar.length() < capacityColumn && capacityColumn <= TEXT_BAR_WIDTH) {
        bar.append(Strings.repeat(" ", capacityColumn - 1 - bar.length())).append('|');
      }
      String count = b.total() == 0 ? "" : "  " + b.total();
      String line =
          String.format(
              Locale.ROOT, "%8s %-" + (TEXT_BAR_WIDTH + 2) + "s%s", seconds(b.startMs()), bar,
              count);
      sb.append(CharMatcher.whitespace().trimTrailingFrom(line)).append('\n');
    }
    return sb.toString();
  }

  /** Returns the table followed by one histogram per result. */
  public static String text(List<HerdResult> results) {
    return text(results, List.of());
  }

  /**
   * Returns the table, then one run-time line per timing (in the order of the results), then one
   * histogram per result.
   *
   * @throws IllegalArgumentException as {@link #table(List)}, or if there are more timings than
   *     results
   */
  public static String text(List<HerdResult> results, List<HerdTiming> timings) {
    if (timings.size() > results.size()) {
      throw new IllegalArgumentException(
          timings.size() + " timings for " + results.size() + " results");
    }
    StringBuilder sb = new StringBuilder(table(results));
    if (!timings.isEmpty()) {
      sb.append('\n');
    }
    for (int i = 0; i < timings.size(); i++) {
      sb.append(timings.get(i).line(results.get(i).policyName())).append('\n');
    }
    for (HerdResult r : results) {
      sb.append('\n').append(histogram(r));
    }
    return sb.toString();
  }

  /**
   * Returns one JSON object on one line (no line break) with the keys {@code policy, clients,
   * capacity, downtimeMs, p50Ms, p99Ms, maxMs, attemptsPerClient, rejected, peakPerSecond} and
   * extras; a time not reached before the horizon is {@code null}.
   */
  public static String json(HerdResult r) {
    return json(r, null);
  }

  /**
   * Returns {@link #json(HerdResult)} with three more keys from {@code timing}: {@code elapsedMs}
   * (wall), {@code cpuMs} (every thread of the process) and {@code threadCpuMs} (the simulation
   * thread), -1 where the JVM does not report it. A {@code null} timing adds nothing.
   */
  public static String json(HerdResult r, HerdTiming timing) {
    HerdConfig c = r.config();
    StringBuilder sb = new StringBuilder("{");
    field(sb, "policy", quote(r.policyName()));
    field(sb, "clients", c.clients());
    field(sb, "capacity", c.capacity());
    field(sb, "downtimeMs", c.downtime().toMillis());
    field(sb, "p50Ms", orNull(r.p50Ms()));
    field(sb, "p99Ms", orNull(r.p99Ms()));
    field(sb, "maxMs", orNull(r.maxMs()));
    field(sb, "attemptsPerClient", String.format(Locale.ROOT, "%.3f", r.attemptsPerClient()));
    field(sb, "rejected", r.rejected());
    field(sb, "peakPerSecond", r.peakPerSecond());
    field(sb, "refused", r.refused());
    field(sb, "accepted", r.accepted());
    field(sb, "dials", r.dials());
    field(sb, "clientsBack", r.clientsBack());
    field(sb, "complete", r.complete());
    field(sb, "limitMs", r.limitMs());
    field(sb, "peakPerSecondDown", r.peakPerSecondDown());
    field(sb, "hints", c.hints());
    if (c.planned()) {
      // Only when set, so that the figures of a drop stay byte-identical to before the mode.
      field(sb, "planned", true);
    }
    if (c.warmUp()) {
      field(sb, "warmUp", true); // the same
    }
    if (c.hints() || c.planned()) {
      // The figures of the hint protocol; absent without it, for the same reason.
      field(sb, "answeredPerClient", String.format(Locale.ROOT, "%.3f", r.answeredPerClient()));
      field(sb, "peakAcceptedPerSecond", r.peakAcceptedPerSecond());
    }
    field(sb, "seed", c.seed());
    field(sb, "burst", c.burst());
    field(sb, "latencyMs", c.latency().toMillis());
    field(sb, "bucketMs", c.bucket().toMillis());
    field(sb, "horizonMs", c.horizon().toMillis());
    if (timing != null) {
      field(sb, "elapsedMs", timing.wall().toMillis());
      field(sb, "cpuMs", timing.processCpuMillis());
      field(sb, "threadCpuMs", timing.threadCpuMillis());
    }
    sb.setLength(sb.length() - 1);
    return sb.append('}').toString();
  }

  /**
   * Returns an SVG chart of the dials over time: one panel per result, stacked, sharing the time
   * axis; bars per bucket (accepted, rejected and refused in three colours), the capacity C, the
   * physical limit and the time the last client was back.
   *
   * @throws IllegalArgumentException as {@link #table(List)}
   */
  public static String svg(List<HerdResult> results) {
    return svg(results, SvgLabels.SIMULATION);
  }

  /** As {@link #svg(List)}, with the chart's header worded by {@code labels}. */
  public static String svg(List<HerdResult> results, SvgLabels labels) {
    return new HerdSvg(scenarioOf(results), results, Objects.requireNonNull(labels, "labels"))
        .render();
  }

  /**
   * The words of the chart's header that depend on where the figures come from.
   *
   * @param title the title before the scenario ("Reconnect herd")
   * @param admission how the server admits, or {@code null} for the simulation's token bucket
   * @param seedName what the seed seeds ("seed", "backoff seed")
   */
  public record SvgLabels(String title, String admission, String seedName) {
    /** The simulation's wording. */
    public static final SvgLabels SIMULATION = new SvgLabels("Reconnect herd", null, "seed");

    /** Validates the components. */
    public SvgLabels {
      Objects.requireNonNull(title, "title");
      Objects.requireNonNull(seedName, "seedName");
    }
  }

  // ---- helpers shared with HerdSvg ----

  static HerdConfig scenarioOf(List<HerdResult> results) {
    if (results == null || results.isEmpty()) {
      throw new IllegalArgumentException("results must not be empty");
    }
    HerdConfig first = results.get(0).config();
    for (HerdResult r : results) {
      if (!r.config().withPolicy(first.policy()).equals(first)) {
        throw new IllegalArgumentException(
            "results are of different scenarios: " + first + " and " + r.config());
      }
    }
    return first;
  }

  static String scenarioLine(HerdConfig c) {
    return String.format(
        Locale.ROOT,
        "Herd: %d clients %s at t=0; server %s %s, then admits %d/s (token bucket, burst %d,"
            + " empty when it comes back), 1013 beyond that; hints %s; seed %d.",
        c.clients(), dropWords(c),
        c.warmUp() ? "listening but warming up (1013 to every dial) for" : "down",
        seconds(c.downtime().toMillis()), c.capacity(), c.burst(),
        c.hints() ? "on" : "off", c.seed());
  }

  /** How the clients lost their connections. */
  static String dropWords(HerdConfig c) {
    return c.planned()
        ? "closed for a planned restart (1012, each told D + its place at C/s)"
        : "dropped";
  }

  /** The earliest time {@code percent} % of the clients can be back. */
  static long limitFor(HerdConfig c, int percent) {
    long rank = Math.max(1, ((long) c.clients() * percent + 99) / 100);
    return c.downtime().toMillis() + (rank * 1000 + c.capacity() - 1) / c.capacity();
  }

  static String seconds(long ms) {
    return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  private static String seconds(OptionalLong ms, HerdConfig c) {
    return ms.isPresent() ? seconds(ms.getAsLong()) : "> " + seconds(c.horizon().toMillis());
  }

  static int mergeFactor(int buckets, int maxBars) {
    for (int m : NICE_MERGES) {
      if ((buckets + m - 1) / m <= maxBars) {
        return m;
      }
    }
    return (buckets + maxBars - 1) / maxBars;
  }

  static List<HerdBucket> merge(List<HerdBucket> buckets, int factor) {
    List<HerdBucket> out = new ArrayList<>();
    for (int i = 0; i < buckets.size(); i += factor) {
      int refused = 0;
      int rejected = 0;
      int accepted = 0;
      for (int j = i; j < Math.min(buckets.size(), i + factor); j++) {
        refused += buckets.get(j).refused();
        rejected += buckets.get(j).rejected();
        accepted += buckets.get(j).accepted();
      }
      out.add(new HerdBucket(buckets.get(i).startMs(), refused, rejected, accepted));
    }
    return out;
  }

  private static int chars(int count, double perChar) {
    return count == 0 ? 0 : (int) Math.max(1, Math.round(count / perChar));
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
  }

  private static void field(StringBuilder sb, String key, Object value) {
    sb.append('"').append(key).append("\":").append(value).append(',');
  }

  private static Object orNull(OptionalLong v) {
    return v.isPresent() ? v.getAsLong() : "null";
  }

  private static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        default -> {
          if (ch < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
