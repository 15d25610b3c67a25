package dev.ddpkit.chat.bench;

import dev.ddpkit.reconnect.cli.CommandLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The footprint benchmark's command: {@code java -cp ddpkit.jar
 * dev.ddpkit.chat.bench.FootprintCommand [--steps 100,250,500,1000] [--modes chat,ddp,ddp-shared]
 * [--shared-threads 2]} (modes: chat, ddp, ddp-shared). Starts {@link FootprintServer} in a child
 * JVM, measures each mode with
 * {@link Footprint}, and prints one table per mode.
 */
public final class FootprintCommand {
  /** The usage text. */
  public static final String USAGE =
      "usage: FootprintCommand [--steps 100,250,500,1000] [--modes chat,ddp,ddp-shared]"
          + " [--shared-threads 2]";

  private FootprintCommand() {}

  /** Runs the command and exits with its status. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns 0, 1 if the benchmark failed, 2 for bad arguments. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    List<Integer> steps = List.of(100, 250, 500, 1000);
    List<Footprint.Mode> modes =
        List.of(Footprint.Mode.CHAT, Footprint.Mode.DDP, Footprint.Mode.DDP_SHARED);
    int shared = 2;
    try {
      CommandLine c = CommandLine.of(args);
      while (c.hasNext()) {
        switch (c.next()) {
          case "--steps" -> steps = steps(c.value());
          case "--modes" -> modes = modes(c.value());
          case "--shared-threads" -> shared = c.intValue(1, Integer.MAX_VALUE);
          default -> throw c.unknown();
        }
      }
    } catch (IllegalArgumentException e) {
      err.println("footprint: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    Process server;
    Map<String, String> info;
    try {
      server = startServer();
      info = readInfo(server);
    } catch (IOException | RuntimeException e) {
      err.println("footprint: cannot start the server JVM: " + e);
      return 1;
    }
    try {
      out.printf(Locale.ROOT,
          "Client footprint: idle clients logged in and subscribed to one room, server in another"
              + " JVM (pid %d); after each step full GCs until the used heap settles. %d cores,"
              + " max heap %d MiB, load average %.2f.%n",
          server.pid(), Runtime.getRuntime().availableProcessors(),
          Runtime.getRuntime().maxMemory() >> 20,
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      Footprint f = new Footprint(info.get("URL"), info.get("ROOM"), info.get("TOKEN"), shared);
      for (Footprint.Mode m : modes) {
        out.println();
        out.println(describe(m, shared));
        List<FootprintRow> rows = f.measure(m, steps);
        out.print(table(rows));
        out.flush();
      }
      return 0;
    } catch (RuntimeException e) {
      err.println("footprint: " + e);
      return 1;
    } finally {
      stop(server);
    }
  }

  static String describe(Footprint.Mode m, int shared) {
    return switch (m) {
      case CHAT -> "mode chat: ChatClient defaults (event loops on the shared ddpkit-loop pool)";
      case DDP -> "mode ddp: DdpClient defaults (event loops on the shared ddpkit-loop pool)";
      case DDP_SHARED -> "mode ddp-shared: DdpClient with executor(a fixed pool of " + shared
          + " threads shared by all clients)";
    };
  }

  /** The rows as a table: totals, per-client figures, and the marginal heap of each step. */
  static String table(List<FootprintRow> rows) {
    String fmt = "%8s %9s %11s %10s %12s %14s %10s %12s%n";
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, fmt, "clients", "+threads",
        "threads/cl", "+heap MiB", "heap KiB/cl", "step KiB/cl", "+RSS MiB", "RSS KiB/cl"));
    FootprintRow prev = null;
    for (FootprintRow r : rows) {
      String step = prev == null ? "-" : String.format(Locale.ROOT, "%.1f",
          (r.heapBytes() - prev.heapBytes()) / 1024.0 / (r.clients() - prev.clients()));
      sb.append(String.format(Locale.ROOT, fmt, r.clients(), r.threads(),
          String.format(Locale.ROOT, "%.2f", r.threadsPerClient()),
          String.format(Locale.ROOT, "%.1f", r.heapBytes() / 1048576.0),
          String.format(Locale.ROOT, "%.1f", r.heapKibPerClient()), step,
          r.rssBytes() < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", r.rssBytes() / 1048576.0),
          r.rssBytes() < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", r.rssKibPerClient())));
      prev = r;
    }
    return sb.toString();
  }

  private static List<Footprint.Mode> modes(String v) {
    List<Footprint.Mode> list = new ArrayList<>();
    for (String name : v.split(",", -1)) {
      list.add(Footprint.Mode.fromName(name.strip()));
    }
    return List.copyOf(list);
  }

  private static List<Integer> steps(String v) {
    List<Integer> list = new ArrayList<>();
    int last = 0;
    for (String s : v.split(",", -1)) {
      int n;
      try {
        n = Integer.parseInt(s.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--steps takes ascending whole numbers: " + v);
      }
      if (n <= last) {
        throw new IllegalArgumentException("--steps takes ascending whole numbers: " + v);
      }
      list.add(n);
      last = n;
    }
    return List.copyOf(list);
  }

  private static Process startServer() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        FootprintServer.class.getName());
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    return pb.start();
  }

  private static Map<String, String> readInfo(Process server) throws IOException {
    BufferedReader r = new BufferedReader(
        new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    Map<String, String> info = new HashMap<>();
    String line;
    List<String> keys = List.of("URL", "ROOM", "TOKEN");
    while (!info.keySet().containsAll(keys) && (line = r.readLine()) != null) {
      int sp = line.indexOf(' ');
      if (sp > 0 && keys.contains(line.substring(0, sp))) { // skip log lines
        info.put(line.substring(0, sp), line.substring(sp + 1));
      }
    }
    if (!info.keySet().containsAll(keys)) {
      throw new IllegalStateException("the server JVM ended before it printed URL, ROOM, TOKEN");
    }
    // Keep reading what it prints, so that a full pipe never blocks the server's logging.
    Thread drain = new Thread(() -> {
      try {
        while (r.readLine() != null) {
          // discarded
        }
      } catch (IOException e) {
        // the server JVM ended
      }
    }, "server-jvm-stdout");
    drain.setDaemon(true);
    drain.start();
    return info;
  }

  private static void stop(Process server) {
    try {
      server.getOutputStream().close(); // its stdin ends: it stops
      if (!server.waitFor(10, TimeUnit.SECONDS)) {
        server.destroyForcibly();
        server.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      server.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.destroyForcibly();
    }
  }
}
