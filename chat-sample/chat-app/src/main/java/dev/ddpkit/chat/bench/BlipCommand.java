package dev.ddpkit.chat.bench;

import dev.ddpkit.reconnect.cli.CommandLine;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The blip benchmark's command: {@code java -cp ddpkit.jar dev.ddpkit.chat.bench.BlipCommand
 * [--clients 1000] [--rooms 10] [--gaps 2000,2000,2000,20000] [--resume on,off] [--probes 10]}. Runs {@link BlipBench}
 * with DDP session resumption and without (or only as {@code --resume} says), in this JVM, and
 * prints one line per wave.
 */
public final class BlipCommand {
  /** The usage text. */
  public static final String USAGE =
      "usage: BlipCommand [--clients 1000] [--rooms 10] [--gaps 2000,2000,2000,20000] [--resume on,off]"
          + " [--probes 10] (gaps in ms; probes: clients in a JVM of their own; every socket is reset by a proxy, the server stays up; with resumption"
          + " and without, or only the one named, as when profiling one of them)";

  private BlipCommand() {}

  /** Runs the command and exits with its status. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns 0, 1 if the benchmark failed, 2 for bad arguments. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    int clients = 1000;
    int rooms = 10;
    // Three 2 s waves: runs of the same code move by 1.5x, so one wave says little.
    List<Duration> gaps = List.of(Duration.ofSeconds(2), Duration.ofSeconds(2),
        Duration.ofSeconds(2), Duration.ofSeconds(20));
    List<Boolean> modes = List.of(true, false);
    int probes = 10;
    try {
      CommandLine c = CommandLine.of(args);
      while (c.hasNext()) {
        switch (c.next()) {
          case "--clients" -> clients = c.intValue(1, 100_000);
          case "--rooms" -> rooms = c.intValue(1, 1_000);
          case "--gaps" -> gaps = gaps(c.value());
          case "--resume" -> modes = modes(c.value());
          case "--probes" -> probes = c.intValue(0, 1_000);
          case "-h", "--help" -> {
            out.println(USAGE);
            return 0;
          }
          default -> throw c.unknown();
        }
      }
    } catch (IllegalArgumentException e) {
      err.println("blip: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    out.printf(Locale.ROOT, "Blip: %d clients in %d rooms each, every socket reset by a proxy,"
            + " back after the gap; server in this JVM. %d cores, load average %.2f.%n",
        clients, rooms, Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    out.println("resume  gap ms  cut  resumed  frames in/client  calls/client  subs/client"
        + "  server CPU ms  all live ms  after open p50/p99/max us  rtt us  p99/rtt  lost subs/msgs  held/expired"
        + "  probes  probe after open p50/max us  probe own rtt p50/max us"
        + "  probe own-rtt p50/max  probes resumed  CPU after return ms");
    try {
      for (boolean resume : modes) {
        List<BlipBench.Wave> waves = new BlipBench(clients, rooms, probes, err).run(resume, gaps);
        for (BlipBench.Wave w : waves) {
          out.println(line(w));
        }
      }
    } catch (RuntimeException e) {
      err.println("blip: " + e);
      return 1;
    }
    return 0;
  }

  static String line(BlipBench.Wave w) {
    return String.format(Locale.ROOT,
        "%-6s  %6d  %4d  %7d  %16.2f  %12.2f  %11.2f  %13.0f  %11d  %9d/%d/%d  %6d  %7.2f  %d/%d"
            + "  %d/%d  %6d  %d/%d  %d/%d  %.2f/%.2f  %d  %.0f",
        w.resume() ? "on" : "off", w.gapMs(), w.cut(), w.resumed(), w.perClient(w.framesIn()),
        w.perClient(w.methodCalls()), w.perClient(w.subscriptions()), w.serverCpuNanos() / 1e6,
        w.lastLiveMs(), w.afterOpen(0.5), w.afterOpen(0.99), w.afterOpen(1.0), w.rttMicros(),
        (double) w.afterOpen(0.99) / Math.max(1, w.rttMicros()), w.lostSubscriptions(),
        w.lostMessages(), w.held(), w.expired(), w.probes().count(), BlipClients.quantile(w.probes().afterOpenMicros().clone(), 0.5),
        BlipClients.quantile(w.probes().afterOpenMicros().clone(), 1.0),
        BlipClients.quantile(w.probes().roundTripMicros().clone(), 0.5),
        BlipClients.quantile(w.probes().roundTripMicros().clone(), 1.0),
        w.probes().ratio(0.5), w.probes().ratio(1.0), w.probes().resumed(),
        w.serverCpuAfterReturnNanos() / 1e6);
  }

  private static List<Boolean> modes(String csv) {
    List<Boolean> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      switch (s.trim()) {
        case "on" -> out.add(true);
        case "off" -> out.add(false);
        default -> throw new IllegalArgumentException("--resume takes on, off or on,off: " + s);
      }
    }
    return out;
  }

  private static List<Duration> gaps(String csv) {
    List<Duration> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      long ms = Long.parseLong(s.trim());
      if (ms < 0) {
        throw new IllegalArgumentException("a gap must be >= 0 ms: " + ms);
      }
      out.add(Duration.ofMillis(ms));
    }
    return out;
  }
}
