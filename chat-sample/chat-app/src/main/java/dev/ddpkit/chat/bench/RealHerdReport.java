package dev.ddpkit.chat.bench;

import dev.ddpkit.reconnect.sim.HerdConfig;
import dev.ddpkit.reconnect.sim.HerdReport;
import dev.ddpkit.reconnect.sim.HerdResult;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Renders real herd runs: a table with the physical limit beside it, one JSON line per run, and
 * the simulation's SVG chart (drawn by {@link HerdReport#svg(List)} from the same result shape),
 * with its header saying what differs on real sockets.
 */
public final class RealHerdReport {
  /** The chart's header for real sockets: the server admits per wall-clock second. */
  private static final HerdReport.SvgLabels REAL_SOCKETS =
      new HerdReport.SvgLabels(
          "Reconnect herd on real sockets",
          "at most C per wall-clock second, from the restart",
          "backoff seed");

  private static final String FMT = "%-12s %-5s %9s %9s %10s %9s %9s %9s %9s %6s %9s %6s %8s%n";

  private RealHerdReport() {}

  /** The header line of the table. */
  public static String header() {
    return String.format(Locale.ROOT, FMT, "policy", "hints", "50% back", "99% back", "100% back",
        "attempts", "rejected", "refused", "accepts", "/C", "arrivals", "/C", "complete")
        + String.format(Locale.ROOT, FMT, "", "", "", "", "", "/client", "(1013)", "(down)",
        "peak/s", "", "peak/s", "", "");
  }

  /** One table row. */
  public static String row(RealHerdResult r) {
    HerdResult h = r.herd();
    HerdConfig c = h.config();
    return String.format(Locale.ROOT, FMT, h.policyName(), c.hints() ? "on" : "off",
        seconds(h.p50Ms(), c), seconds(h.p99Ms(), c), seconds(h.maxMs(), c),
        String.format(Locale.ROOT, "%.2f", h.attemptsPerClient()), h.rejected(), h.refused(),
        r.peakAcceptsPerSecond(), ratio(r.peakAcceptsPerSecond(), c),
        h.peakPerSecond(), ratio(h.peakPerSecond(), c),
        h.complete() ? "yes" : h.clientsBack() + "/" + c.clients());
  }

  /** The physical-limit row: D + N/C (and the 50 % and 99 % ranks), one dial each, C per second. */
  public static String limitRow(HerdConfig c) {
    return String.format(Locale.ROOT, FMT, "limit", "", seconds(limit(c, 50)),
        seconds(limit(c, 99)), seconds(limit(c, 100)), "1.00", 0, 0, c.capacity(), "1.0",
        c.capacity(), "1.0", "");
  }

  /** The table of a list of runs: header, one row each, the limit row of the first. */
  public static String table(List<RealHerdResult> results) {
    StringBuilder sb = new StringBuilder(header());
    results.forEach(r -> sb.append(row(r)));
    if (!results.isEmpty()) {
      sb.append(limitRow(results.get(0).herd().config()));
    }
    return sb.toString();
  }

  /** One JSON object: the simulation's keys ({@link HerdReport#json}) plus the real-run extras. */
  public static String json(RealHerdResult r) {
    String base = HerdReport.json(r.herd());
    return base.substring(0, base.length() - 1)
        + String.format(Locale.ROOT,
            ",\"real\":true,\"peakAcceptsPerSecond\":%d,\"peakAcceptsPerWallSecond\":%d,"
                + "\"loggedIn\":%d,\"dropNoticedP50Ms\":%d,\"dropNoticedMaxMs\":%d,"
                + "\"serverUpMs\":%d,\"peakThreads\":%d,\"wallMs\":%d,\"synDrops\":%d}",
            r.peakAcceptsPerSecond(), r.peakAcceptsPerWallSecond(), r.loggedIn(),
            r.dropNoticedP50Ms(), r.dropNoticedMaxMs(), r.serverUpMs(),
            r.peakThreads(), r.wallMs(), r.synDrops());
  }

  /**
   * The simulation's SVG of these runs (same scenario, one panel per policy), its header reworded
   * for real sockets: the admission is a window of one wall-clock second, not a token bucket.
   */
  public static String svg(List<RealHerdResult> results) {
    List<HerdResult> herds = results.stream().map(RealHerdResult::herd).toList();
    return HerdReport.svg(herds, REAL_SOCKETS);
  }

  /** The earliest time {@code percent} % of the clients can be back: D + rank/C. */
  static long limit(HerdConfig c, int percent) {
    long rank = RealHerd.rank(c.clients(), percent);
    return c.downtime().toMillis() + (rank * 1000 + c.capacity() - 1) / c.capacity();
  }

  static String seconds(long ms) {
    return String.format(Locale.ROOT, "%.2f s", ms / 1000.0);
  }

  private static String seconds(OptionalLong ms, HerdConfig c) {
    return ms.isPresent() ? seconds(ms.getAsLong()) : "> " + seconds(c.horizon().toMillis());
  }

  private static String ratio(int peak, HerdConfig c) {
    return String.format(Locale.ROOT, "%.1f", (double) peak / c.capacity());
  }
}
