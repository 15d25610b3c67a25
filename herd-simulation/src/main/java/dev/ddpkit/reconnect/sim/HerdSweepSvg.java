package dev.ddpkit.reconnect.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws {@link HerdSweepReport#svg}: every curve of a sweep as a circle at (time to all back,
 * dials per client), its area the peak arrivals per C; the Pareto front joined by a line and
 * labelled; the RFC preset ringed in red; the physical limit as dashed lines.
 */
final class HerdSweepSvg {
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 640;
  private static final int LEFT = 78;
  private static final int RIGHT = 200;
  private static final int TOP = 96;
  private static final int BOTTOM = 60;
  private static final int PLOT_W = WIDTH - LEFT - RIGHT;
  private static final int PLOT_H = HEIGHT - TOP - BOTTOM;

  private static final String FRONT = "#1565c0";
  private static final String OTHER = "#b0b0b0";
  private static final String RFC = "#c62828";
  private static final String LIMIT = "#2e7d32";
  private static final String GRID = "#e3e3e3";
  private static final String INK = "#222222";
  private static final String MUTED = "#666666";

  private final HerdSweep.Result sweep;
  private final SvgCanvas out = new SvgCanvas();
  private final long xMaxMs;
  private final long xStepMs;
  private final double yMax;
  private final double yStep;

  HerdSweepSvg(HerdSweep.Result sweep) {
    this.sweep = sweep;
    long end = sweep.scenario().limitMillis();
    double dials = 1;
    for (HerdSweep.Point p : sweep.points()) {
      if (p.result().complete()) {
        end = Math.max(end, p.allBackMs());
      }
      dials = Math.max(dials, p.dialsPerClient());
    }
    this.xStepMs = HerdSvg.niceStep(end, 10);
    this.xMaxMs = (end + xStepMs - 1) / xStepMs * xStepMs;
    this.yStep = HerdSvg.niceStep(Math.round(dials * 100), 8) / 100.0;
    this.yMax = Math.ceil(dials / yStep) * yStep;
  }

