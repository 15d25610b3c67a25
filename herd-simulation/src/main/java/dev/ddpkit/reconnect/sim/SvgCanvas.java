package dev.ddpkit.reconnect.sim;

import java.util.Locale;

/**
 * The SVG being written by one chart ({@link HerdSvg}, {@link HerdSweepSvg}): the few shapes both
 * draw, formatted the same way (one decimal, {@link Locale#ROOT}), and text escaped.
 */
final class SvgCanvas {
  private final StringBuilder out = new StringBuilder();

  /** Appends raw markup. */
  SvgCanvas append(String markup) {
    out.append(markup);
    return this;
  }

  /** A rectangle; a negative width or height is drawn as zero. */
  void rect(double x, double y, double w, double h, String fill, String extra) {
    append(String.format(
        Locale.ROOT,
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s/>%n",
        x, y, Math.max(0, w), Math.max(0, h), fill, extra));
  }

  /** A line; {@code dash} is a stroke-dasharray, or empty for a solid line. */
  void line(double x1, double y1, double x2, double y2, String stroke, double width, String dash) {
    append(String.format(
        Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
            + " stroke-width=\"%.1f\"%s/>%n",
        x1, y1, x2, y2, stroke, width,
        dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\""));
  }

  /** Text, escaped; {@code weight} is a font-weight, or empty for the default. */
  void text(double x, double y, int size, String anchor, String fill, String weight, String s) {
    text(x, y, size, anchor, fill, weight, s, "");
  }

  /** Text, escaped, with {@code extra} attributes (a leading space each). */
  void text(
      double x, double y, int size, String anchor, String fill, String weight, String s,
      String extra) {
    append(String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\" fill=\"%s\"%s%s>%s"
            + "</text>%n",
        x, y, size, anchor, fill, weight.isEmpty() ? "" : " font-weight=\"" + weight + "\"",
        extra, escape(s)));
  }

  /** Escapes the characters that end or quote XML text. */
  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
