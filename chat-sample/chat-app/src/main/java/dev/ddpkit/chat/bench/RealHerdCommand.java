package dev.ddpkit.chat.bench;

import dev.ddpkit.reconnect.cli.CommandLine;
import dev.ddpkit.reconnect.sim.HerdConfig;
import dev.ddpkit.reconnect.sim.HerdFlags;
import dev.ddpkit.reconnect.sim.HerdPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code herd --real} command: the reconnect wave of {@link RealHerd} for each policy, with and
 * without the server's {@code retry-after} hint; prints each run's reproducing command and figures
 * as it goes, then one table per hint setting, and writes one SVG per hint setting.
 */
public final class RealHerdCommand {
  /** The usage text. */
  public static final String USAGE =
      String.join(
          "\n",
          "usage: herd --real [--clients N] [--capacity N] [--downtime-ms N] [--policy P,P,...]",
          "                   [--hints [on|off|both]] [--planned] [--warm-up] [--cap-ms N]",
          "                   [--bucket-ms N] [--seed N] [--svg PREFIX] [--json]",
          "  --clients N       ChatClients in this JVM, logged in and subscribed (default 1000)",
          "  --capacity N      accepts per second after the restart, token bucket (default 200)",
          "  --downtime-ms N   the server is killed at t=0 and restarted after this (default 3000)",
          "  --policy LIST     of: " + HerdPolicy.names() + " (default fixed,rfc,full-jitter)",
          HerdFlags.HINTS_USAGE,
          HerdFlags.PLANNED_USAGE,
          HerdFlags.WARM_UP_USAGE,
          "  --cap-ms N        stop watching a wave after this; report it incomplete (default 120000)",
          "  --bucket-ms N     histogram bucket of the chart (default 500)",
          "  --seed N          seed of the clients' backoff samples (default 42)",
          "  --svg PREFIX      write PREFIX-hints-off.svg and PREFIX-hints-on.svg",
          "  --json            also print one JSON object per run");

  private RealHerdCommand() {}

  /**
   * Runs the command.
   *
   * @param args the arguments after {@code herd} ({@code --real} among them or not)
   * @return 0 on success, 1 if a run or the SVG failed, 2 for bad arguments
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("herd --real: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    if (o.help) {
      out.println(USAGE);
      return 0;
    }
    HerdConfig base = o.config.build();
    out.printf(Locale.ROOT,
        "Reconnect herd on real sockets: %d ChatClients in one JVM (each: Java-WebSocket's 2"
            + " threads, the event loops on the shared pool), logged in and subscribed to one room; the embedded server is"
            + " %s at t=0 and ready again after %d ms, then admits %d connections per second from"
            + " an empty token bucket (1013 beyond). Limit D + N/C = %s. %d cores, max heap %d"
            + " MiB.%n",
        base.clients(),
        base.planned() ? "restarted as planned (1012 with each client's appointment)"
            : base.warmUp() ? "killed and started again at once, warming up (1013 to every dial),"
            : "killed",
        base.downtime().toMillis(), base.capacity(),
        RealHerdReport.seconds(base.limitMillis()), Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20);
    int status = 0;
    for (boolean hints : o.hintModes) {
      List<RealHerdResult> results = new ArrayList<>();
      for (HerdPolicy p : o.policies) {
        HerdConfig c = base.toBuilder().policy(p).hints(hints).build();
        out.println();
        out.println("reproduce: " + reproduce(c));
        out.printf(Locale.ROOT, "  load average before: %.2f%n",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        out.flush();
        RealHerdResult r;
        try {
          r = RealHerd.run(c, out);
        } catch (RuntimeException e) {
          err.println("herd --real: run " + p + " hints " + (hints ? "on" : "off") + " failed: " + e);
          status = 1;
          continue;
        }
        results.add(r);
        out.printf(Locale.ROOT,
            "  drop noticed by 50%% of the clients at %s, by all at %s; server %s at %s;"
                + " %d logged in; peak accepts in one wall-clock second %d; peak threads %d;"
                + " watched %s; SYNs dropped on full listen queues (machine-wide) %d%n",
            RealHerdReport.seconds(r.dropNoticedP50Ms()),
            RealHerdReport.seconds(r.dropNoticedMaxMs()),
            c.warmUp() ? "listening (warming up until D)" : "up again",
            RealHerdReport.seconds(r.serverUpMs()),
            r.loggedIn(), r.peakAcceptsPerWallSecond(), r.peakThreads(),
            RealHerdReport.seconds(r.wallMs()), r.synDrops());
        out.print(RealHerdReport.header());
        out.print(RealHerdReport.row(r));
        if (o.json) {
          out.println(RealHerdReport.json(r));
        }
        out.flush();
      }
      if (results.isEmpty()) {
        continue;
      }
      out.println();
      out.printf("Hints %s, all policies:%n", hints ? "on" : "off");
      out.print(RealHerdReport.table(results));
      if (o.svg != null) {
        Path file = Path.of(o.svg + (hints ? "-hints-on.svg" : "-hints-off.svg"));
        try {
          Files.writeString(file, RealHerdReport.svg(results), StandardCharsets.UTF_8);
          out.println("SVG written to " + file);
        } catch (IOException | RuntimeException e) {
          err.println("herd --real: cannot write " + file + ": " + e);
          status = 1;
        }
      }
      out.flush();
    }
    return status;
  }

  /** The command line that runs exactly this scenario again. */
  static String reproduce(HerdConfig c) {
    return String.format(Locale.ROOT,
        "java -jar chat-sample/target/ddpkit.jar herd --real --clients %d --capacity %d"
            + " --downtime-ms %d --policy %s --hints %s%s --cap-ms %d --bucket-ms %d --seed %d",
        c.clients(), c.capacity(), c.downtime().toMillis(), c.policy().cliName(),
        c.hints() ? "on" : "off",
        (c.planned() ? " --planned" : "") + (c.warmUp() ? " --warm-up" : ""), c.horizon().toMillis(),
        c.bucket().toMillis(), c.seed());
  }

