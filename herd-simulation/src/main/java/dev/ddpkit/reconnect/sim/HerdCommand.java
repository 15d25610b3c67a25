package dev.ddpkit.reconnect.sim;

import dev.ddpkit.reconnect.cli.CommandLine;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@code herd} command: runs the herd simulation for one or more policies and prints the
 * table, its own run time per policy and the histograms (or JSON lines), optionally writing an SVG
 * chart. It never touches {@code
 * System.out}: the caller passes the streams, so a runnable jar calls {@code
 * HerdCommand.run(args, System.out, System.err)} and a test passes its own.
 */
public final class HerdCommand {
  /** The usage text printed with {@code --help} and after a bad argument. */
  public static final String USAGE =
      String.join(
          "\n",
          "usage: herd [--clients N] [--capacity N] [--downtime-ms N] [--policy P,P,...]",
          "            [--hints [on|off|both]] [--planned] [--warm-up] [--sweep] [--json]",
          "            [--svg FILE]",
          "            [--seed N] [--bucket-ms N] [--horizon-ms N] [--burst N] [--latency-ms N]",
          "       herd --real ...   the same scenario on real sockets (same --hints, --planned,",
          "                         --warm-up)",
          "  --clients N       clients dropped at t=0 (default 10000)",
          "  --capacity N      connections the server admits per second once up (default 500)",
          "  --downtime-ms N   how long the server refuses every dial (default 5000)",
          "  --policy LIST     comma-separated, of: " + HerdPolicy.names(),
          "                    (default fixed,rfc,full-jitter)",
          HerdFlags.HINTS_USAGE,
          HerdFlags.PLANNED_USAGE,
          HerdFlags.WARM_UP_USAGE,
          "  --sweep           run the presets over a grid of base and cap instead of --policy,",
          "                    print the Pareto front (time to all back, peak/C, dials/client)",
          "                    and the RFC curve's place; --svg draws the front",
          "  --json            one JSON object per policy per line instead of the table",
          "  --timing          with --json: add elapsedMs, cpuMs and threadCpuMs (this machine's",
          "                    run time, which the seed does not fix; the text always shows it)",
          "  --svg FILE        also write an SVG chart of the arrivals to FILE (with --hints both:",
          "                    FILE-hints-off.svg and FILE-hints-on.svg)",
          "  --seed N          master random seed (default 42); same seed, same figures",
          "  --bucket-ms N     histogram bucket width (default 1000)",
          "  --horizon-ms N    stop a run that has not got everyone back by then (default 3600000)",
          "  --burst N         depth of the server's admission bucket (default: the capacity)",
          "  --latency-ms N    round trip of one dial (default 1)");

  private HerdCommand() {}

