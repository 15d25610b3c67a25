package dev.ddpkit.reconnect.sim;

import static com.google.common.collect.ImmutableList.toImmutableList;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link HerdSweep.Result}: the Pareto front as a text table with the RFC curve's place,
 * one JSON object per curve, and an SVG scatter of every curve (time to all back against dials
 * per client, the circle's area the peak per C) with the front drawn as a line. Pure functions.
 */
public final class HerdSweepReport {
  private HerdSweepReport() {}

  /** Returns the front as a table, then the RFC curve's place against it. */
  public static String text(HerdSweep.Result r) {
    HerdConfig c = r.scenario();
    StringBuilder sb = new StringBuilder();
    sb.append(HerdReport.scenarioLine(c)).append('\n');
    sb.append(
        String.format(
            Locale.ROOT,
            "Sweep: %d curves (rfc, full-jitter, proportional over bases %s and caps %s; fixed %s;"
                + " meteor). Physical limit %s with 1.00 dial per client and peak 1.0 C.%n",
            r.points().size(), durations(HerdSweep.BASES), durations(HerdSweep.CAPS),
            durations(HerdSweep.FIXED),
            HerdReport.seconds(c.limitMillis())));
    sb.append(
        String.format(
            Locale.ROOT,
            "Pareto front: %d curves that no other beats on all of time to all back, peak"
                + " arrivals per C and dials per client.%n%n",
            r.front().size()));
    String fmt = "%-26s %10s %8s %7s %13s%n";
    sb.append(
        String.format(Locale.ROOT, fmt, "curve", "100% back", "x limit", "peak/C", "dials/client"));
    for (HerdSweep.Point p : r.front()) {
      sb.append(row(fmt, p, c));
    }
    sb.append('\n');
    HerdSweep.Point rfc = r.rfc();
    sb.append(String.format(Locale.ROOT, fmt, "RFC curve", "", "", "", ""));
    sb.append(row(fmt, rfc, c));
    List<HerdSweep.Point> beating = r.beatingRfc();
    if (beating.isEmpty()) {
      sb.append("The RFC curve is on the front: no curve of the sweep beats it on all three.\n");
    } else {
      sb.append(
          String.format(
              Locale.ROOT,
              "The RFC curve is beaten on all three by %d curve%s of the front: %s.%n",
              beating.size(), beating.size() == 1 ? "" : "s",
              String.join(
                  ", ",
                  beating.stream().map(p -> p.curve().label()).collect(toImmutableList()))));
    }
    return sb.toString();
  }

  private static String row(String fmt, HerdSweep.Point p, HerdConfig c) {
    return String.format(
        Locale.ROOT, fmt, p.curve().label(),
        p.result().complete() ? HerdReport.seconds(p.allBackMs()) : "never",
        p.result().complete()
            ? String.format(Locale.ROOT, "%.2fx", (double) p.allBackMs() / c.limitMillis())
            : "-",
        String.format(Locale.ROOT, "%.1f", p.peakPerC()),
        String.format(Locale.ROOT, "%.2f", p.dialsPerClient()));
  }

  static String durations(List<Duration> ds) {
    return String.join(", ", ds.stream().map(HerdSweep::duration).collect(toImmutableList()));
  }

  /**
   * Returns one JSON object on one line: {@code curve, family, baseMs, capMs (null if none),
   * allBackMs (null if not all back), limitMs, peakPerC, dialsPerClient, front}.
   */
  public static String json(HerdSweep.Point p, boolean onFront) {
    HerdSweep.Curve c = p.curve();
    HerdConfig s = p.result().config();
    return String.format(
        Locale.ROOT,
        "{\"curve\":\"%s\",\"family\":\"%s\",\"baseMs\":%d,\"capMs\":%s,\"allBackMs\":%s,"
            + "\"limitMs\":%d,\"peakPerC\":%.3f,\"dialsPerClient\":%.3f,\"clients\":%d,"
            + "\"capacity\":%d,\"downtimeMs\":%d,\"hints\":%b,\"planned\":%b,%s\"front\":%b}",
        c.label(), c.family(), c.base().toMillis(),
        c.cap() == null ? "null" : Long.toString(c.cap().toMillis()),
        p.result().complete() ? Long.toString(p.allBackMs()) : "null", s.limitMillis(),
        p.peakPerC(), p.dialsPerClient(), s.clients(), s.capacity(), s.downtime().toMillis(),
        s.hints(), s.planned(), s.warmUp() ? "\"warmUp\":true," : "", onFront);
  }

  /** Returns the SVG scatter of the sweep, the front joined by a line, the RFC curve ringed. */
  public static String svg(HerdSweep.Result r) {
    return new HerdSweepSvg(r).render();
  }
}
