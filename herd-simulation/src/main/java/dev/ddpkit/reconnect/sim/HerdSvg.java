package dev.ddpkit.reconnect.sim;

import java.util.List;
import java.util.Locale;

/** Draws the SVG of {@link HerdReport#svg(List)} by hand: one panel per result, stacked. */
final class HerdSvg {
  private static final int WIDTH = 1000;
  private static final int LEFT = 78;
  private static final int RIGHT = 24;
  private static final int PLOT_W = WIDTH - LEFT - RIGHT;
  private static final int HEADER = 136;
  private static final int PANEL_TITLE = 40;
  private static final int PLOT_H = 170;
  private static final int PANEL_GAP = 34;
  private static final int FOOTER = 44;
  private static final int MIN_BAR_PX = 3;

  private static final String ACCEPTED = "#2e7d32";
  private static final String REJECTED = "#ef6c00";
  private static final String REFUSED = "#9e9e9e";
  private static final String CAPACITY = "#c62828";
  private static final String LIMIT = "#1565c0";
  private static final String DOWN = "#f1f1f1";
  private static final String GRID = "#e3e3e3";
  private static final String INK = "#222222";
  private static final String MUTED = "#666666";
  /** A white outline under text drawn over bars and lines, so that it stays readable. */
  private static final String HALO =
      " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"";

  private final HerdConfig scenario;
  private final List<HerdResult> results;
  private final HerdReport.SvgLabels labels;
  private final SvgCanvas out = new SvgCanvas();
  private final long xMaxMs;
  private final long xStepMs;
  private final int merge;

  HerdSvg(HerdConfig scenario, List<HerdResult> results, HerdReport.SvgLabels labels) {
    this.scenario = scenario;
    this.results = results;
    this.labels = labels;
    long end = scenario.limitMillis();
    int buckets = 0;
    for (HerdResult r : results) {
      end = Math.max(end, r.buckets().size() * scenario.bucket().toMillis());
      end = Math.max(end, r.maxMs().orElse(0));
      buckets = Math.max(buckets, r.buckets().size());
    }
    this.xStepMs = niceStep(end, 10);
    this.xMaxMs = (end + xStepMs - 1) / xStepMs * xStepMs;
    long bucketMs = scenario.bucket().toMillis();
    this.merge = HerdReport.mergeFactor((int) (xMaxMs / bucketMs), PLOT_W / MIN_BAR_PX);
  }