  /**
   * Runs the command with no CPU clock: the run time is reported as wall time only.
   *
   * @see #run(String[], PrintStream, PrintStream, CpuClock)
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, CpuClock.NONE);
  }

  /**
   * Runs the command.
   *
   * @param args the arguments after the command name (a leading {@code "herd"} is skipped)
   * @param out where the report goes
   * @param err where errors go
   * @param cpu where the run time's CPU figures come from ({@link CpuClock#NONE}: wall time only)
   * @return 0 on success, 1 if the SVG could not be written, 2 for bad arguments (with a one-line
   *     message and the usage on {@code err})
   */
  public static int run(String[] args, PrintStream out, PrintStream err, CpuClock cpu) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("herd: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    if (options.help) {
      out.println(USAGE);
      return 0;
    }
    int status = 0;
    for (boolean hints : options.hintModes) {
      HerdConfig config = options.config.toBuilder().hints(hints).build();
      Path svg = svgFile(options, hints);
      int s =
          options.sweep
              ? sweep(config, options, svg, out, err)
              : policies(config, options, svg, out, err, cpu);
      status = Math.max(status, s);
    }
    out.flush();
    return status;
  }

  private static int policies(
      HerdConfig config, Options options, Path svg, PrintStream out, PrintStream err,
      CpuClock cpu) {
    List<HerdResult> results = new ArrayList<>();
    List<HerdTiming> timings = new ArrayList<>();
    for (HerdPolicy p : options.policies) {
      HerdTiming.Stopwatch stopwatch = HerdTiming.start(cpu);
      results.add(HerdSimulation.run(config.withPolicy(p)));
      timings.add(stopwatch.stop());
    }
    if (options.json) {
      for (int i = 0; i < results.size(); i++) {
        out.println(
            options.timing
                ? HerdReport.json(results.get(i), timings.get(i))
                : HerdReport.json(results.get(i)));
      }
    } else {
      out.print(HerdReport.text(results, timings));
    }
    return svg == null ? 0 : write(svg, () -> HerdReport.svg(results), options, out, err);
  }

  private static int sweep(
      HerdConfig config, Options options, Path svg, PrintStream out, PrintStream err) {
    HerdSweep.Result r = HerdSweep.run(config);
    if (options.json) {
      for (HerdSweep.Point p : r.points()) {
        out.println(HerdSweepReport.json(p, r.front().contains(p)));
      }
    } else {
      out.print(HerdSweepReport.text(r));
    }
    return svg == null ? 0 : write(svg, () -> HerdSweepReport.svg(r), options, out, err);
  }

  private static int write(
      Path file, Supplier<String> svg, Options options, PrintStream out, PrintStream err) {
    try {
      Files.write(file, svg.get().getBytes(StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      err.println("herd: cannot write " + file + ": " + e);
      return 1;
    }
    if (!options.json) {
      out.println("SVG written to " + file);
    }
    return 0;
  }

  /** The SVG file of one hint setting: the file given, or FILE-hints-on.svg when both run. */
  private static Path svgFile(Options options, boolean hints) {
    if (options.svg == null || options.hintModes.size() == 1) {
      return options.svg;
    }
    String name = options.svg.getFileName().toString();
    String stem = name.endsWith(".svg") ? name.substring(0, name.length() - 4) : name;
    return options.svg.resolveSibling(stem + (hints ? "-hints-on.svg" : "-hints-off.svg"));
  }

  /** The parsed command line. */
  private static final class Options {
    HerdConfig config;
    List<HerdPolicy> policies =
        List.of(HerdPolicy.FIXED, HerdPolicy.RFC, HerdPolicy.FULL_JITTER);
    List<Boolean> hintModes = List.of(false);
    boolean sweep;
    boolean json;
    boolean timing;
    boolean help;
    Path svg;

    static Options parse(String[] args) {
      Options o = new Options();
      HerdConfig.Builder b = HerdConfig.builder();
      CommandLine c = CommandLine.withInlineValues(args).skip("herd");
      while (c.hasNext()) {
        switch (c.next()) {
          case "--help", "-h" -> o.help = true;
          case "--hints" -> o.hintModes = HerdFlags.hints(c);
          case "--planned" -> b.planned(HerdFlags.planned(c));
          case "--warm-up" -> b.warmUp(HerdFlags.warmUp(c));
          case "--sweep" -> o.sweep = c.flag();
          case "--json" -> o.json = c.flag();
          case "--timing" -> o.timing = c.flag();
          case "--clients" -> b.clients(c.intValue(1, Integer.MAX_VALUE));
          case "--capacity" -> b.capacity(c.intValue(1, Integer.MAX_VALUE));
          case "--downtime-ms" -> b.downtime(millis(c, 0));
          case "--bucket-ms" -> b.bucket(millis(c, 1));
          case "--horizon-ms" -> b.horizon(millis(c, 1));
          case "--burst" -> b.burst(c.intValue(1, Integer.MAX_VALUE));
          case "--latency-ms" -> b.latency(millis(c, 0));
          case "--seed" -> b.seed(c.longValue());
          case "--policy", "--policies" -> o.policies = HerdPolicy.listFromNames(c.value());
          case "--svg" -> {
            String file = c.value();
            if (file.trim().isEmpty()) {
              throw new IllegalArgumentException("--svg needs a file name");
            }
            o.svg = Paths.get(file);
          }
          default -> throw c.unknown();
        }
      }
      o.config = b.build();
      return o;
    }

    private static Duration millis(CommandLine c, long min) {
      return Duration.ofMillis(c.longValue(min, Long.MAX_VALUE));
    }
  }
}
