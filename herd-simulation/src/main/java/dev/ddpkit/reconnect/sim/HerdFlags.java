package dev.ddpkit.reconnect.sim;

import dev.ddpkit.reconnect.cli.CommandLine;
import java.util.List;
import java.util.Locale;

/**
 * The words both {@code herd} and {@code herd --real} understand, parsed in one place so that
 * they mean the same in both:
 *
 * <ul>
 *   <li>{@code --hints}: 1013 closes carry {@code retry-after=<ms>} (the next free admission slot,
 *       reserved); {@code --hints on|off|both} picks explicitly, {@code both} runs every policy
 *       without and then with hints;
 *   <li>{@code --planned}: the outage is a planned restart: every connection is closed with 1012
 *       and its own appointment, the downtime plus its place in the queue at C/s;
 *   <li>{@code --warm-up}: the server listens through the downtime (a process restarted at once
 *       that still loads, or a front that stays up) and turns every dial away with 1013 until it
 *       is ready, with hints booking each a slot after the downtime.
 * </ul>
 *
 * <p>A command keeps its own {@code switch} and hands these options here: {@code case "--hints"
 * -> hintModes = HerdFlags.hints(c);}.
 */
public final class HerdFlags {
  /** The usage line of {@code --hints}, the same in both commands. */
  public static final String HINTS_USAGE =
      "  --hints [MODE]    1013 closes carry retry-after=<ms>, the next free slot, reserved;\n"
          + "                    MODE: on (the same as --hints alone), off, or both";
  /** The usage line of {@code --planned}, the same in both commands. */
  public static final String PLANNED_USAGE =
      "  --planned         a planned restart: each connection closed with 1012 and its own\n"
          + "                    appointment, D + its place in the queue at C/s";

  /** The usage line of {@code --warm-up}, the same in both commands. */
  public static final String WARM_UP_USAGE =
      "  --warm-up         the server listens through the downtime and turns every dial away\n"
          + "                    with 1013 until it is ready (with --hints: a slot after it)";

  private HerdFlags() {}

  /**
   * Reads {@code --hints} with its optional mode: the hint settings to run, in order ({@code
   * [true]}, {@code [false]} or {@code [false, true]}).
   *
   * @throws IllegalArgumentException naming the option if the mode is not on, off or both
   */
  public static List<Boolean> hints(CommandLine c) {
    String mode = c.optionalValue("on", "off", "both").orElse("on");
    return switch (mode.trim().toLowerCase(Locale.ROOT)) {
      case "on" -> List.of(true);
      case "off" -> List.of(false);
      case "both" -> List.of(false, true);
      default -> throw new IllegalArgumentException("--hints must be on, off or both: " + mode);
    };
  }

  /** Reads {@code --planned}, a flag ({@code --planned=x} fails). */
  public static boolean planned(CommandLine c) {
    return c.flag();
  }

  /** Reads {@code --warm-up}, a flag ({@code --warm-up=x} fails). */
  public static boolean warmUp(CommandLine c) {
    return c.flag();
  }

  /** Returns "hints on" or "hints off", as the reports word it. */
  public static String hintsWord(boolean hints) {
    return hints ? "hints on" : "hints off";
  }
}