  /** The parsed command line. */
  private static final class Options {
    final HerdConfig.Builder config =
        HerdConfig.builder()
            .clients(1000)
            .capacity(200)
            .downtime(Duration.ofMillis(3000))
            .horizon(Duration.ofMillis(120_000))
            .bucket(Duration.ofMillis(500));
    List<HerdPolicy> policies = List.of(HerdPolicy.FIXED, HerdPolicy.RFC, HerdPolicy.FULL_JITTER);
    List<Boolean> hintModes = List.of(false); // as in herd: no hints unless --hints
    String svg;
    boolean json;
    boolean help;

    static Options parse(String[] args) {
      Options o = new Options();
      CommandLine c = CommandLine.of(args).skip("herd");
      while (c.hasNext()) {
        switch (c.next()) {
          case "--real" -> { }
          case "--help", "-h" -> o.help = true;
          case "--json" -> o.json = c.flag();
          case "--clients" -> o.config.clients(c.intValue(1, Integer.MAX_VALUE));
          case "--capacity" -> o.config.capacity(c.intValue(1, Integer.MAX_VALUE));
          case "--downtime-ms" -> o.config.downtime(millis(c, 0));
          case "--cap-ms" -> o.config.horizon(millis(c, 1));
          case "--bucket-ms" -> o.config.bucket(millis(c, 1));
          case "--seed" -> o.config.seed(c.longValue());
          case "--policy", "--policies" -> o.policies = HerdPolicy.listFromNames(c.value());
          case "--hints" -> o.hintModes = HerdFlags.hints(c);
          case "--planned" -> o.config.planned(HerdFlags.planned(c));
          case "--warm-up" -> o.config.warmUp(HerdFlags.warmUp(c));
          case "--svg" -> {
            o.svg = c.value();
            if (o.svg.isBlank()) {
              throw new IllegalArgumentException("--svg needs a file prefix");
            }
          }
          default -> throw c.unknown();
        }
      }
      o.config.build(); // conflicting settings (cap not past the downtime) fail here
      return o;
    }

    private static Duration millis(CommandLine c, long min) {
      return Duration.ofMillis(c.longValue(min, Long.MAX_VALUE));
    }
  }
}
