package dev.ddpkit.chat.demo;

import dev.ddpkit.reconnect.cli.CommandLine;
import java.io.PrintStream;
import java.util.List;

/**
 * The {@code demo} command: 200 clients, a hard server restart, and the accounting, in under a
 * minute. Exits non-zero if a message was lost or duplicated or a client did not recover.
 */
public final class DemoCommand {
  static final String USAGE =
      "usage: demo [--clients 200] [--rooms 4] [--accept-rate 100] [--down-ms 3000]\n"
          + "            [--rate 40] [--before-kill-ms 3000] [--after-restart-ms 3000]"
          + " [--bucket-ms 500] [--seed 1]\n"
          + "            [--backoff rfc|full-jitter]  (default rfc; full-jitter is 200 ms..5 s)\n"
          + "            [--restart planned|kill|warm|both|all]  (default both: a planned restart"
          + " with appointments, then a hard kill; warm: a hard kill whose next server listens at"
          + " once and warms up for the downtime; all: the three)";

  private DemoCommand() {}

  /** Runs the demo; returns 0 if nothing was lost or duplicated, 1 if something was, 2 on usage. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("demo: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    try {
      return new Demo(o, out).run();
    } catch (Exception e) {
      err.println("demo: failed: " + e);
      return 1;
    }
  }

  /** The demo's settings. */
  static final class Options {
    int clients = 200;
    int rooms = 4;
    int acceptRate = 100;
    long downMs = 3_000;
    double ratePerSecond = 40;
    long beforeKillMs = 3_000;
    long afterRestartMs = 3_000;
    long bucketMs = 500;
    long seed = 1;
    boolean rfc = true;
    List<RestartPhase.Kind> restarts = RestartPhase.Kind.parse("both");

    static Options parse(String[] args) {
      Options o = new Options();
      CommandLine c = CommandLine.of(args);
      while (c.hasNext()) {
        switch (c.next()) {
          case "--clients" -> o.clients = c.intValue(1, 5_000);
          case "--rooms" -> o.rooms = c.intValue(1, 1_000);
          case "--accept-rate" -> o.acceptRate = c.intValue(0, 100_000);
          case "--down-ms" -> o.downMs = c.longValue(0, 600_000);
          case "--rate" -> o.ratePerSecond = c.longValue(1, 10_000);
          case "--before-kill-ms" -> o.beforeKillMs = c.longValue(0, 600_000);
          case "--after-restart-ms" -> o.afterRestartMs = c.longValue(0, 600_000);
          case "--bucket-ms" -> o.bucketMs = c.longValue(10, 60_000);
          case "--seed" -> o.seed = c.longValue();
          case "--backoff" -> o.rfc = rfc(c.value());
          case "--restart" -> o.restarts = RestartPhase.Kind.parse(c.value());
          default -> throw c.unknown();
        }
      }
      if (o.rooms > o.clients) {
        throw new IllegalArgumentException("--rooms must not exceed --clients");
      }
      if (o.acceptRate == 0 && o.restarts.contains(RestartPhase.Kind.WARM)) {
        throw new IllegalArgumentException(
            "--restart warm needs an --accept-rate: the warm-up books its dials at that rate");
      }
      return o;
    }

    private static boolean rfc(String backoff) {
      if (!backoff.equals("rfc") && !backoff.equals("full-jitter")) {
        throw new IllegalArgumentException("--backoff must be full-jitter or rfc: " + backoff);
      }
      return backoff.equals("rfc");
    }
  }
}
