package dev.ddpkit.chat.cli;

import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.Compatibility;
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
 * and books every dial a slot after them ({@link ChatServer.Builder#warmUp}).
 */
public final class ServeCommand {
  private static final String USAGE = "usage: serve --port N --data DIR [--seed-demo]"
      + " [--accept-rate N] [--accept-burst N] [--warm-up-ms N] [--heartbeat-ms N] [--drain-ms N]"
      + " [--restart-in-ms N]"
      + " [--rate-limits on|off|login=5/10s,method=10/10s,stream=40/10s,send=5/1s]"
      + " [--act-as current|older|rc9]";

  private ServeCommand() {}

  /** Runs the command; returns the exit status (0 after a clean stop, 2 for bad arguments). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
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
      return run(args, out, err, stopSignal);
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
    ChatServer.Builder b = ChatServer.builder().port(3000);
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
