package dev.ddpkit.chat.cli;

import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ChatServerBuilder;
import dev.ddpkit.chat.server.Compatibility;
import dev.ddpkit.chat.server.FatalErrorHandler;
import dev.ddpkit.chat.server.RateLimits;
import dev.ddpkit.reconnect.cli.CommandLine;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The {@code serve} command: {@code serve --port 3000 --data DIR [--seed-demo] [--accept-rate N]
 * [--accept-burst N] [--warm-up-ms N] [--heartbeat-ms N] [--drain-ms N] [--restart-in-ms N]
 * [--rate-limits on|off|RULES] [--act-as current|older|rc9]}: {@code --act-as older} answers
 * {@code messages/get} with a 404 as servers before it did, {@code rc9} answers {@code
 * loadMissedMessages} with a 404 as Rocket.Chat 9 will. Starts a {@link ChatServer}, prints its URL, and runs until the
 * JVM is asked to exit (SIGINT or SIGTERM), when a shutdown hook drains it gracefully; with
 * {@code --restart-in-ms N} the drain is a planned restart by appointment ({@link
 * ChatServer#stopForRestart}): every client is told to come back at N ms plus its place in the
 * queue at the accept rate. With {@code --warm-up-ms N} the server admits nobody for its first N ms
 * and books every dial a slot after them ({@link ChatServerBuilder#warmUp}). An {@link Error} such
 * as {@code OutOfMemoryError} in any thread ends the process at once with status {@value
 * #EXIT_FATAL_ERROR}, no drain: a server that stays up serving nobody is the worst outcome, and a
 * supervisor restarts one that exited (its journal intact).
 */
public final class ServeCommand {
  static final String USAGE = String.join("\n",
      "usage: serve --data DIR [--port N] [--host H] [--seed-demo] [--accept-rate N]",
      "             [--accept-burst N] [--warm-up-ms N] [--heartbeat-ms N] [--drain-ms N]",
      "             [--restart-in-ms N] [--rate-limits on|off|RULES] [--act-as current|older|rc9]",
      "             [--max-sockets-per-address N] [--upgrade-timeout-ms N]",
      "Runs the embedded Rocket.Chat-compatible DDP server until stopped (Ctrl-C), then drains it.",
      "Exits with status 70 at once if a thread meets an Error (out of memory): restart it then.",
      "  --data DIR           where messages and tokens are kept across restarts (required)",
      "  --port N             TCP port (default 3000; 0 picks a free one, printed at start)",
      "  --host H             address to listen on (default 127.0.0.1)",
      "  --seed-demo          create users alice, bob, carol (password NAME-pw) in room general",
      "  --accept-rate N      admit N connections per second, 1013 with retry-after beyond"
          + " (default 0: no limit)",
      "  --accept-burst N     depth of the admission bucket (default: the accept rate)",
      "  --warm-up-ms N       admit nobody for the first N ms, booking each dial a slot after"
          + " (default 0)",
      "  --heartbeat-ms N     server ping interval (default 25000)",
      "  --drain-ms N         how long a stop spreads its closes over (default 5000)",
      "  --restart-in-ms N    make the stop a planned restart: each client told to come back at N ms"
          + " plus its place in the queue",
      "  --rate-limits R      Rocket.Chat's DDP rate limits: on (default), off, or rules such as"
          + " login=5/10s,method=10/10s,stream=40/10s,send=5/1s",
      "  --act-as V           current (default), older (messages/get answers 404) or rc9"
          + " (loadMissedMessages answers 404)",
      "  --max-sockets-per-address N  sockets one IP address may hold open; past it 1013"
          + " (default 256, 0: no cap)",
      "  --upgrade-timeout-ms N  drop a socket that has not completed its HTTP upgrade by then"
          + " (default 5000)",
      "  --help, -h           this text");

  private ServeCommand() {}

  /**
   * The exit status after an {@link Error} (such as {@code OutOfMemoryError}) in any thread of the
   * server: the process ends at once (EX_SOFTWARE of sysexits.h), so that a supervisor restarts
   * it; the journal is read back on the next start.
   */
  public static final int EXIT_FATAL_ERROR = 70;

  /** The per-address socket cap of {@code serve} unless {@code --max-sockets-per-address} says. */
  static final int DEFAULT_MAX_SOCKETS_PER_ADDRESS = 256;

  /**
   * Runs the command; returns the exit status (0 after a clean stop, 2 for bad arguments), or ends
   * the process with {@link #EXIT_FATAL_ERROR} if a thread meets an {@link Error}.
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    FatalErrorHandler halt = FatalErrorHandler.haltProcess(EXIT_FATAL_ERROR, err);
    // The server's own threads report to its handler; this covers any other thread of the process.
    Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
      if (error instanceof VirtualMachineError || error instanceof LinkageError) {
        halt.onFatalError(null, thread.getName(), error);
      }
      error.printStackTrace(err);
    });
    CountDownLatch stopSignal = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    // The JVM halts once its hooks return, so the hook waits for the drain to finish.
    Thread hook = new Thread(() -> {
      stopSignal.countDown();
      try {
        stopped.await(2, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "chat-server-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return run(args, out, err, stopSignal, halt);
    } finally {
      stopped.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down: the hook is running, nothing to remove
      }
    }
  }

  /**
   * Runs the command until {@code stopSignal} opens; the server is drained before this returns.
   * Package-private so that a test can stop it without ending the JVM.
   */
  static int run(String[] args, PrintStream out, PrintStream err, CountDownLatch stopSignal) {
    return run(args, out, err, stopSignal, FatalErrorHandler.KILL_SERVER);
  }

  private static int run(String[] args, PrintStream out, PrintStream err,
      CountDownLatch stopSignal, FatalErrorHandler onFatalError) {
    if (Help.asked(args)) {
      out.println(USAGE);
      return 0;
    }
    ChatServerBuilder b = ChatServer.builder().port(3000).fatalErrorHandler(onFatalError)
        .maxSocketsPerAddress(DEFAULT_MAX_SOCKETS_PER_ADDRESS);
    boolean seed = false;
    Duration restartIn = null;
    try {
      CommandLine c = CommandLine.of(args);
      while (c.hasNext()) {
        switch (c.next()) {
          case "--port" -> b.port(c.intValue());
          case "--data" -> b.dataDir(Path.of(c.value()));
          case "--seed-demo" -> seed = c.flag();
          case "--accept-rate" -> b.acceptRate(c.intValue());
          case "--accept-burst" -> b.acceptBurst(c.intValue());
          case "--warm-up-ms" -> b.warmUp(Duration.ofMillis(c.longValue(0, 600_000L)));
          case "--restart-in-ms" -> restartIn = Duration.ofMillis(c.longValue(0, Long.MAX_VALUE));
          case "--heartbeat-ms" -> b.heartbeatInterval(Duration.ofMillis(c.longValue()));
          case "--drain-ms" -> b.drainPeriod(Duration.ofMillis(c.longValue()));
          case "--host" -> b.host(c.value());
          case "--max-sockets-per-address" -> b.maxSocketsPerAddress(c.intValue());
          case "--upgrade-timeout-ms" -> b.upgradeTimeout(Duration.ofMillis(c.longValue()));
          case "--rate-limits" -> b.rateLimits(RateLimits.parse(c.value()));
          case "--act-as" -> b.compatibility(Compatibility.parse(c.value()));
          default -> throw c.unknown();
        }
      }
    } catch (IllegalArgumentException e) {
      err.println("serve: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    ChatServer server;
    try {
      server = b.build();
    } catch (IllegalStateException e) {
      err.println("serve: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    try {
      server.start();
    } catch (RuntimeException e) {
      err.println("serve: " + e.getMessage());
      return 1;
    }
    try {
      if (seed && server.seedDemo()) {
        out.println("seeded users alice, bob, carol in room general");
      }
      out.println("chat server listening on " + server.url());
      out.flush();
      stopSignal.await();
      out.println(restartIn == null ? "draining..."
          : "planned restart: clients come back from " + restartIn.toMillis() + " ms on");
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    } finally {
      if (restartIn == null) {
        server.stop();
      } else {
        server.stopForRestart(restartIn);
      }
      out.println("chat server stopped");
      out.flush();
    }
  }
}