  String render() {
    int height = HEADER + results.size() * (PANEL_TITLE + PLOT_H + PANEL_GAP) + FOOTER;
    out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d"
                + " %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">%n",
            WIDTH, height, WIDTH, height));
    out.rect(0, 0, WIDTH, height, "#ffffff", "");
    header();
    int top = HEADER;
    for (HerdResult r : results) {
      panel(r, top);
      top += PANEL_TITLE + PLOT_H + PANEL_GAP;
    }
    out.text(LEFT + PLOT_W / 2.0, height - 14, 13, "middle", INK, "",
        "seconds after the drop (t = 0); bars: dials reaching the server per second, "
            + bucketLabel());
    out.append("</svg>\n");
    return out.toString();
  }

  private String bucketLabel() {
    long ms = merge * scenario.bucket().toMillis();
    return "one bar per " + trimSeconds(ms);
  }

  private void header() {
    HerdConfig c = scenario;
    out.text(LEFT, 30, 20, "start", INK, "bold",
        String.format(Locale.ROOT, "%s: %,d clients, server down %s, admits %,d/s",
            labels.title(), c.clients(), trimSeconds(c.downtime().toMillis()), c.capacity()));
    out.text(LEFT, 52, 13, "start", MUTED, "",
        String.format(Locale.ROOT,
            "All connected clients %s at t = 0. Beyond capacity the server closes with 1013"
                + " (%s);",
            HerdReport.dropWords(c),
            labels.admission() != null
                ? labels.admission()
                : String.format(Locale.ROOT, "token bucket, burst %,d, empty at restart", c.burst())));
    out.text(LEFT, 69, 13, "start", MUTED, "",
        String.format(Locale.ROOT,
            "retry-after hints %s; %s %d. Physical limit: everyone back at D + N/C = %s, with"
                + " one dial each.",
            c.hints() ? "on" : "off", labels.seedName(), c.seed(), trimSeconds(c.limitMillis())));
    double x = LEFT;
    double y = 96;
    x = legendSwatch(x, y, ACCEPTED, "accepted");
    x = legendSwatch(x, y, REJECTED, "rejected (1013)");
    x = legendSwatch(x, y, REFUSED, "refused while down (1006)");
    legendSwatch(x, y, DOWN, "server down");
    x = LEFT;
    y = 116;
    x = legendLine(x, y, CAPACITY, "6 4", "capacity C");
    x = legendLine(x, y, LIMIT, "2 3", "physical limit D + N/C");
    x = legendLine(x, y, INK, "", "last client back");
    if (merge > 1) {
      out.rect(x, y - 5, 14, 2, INK, "");
      out.text(x + 19, y, 12, "start", INK, "", "busiest " + trimSeconds(scenario.bucket().toMillis())
          + " within a bar");
    }
  }

  private double legendSwatch(double x, double y, String colour, String label) {
    out.rect(x, y - 10, 14, 12, colour, colour.equals(DOWN) ? " stroke=\"#bbbbbb\"" : "");
    out.text(x + 19, y, 12, "start", INK, "", label);
    return x + 19 + label.length() * 7.0 + 18;
  }

  private double legendLine(double x, double y, String colour, String dash, String label) {
    out.line(x, y - 4, x + 22, y - 4, colour, 2, dash);
    out.text(x + 27, y, 12, "start", INK, "", label);
    return x + 27 + label.length() * 7.0 + 18;
  }

  private void panel(HerdResult r, int top) {
    HerdConfig c = r.config();
    out.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" fill=\"%s\"><tspan font-size=\"15\" font-weight=\"bold\">%s"
                + "</tspan><tspan dx=\"10\" font-size=\"12\" fill=\"%s\">%s</tspan></text>%n",
            LEFT, top + 16, INK, SvgCanvas.escape(r.policyName()), MUTED,
            SvgCanvas.escape(c.policy().description())));
    out.text(LEFT, top + 33, 12, "start", MUTED, "", stats(r));
    double plotTop = top + PANEL_TITLE;
    double plotBottom = plotTop + PLOT_H;
    long bucketMs = scenario.bucket().toMillis();
    List<HerdBucket> bars = HerdReport.merge(r.buckets(), merge);
    double barSeconds = merge * bucketMs / 1000.0;
    // Scale to what the server must answer once up; taller refused bars are clipped and labelled.
    // When a bar merges several buckets, a tick shows its busiest bucket, so waves stay visible.
    double[] busiest = busiestRates(r.buckets());
    double peakRate = c.capacity();
    for (int i = 0; i < bars.size(); i++) {
      HerdBucket b = bars.get(i);
      peakRate = Math.max(peakRate, Math.max(busiest[i], (b.accepted() + b.rejected()) / barSeconds));
    }
    double yStep = niceStep((long) Math.ceil(peakRate * 1.05), 4);
    double yMax = Math.ceil(peakRate * 1.05 / yStep) * yStep;

    // Downtime band, grid and y labels.
    out.rect(LEFT, plotTop, xPx(c.downtime().toMillis()) - LEFT, PLOT_H, DOWN, "");
    for (double v = 0; v <= yMax + 1e-9; v += yStep) {
      double y = plotBottom - v / yMax * PLOT_H;
      out.line(LEFT, y, LEFT + PLOT_W, y, GRID, 1, "");
      out.text(LEFT - 6, y + 4, 11, "end", MUTED, "", String.format(Locale.ROOT, "%,d", (long) v));
    }
    out.text(22, plotTop + PLOT_H / 2.0, 12, "middle", MUTED, "",
        "dials / s", String.format(Locale.ROOT, " transform=\"rotate(-90 22 %.1f)\"",
            plotTop + PLOT_H / 2.0));

    // Bars: accepted at the bottom, then rejected, then refused.
    double barPx = xPx(merge * bucketMs) - LEFT;
    double clippedPeak = 0;
    // Adjacent bars overlap by half a pixel when there is no gap, so no hairline shows between.
    double w = barPx >= 5 ? barPx - 1 : barPx + 0.5;
    out.append("<g shape-rendering=\"crispEdges\">\n");
    for (int i = 0; i < bars.size(); i++) {
      HerdBucket b = bars.get(i);
      if (b.total() == 0) {
        continue;
      }
      double x = xPx(b.startMs());
      double y = plotBottom;
      y = stack(x, y, w, b.accepted() / barSeconds, yMax, plotTop, ACCEPTED);
      y = stack(x, y, w, b.rejected() / barSeconds, yMax, plotTop, REJECTED);
      y = stack(x, y, w, b.refused() / barSeconds, yMax, plotTop, REFUSED);
      if (y < plotTop) {
        clippedPeak = Math.max(clippedPeak, b.total() / barSeconds);
      }
      if (merge > 1 && busiest[i] > 0) {
        out.rect(x, plotBottom - busiest[i] / yMax * PLOT_H - 1, w, 2, INK, "");
      }
    }
    out.append("</g>\n");
    if (clippedPeak > 0) {
      out.text(LEFT + PLOT_W - 4, plotTop + 13, 11, "end", MUTED, "",
          String.format(Locale.ROOT, "grey bars cut at the top: up to %,.0f refused dials/s while"
              + " the server is down", clippedPeak), HALO);
    }

    // Capacity, limit and last-client-back markers.
    double yc = plotBottom - c.capacity() / yMax * PLOT_H;
    out.line(LEFT, yc, LEFT + PLOT_W, yc, CAPACITY, 1.6, "6 4");
    out.text(LEFT + PLOT_W - 4, yc - 5, 11, "end", CAPACITY, "bold",
        String.format(Locale.ROOT, "C = %,d/s", c.capacity()), HALO);
    double xl = xPx(c.limitMillis());
    out.line(xl, plotTop, xl, plotBottom, LIMIT, 1.6, "2 3");
    out.text(xl + 4, plotTop + 28, 11, "start", LIMIT, "",
        "limit " + trimSeconds(c.limitMillis()), HALO);
    if (r.maxMs().isPresent()) {
      double xm = xPx(r.maxMs().getAsLong());
      out.line(xm, plotTop, xm, plotBottom, INK, 1.4, "");
      boolean nearRight = xm > LEFT + PLOT_W - 110;
      out.text(nearRight ? xm - 4 : xm + 4, plotTop + 44, 11, nearRight ? "end" : "start", INK, "",
          "all back " + HerdReport.seconds(r.maxMs().getAsLong()), HALO);
    }

    // Axes and x labels.
    out.line(LEFT, plotBottom, LEFT + PLOT_W, plotBottom, INK, 1, "");
    out.line(LEFT, plotTop, LEFT, plotBottom, INK, 1, "");
    for (long t = 0; t <= xMaxMs; t += xStepMs) {
      double x = xPx(t);
      out.line(x, plotBottom, x, plotBottom + 4, INK, 1, "");
      out.text(x, plotBottom + 16, 11, "middle", MUTED, "", trimSeconds(t));
    }
  }

  /** Returns, per merged bar, the highest accepted + rejected rate of one of its buckets. */
  private double[] busiestRates(List<HerdBucket> buckets) {
    double bucketSeconds = scenario.bucket().toMillis() / 1000.0;
    double[] out = new double[(buckets.size() + merge - 1) / merge];
    for (int i = 0; i < buckets.size(); i++) {
      HerdBucket b = buckets.get(i);
      out[i / merge] = Math.max(out[i / merge], (b.accepted() + b.rejected()) / bucketSeconds);
    }
    return out;
  }

  private String stats(HerdResult r) {
    HerdConfig c = r.config();
    String back =
        r.complete()
            ? "50% back " + HerdReport.seconds(r.p50Ms().getAsLong())
                + ", 99% " + HerdReport.seconds(r.p99Ms().getAsLong())
                + ", all " + HerdReport.seconds(r.maxMs().getAsLong())
            : String.format(Locale.ROOT, "only %,d of %,d back by %s", r.clientsBack(),
                c.clients(), trimSeconds(c.horizon().toMillis()));
    return String.format(
        Locale.ROOT,
        "%s  |  %.2f dials per client  |  %,d rejected, %,d refused  |  peak %,d/s = %.1f x C",
        back, r.attemptsPerClient(), r.rejected(), r.refused(), r.peakPerSecond(),
        (double) r.peakPerSecond() / c.capacity());
  }

  /** Draws one segment of a stacked bar, clipped at {@code ceiling}; returns its top. */
  private double stack(
      double x, double bottom, double w, double rate, double yMax, double ceiling, String fill) {
    if (rate <= 0 || bottom <= ceiling) {
      return rate <= 0 ? bottom : ceiling - 1;
    }
    double h = Math.max(1, rate / yMax * PLOT_H);
    double top = Math.max(ceiling, bottom - h);
    out.rect(x, top, w, bottom - top, fill, "");
    return bottom - h < ceiling ? ceiling - 1 : top;
  }

  private double xPx(long ms) {
    return LEFT + (double) ms / xMaxMs * PLOT_W;
  }

  /** Returns 1, 2 or 5 times a power of ten, so that {@code range} spans about {@code ticks}. */
  static long niceStep(long range, int ticks) {
    double raw = Math.max(1, range) / (double) ticks;
    double power = Math.pow(10, Math.floor(Math.log10(raw)));
    double unit = raw / power;
    double nice = unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10;
    return Math.max(1, (long) (nice * power));
  }

  private static String trimSeconds(long ms) {
    return ms % 1000 == 0
        ? String.format(Locale.ROOT, "%,d s", ms / 1000)
        : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }
}
