package dev.ddpkit.chat.cli;

import dev.ddpkit.chat.bench.RealHerdCommand;
import dev.ddpkit.chat.demo.DemoCommand;
import dev.ddpkit.reconnect.sim.HerdCommand;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;

/** Entry point of the one runnable jar: {@code serve}, {@code chat}, {@code demo}, {@code herd}. */
public final class Main {
  static final String USAGE = String.join("\n",
      "usage: java -jar ddpkit.jar <command> [options]   (<command> --help: what it does and every"
          + " option)",
      "  serve   the embedded Rocket.Chat-compatible DDP server, until stopped:"
          + " serve --data DIR [--port 3000] [--seed-demo]",
      "  chat    a terminal chat client: chat --url ws://127.0.0.1:3000/websocket --user alice"
          + " --password alice-pw --room general [--json]",
      "  demo    200 clients writing through a planned restart with appointments, then a hard kill;"
          + " each wave drawn, every delivery accounted for (about 40 s)",
      "  herd    the reconnect-herd simulation on virtual time (--sweep, --hints, --planned);"
          + " herd --real: the same wave on real sockets");

  private Main() {}

  /** Dispatches to the command named by the first argument and exits with its status. */
  public static void main(String[] args) {
    int code = run(args, System.in, System.out, System.err);
    System.exit(code);
  }

  /** Runs a command in-process; returns its exit status (2 for bad usage). */
  public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println(USAGE);
      return 2;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    switch (args[0]) {
      case "serve":
        return ServeCommand.run(rest, out, err);
      case "chat":
        return ChatCommand.run(rest, in, out, err);
      case "demo":
        return DemoCommand.run(rest, out, err);
      case "herd":
        return Arrays.asList(rest).contains("--real")
            ? RealHerdCommand.run(rest, out, err)
            : HerdCommand.run(rest, out, err, JvmCpuClock.INSTANCE);
      case "-h":
      case "--help":
      case "help":
        out.println(USAGE);
        return 0;
      default:
        err.println("unknown command: " + args[0]);
        err.println(USAGE);
        return 2;
    }
  }
}