  String render() {
    HerdConfig c = sweep.scenario();
    out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d"
                + " %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">%n",
            WIDTH, HEIGHT, WIDTH, HEIGHT));
    out.append(String.format(Locale.ROOT,
        "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, HEIGHT));
    out.text(LEFT, 30, 18, "start", INK, "bold",
        String.format(Locale.ROOT,
            "Which curve? %,d clients, server down %s, admits %,d/s, hints %s%s",
            c.clients(), HerdReport.seconds(c.downtime().toMillis()), c.capacity(),
            c.hints() ? "on" : "off",
            (c.planned() ? ", planned restart" : "") + (c.warmUp() ? ", warming up" : "")));
    out.text(LEFT, 52, 13, "start", MUTED, "",
        String.format(Locale.ROOT,
            "%d curves; the %d on the Pareto front (blue, joined) are beaten by no other on time to"
                + " all back, dials per client and peak/C.",
            sweep.points().size(), sweep.front().size()));
    out.text(LEFT, 69, 13, "start", MUTED, "",
        "Circle area: peak dials per second per C. Red ring: the RFC curve (1 s doubling to 60 s)."
            + " Green: the physical limit.");
    axes();
    limitLines();
    for (HerdSweep.Point p : sweep.points()) {
      if (!sweep.front().contains(p)) {
        circle(p, OTHER, 0.55);
      }
    }
    frontLine();
    List<double[]> labelled = new ArrayList<>();
    for (HerdSweep.Point p : sweep.front()) {
      circle(p, FRONT, 0.8);
      label(p, FRONT, labelled);
    }
    HerdSweep.Point rfc = sweep.rfc();
    if (rfc.result().complete()) {
      out.append(String.format(Locale.ROOT,
          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\""
              + " stroke-width=\"2.5\"/>%n",
          x(rfc.allBackMs()), y(rfc.dialsPerClient()), radius(rfc) + 4, RFC));
      if (!sweep.front().contains(rfc)) {
        label(rfc, RFC, labelled);
      }
    }
    out.append("</svg>\n");
    return out.toString();
  }

  private void axes() {
    for (long ms = 0; ms <= xMaxMs; ms += xStepMs) {
      out.line(x(ms), TOP, x(ms), TOP + PLOT_H, GRID, 1, "");
      out.text(x(ms), TOP + PLOT_H + 18, 12, "middle", MUTED, "",
          String.format(Locale.ROOT, "%s", HerdReport.seconds(ms)));
    }
    for (double d = 0; d <= yMax + 1e-9; d += yStep) {
      out.line(LEFT, y(d), LEFT + PLOT_W, y(d), GRID, 1, "");
      out.text(LEFT - 8, y(d) + 4, 12, "end", MUTED, "", String.format(Locale.ROOT, "%.2f", d));
    }
    out.line(LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H, INK, 1, "");
    out.line(LEFT, TOP, LEFT, TOP + PLOT_H, INK, 1, "");
    out.text(LEFT + PLOT_W / 2.0, HEIGHT - 16, 13, "middle", INK, "",
        "time until every client is back (after the drop)");
    out.append(String.format(Locale.ROOT,
        "<text x=\"18\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\" fill=\"%s\""
            + " transform=\"rotate(-90 18 %.1f)\">dials per client</text>%n",
        TOP + PLOT_H / 2.0, INK, TOP + PLOT_H / 2.0));
  }

  private void limitLines() {
    long limit = sweep.scenario().limitMillis();
    out.line(x(limit), TOP, x(limit), TOP + PLOT_H, LIMIT, 1.5, "6 4");
    out.line(LEFT, y(1), LEFT + PLOT_W, y(1), LIMIT, 1.5, "6 4");
    out.text(x(limit) + 4, TOP + 12, 12, "start", LIMIT, "",
        "D + N/C = " + HerdReport.seconds(limit));
  }

  private void frontLine() {
    StringBuilder points = new StringBuilder();
    for (HerdSweep.Point p : sweep.front()) {
      if (p.result().complete()) {
        points.append(
            String.format(Locale.ROOT, "%.1f,%.1f ", x(p.allBackMs()), y(p.dialsPerClient())));
      }
    }
    out.append(String.format(Locale.ROOT,
        "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>%n",
        points.toString().trim(), FRONT));
  }

  private void circle(HerdSweep.Point p, String fill, double opacity) {
    if (!p.result().complete()) {
      return;
    }
    out.append(String.format(Locale.ROOT,
        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" fill-opacity=\"%.2f\"><title>%s:"
            + " %s, %.2f dials per client, peak %.1f C</title></circle>%n",
        x(p.allBackMs()), y(p.dialsPerClient()), radius(p), fill, opacity,
        SvgCanvas.escape(p.curve().label()), HerdReport.seconds(p.allBackMs()), p.dialsPerClient(),
        p.peakPerC()));
  }

  /** Labels a point to its right, moved down past labels already drawn close by. */
  private void label(HerdSweep.Point p, String colour, List<double[]> taken) {
    if (!p.result().complete()) {
      return;
    }
    double lx = x(p.allBackMs()) + radius(p) + 6;
    double ly = y(p.dialsPerClient()) + 4;
    boolean moved = true;
    while (moved) {
      moved = false;
      for (double[] t : taken) {
        if (Math.abs(t[0] - lx) < 150 && Math.abs(t[1] - ly) < 14) {
          ly = t[1] + 14;
          moved = true;
        }
      }
    }
    taken.add(new double[] {lx, ly});
    out.text(lx, ly, 12, "start", colour, "",
        String.format(Locale.ROOT, "%s (%.1f C)", p.curve().label(), p.peakPerC()));
  }

  private double radius(HerdSweep.Point p) {
    return 3 + 2.2 * Math.sqrt(Math.max(0, p.peakPerC()));
  }

  private double x(long ms) {
    return LEFT + (double) ms / xMaxMs * PLOT_W;
  }

  private double y(double dials) {
    return TOP + PLOT_H - dials / yMax * PLOT_H;
  }
}
