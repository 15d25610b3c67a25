package dev.ddpkit.chat.demo;

import dev.ddpkit.chat.cli.Help;
import dev.ddpkit.reconnect.cli.CommandLine;
import java.io.PrintStream;
import java.util.List;

/**
 * The {@code demo} command: 200 clients, a hard server restart, and the accounting, in under a
 * minute. Exits non-zero if a message was lost or duplicated or a client did not recover.
 */
public final class DemoCommand {
  static final String USAGE = String.join("\n",
      "usage: demo [--clients 200] [--rooms 4] [--accept-rate 100] [--down-ms 3000]",
      "            [--rate 40] [--before-kill-ms 3000] [--after-restart-ms 3000]"
          + " [--bucket-ms 500] [--seed 1] [--change-ratio 0.2]",
      "            [--backoff rfc|full-jitter] [--restart planned|kill|warm|both|all]",
      "The restart demo on the embedded server: clients write while the server restarts; each",
      "restart's reconnect wave is drawn and its all-back time set against the least the accept",
      "rate allows, and every delivery is accounted for.",
      "  --clients N           ChatClients, all in this JVM (default 200)",
      "  --rooms N             rooms the clients are spread over (default 4)",
      "  --accept-rate N       the server's accepts per second; 0 for no limit (default 100)",
      "  --down-ms N           how long the server stays down in a restart (default 3000)",
      "  --rate N              messages per second written by all clients together (default 40)",
      "  --before-kill-ms N    writing before each restart (default 3000)",
      "  --after-restart-ms N  writing after everyone is back, before the accounting (default 3000)",
      "  --bucket-ms N         bucket of the arrival histogram (default 500)",
      "  --seed N              seed of the clients' backoff samples (default 1)",
      "  --change-ratio F      of the writers' operations, the share that edits or deletes one of"
          + " the writer's own messages (default 0.2); at the end every view must equal the"
          + " server's",
      "  --backoff B           rfc (default) or full-jitter (200 ms..5 s)",
      "  --restart R           planned: a planned restart with appointments; kill: a hard kill;"
          + " warm: a hard kill whose next server listens at once and warms up for the downtime;"
          + " both (default): planned, then kill; all: the three",
      "  --help, -h            this text",
      "Exits 0 if no message was lost or shown twice, every view equals the server's and every"
          + " client came back, 1 if not,"
          + " 2 on bad arguments.");

  private DemoCommand() {}

  /** Runs the demo; returns 0 if nothing was lost or duplicated, 1 if something was, 2 on usage. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (Help.asked(args)) {
      out.println(USAGE);
      return 0;
    }
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
    /** Of the writers' operations, the share that edits or deletes one of the writer's messages. */
    double changeRatio = 0.2;
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
          case "--change-ratio" -> o.changeRatio = ratio(c.value());
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

    private static double ratio(String v) {
      double d;
      try {
        d = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--change-ratio must be a number in 0..1: " + v);
      }
      if (!(d >= 0 && d <= 1)) {
        throw new IllegalArgumentException("--change-ratio must be a number in 0..1: " + v);
      }
      return d;
    }

    private static boolean rfc(String backoff) {
      if (!backoff.equals("rfc") && !backoff.equals("full-jitter")) {
        throw new IllegalArgumentException("--backoff must be full-jitter or rfc: " + backoff);
      }
      return backoff.equals("rfc");
    }
  }
}
