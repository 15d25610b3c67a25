package dev.ddpkit.bench.throughput;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatLimits;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.RateLimits;
import dev.ddpkit.reconnect.Backoff;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Inbound throughput end to end over loopback: an embedded {@link ChatServer}, producers sending
 * into one room as fast as the server takes it, and consumers of that room's stream side by side in
 * the same run, each in a process of its own: ddpkit's {@link ChatClient} ({@link JavaConsumer})
 * and Node DDP clients ({@code benchmarks/node/consume.js}).
 *
 * <p>Three phases on the same stream: a warm-up (not reported), a live phase (the consumers
 * receive while the producers send: they can be no faster than the server), and a backlog phase
 * (the consumers are frozen with SIGSTOP while the producers send, then thawed together: each drains
 * the same backlog as fast as it can, which isolates the consumer). For each consumer: messages per
 * second, how long after the server acknowledged the last message it had them all, and its own CPU
 * time per 1,000 messages; then the ratios of ddpkit's figures to each Node client's.
 *
 * <p>The Java consumer can run once per execution mode of its event loop ({@code --java-modes}):
 * {@code default} (the loop on the JVM's shared ddpkit-loop pool) and {@code shared} (an executor
 * of 2 threads of the caller's), each in a process of its own, so the modes are compared within one
 * run. (Until issue 11: {@code own}, a loop thread per client, and {@code direct}.)
 *
 * <pre>java -cp benchmarks.jar dev.ddpkit.bench.throughput.EndToEndThroughput
 *     [--messages 20000] [--warmup 100000] [--producers 4] [--node-libs ddp,ddp.js]
 *     [--java-modes default,shared] [--node-script benchmarks/node/consume.js] [--node node]</pre>
 */
public final class EndToEndThroughput {
  static final String ROOM = "bench";
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(120);

  private EndToEndThroughput() {}

  /**
   * What to run.
   *
   * @param messages messages per measured phase
   * @param warmup messages of the warm-up phase
   * @param producers how many clients send, pipelined
   * @param nodeLibs the Node libraries to run a consumer with ({@code ddp}, {@code ddp.js}); may be
   *     empty
   * @param nodeScript the Node consumer script
   * @param node the node binary
   * @param backlog whether to run the backlog phase
   * @param javaModes the Java consumers to run, one process each: {@code default}, {@code
   *     shared} (see {@link JavaConsumer.Mode}); at least one
   */
  public record Config(
      int messages, int warmup, int producers, List<String> nodeLibs, Path nodeScript,
      String node, boolean backlog, List<String> javaModes) {
    /** Validates the settings. */
    public Config {
      if (messages < 1 || warmup < 0 || producers < 1) {
        throw new IllegalArgumentException("messages and producers must be positive, warmup >= 0");
      }
      nodeLibs = List.copyOf(nodeLibs);
      javaModes = List.copyOf(javaModes);
      if (javaModes.isEmpty()) {
        throw new IllegalArgumentException("at least one Java consumer mode is needed");
      }
      javaModes.forEach(JavaConsumer.Mode::fromName); // an unknown name fails here
    }

    /** The defaults of the script. */
    public static Config defaults() {
      return new Config(20_000, 100_000, 4, List.of("ddp", "ddp.js"),
          Path.of("benchmarks", "node", "consume.js"), "node", true,
          List.of("default", "shared"));
    }
  }

  /**
   * One consumer's figures in one phase.
   *
   * @param consumer its label
   * @param messages messages delivered in the phase
   * @param millis from the phase's first delivery (live) or from the thaw (backlog) to the last
   * @param lagMillis from the last acknowledgement to the last delivery (live; NaN for backlog)
   * @param cpuMillis the consumer process's CPU time spent in the phase
   */
  public record Figure(String consumer, long messages, double millis, double lagMillis,
      double cpuMillis) {
    /** Messages per second. */
    public double perSecond() {
      return messages * 1000.0 / millis;
    }

    /** CPU milliseconds per 1,000 messages. */
    public double cpuPerThousand() {
      return cpuMillis * 1000.0 / messages;
    }
  }

  /**
   * The outcome.
   *
   * @param liveServerPerSecond messages per second stored and acknowledged during the live phase
   * @param live the consumers' figures of the live phase
   * @param backlog those of the backlog phase (empty if not run)
   * @param serverDrainCpuMillis the embedded server's CPU time (ms) from the thaw to the last
   *     consumer's last message, by thread role (selector: the socket writes; workers; other)
   */
  public record Report(double liveServerPerSecond, List<Figure> live, List<Figure> backlog,
      Map<String, Double> serverDrainCpuMillis) {}

  /** CPU time so far of each of the embedded server's threads (named {@code chat-server-*}). */
  private static Map<String, Long> serverThreadCpuNanos() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Map<String, Long> out = new HashMap<>();
    for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("chat-server-")) {
        long t = mx.getThreadCpuTime(info.getThreadId());
        if (t > 0) {
          out.put(info.getThreadId() + " " + info.getThreadName(), t);
        }
      }
    }
    return out;
  }

  /** The server's CPU since {@code before}, in ms by role, with the total. */
  private static Map<String, Double> since(Map<String, Long> before) {
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("selector", 0.0);
    out.put("workers", 0.0);
    out.put("other", 0.0);
    double total = 0;
    for (Map.Entry<String, Long> e : serverThreadCpuNanos().entrySet()) {
      String name = e.getKey();
      double ms = (e.getValue() - before.getOrDefault(name, 0L)) / 1e6;
      String role = name.endsWith("selector") ? "selector"
          : name.contains("-worker-") ? "workers" : "other";
      out.merge(role, ms, Double::sum);
      total += ms;
    }
    out.put("total", total);
    return out;
  }

  /** Runs with the options given (see the class comment) and prints the figures. */
  public static void main(String[] args) throws Exception {
    Config c = parse(args);
    Report r = run(c, System.out);
    print(c, r, System.out);
  }

  static Config parse(String[] args) {
    Config d = Config.defaults();
    int messages = d.messages();
    int warmup = d.warmup();
    int producers = d.producers();
    List<String> libs = d.nodeLibs();
    Path script = d.nodeScript();
    String node = d.node();
    boolean backlog = d.backlog();
    List<String> javaModes = d.javaModes();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--no-backlog")) {
        backlog = false;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--messages" -> messages = Integer.parseInt(v);
        case "--warmup" -> warmup = Integer.parseInt(v);
        case "--producers" -> producers = Integer.parseInt(v);
        case "--node-libs" -> libs = v.isBlank() || v.equals("none") ? List.of() : List.of(v.split(","));
        case "--node-script" -> script = Path.of(v);
        case "--node" -> node = v;
        case "--java-modes" -> javaModes = List.of(v.split(","));
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    return new Config(messages, warmup, producers, libs, script, node, backlog, javaModes);
  }

  /** Runs the phases; {@code log} gets progress lines. */
  public static Report run(Config c, PrintStream log) throws Exception {
    Path dir = Files.createTempDirectory("ddpkit-bench-e2e");
    // Producers send as fast as they can: far past Rocket.Chat's 5 messages per second per user.
    // The backlog phase freezes every consumer while the whole backlog is queued for it: past the
    // default send-queue bound (4 MiB, issue 23) the server would rightly drop them as slow readers.
    // The heartbeat pings a quiet connection, and a consumer only reads. With the default 25 s
    // interval its first `ping` came at a random point, once just before the drain: that first
    // frame of another kind trapped in every hot method C2 had compiled without it (the reader's
    // frame cut, the envelope, the dispatch), and the drain ran on re-profiling code with up to
    // 0.9 s of compiling in it. Every 2 s (a quiet consumer is pinged 2-2.5 s after its subscribe),
    // the first ping falls in the warm-up (about 10 s at 100,000 messages; a much shorter one may
    // miss it), as a long-running client's first pings come before a burst; the timeout outlasts
    // the backlog's freeze.
    ChatServer server = ChatServer.builder().dataDir(dir).port(0).drainPeriod(Duration.ZERO)
        .heartbeatInterval(Duration.ofSeconds(2)).heartbeatTimeout(Duration.ofMinutes(5))
        .rateLimits(RateLimits.none()).maxSendQueueBytes(1L << 30).build();
    List<ConsumerProcess> consumers = new ArrayList<>();
    List<ChatClient> producers = new ArrayList<>();
    try {
      server.start();
      List<String> members = new ArrayList<>();
      for (int p = 1; p <= c.producers(); p++) {
        server.createUser("producer-" + p, "producer-pw");
        members.add("producer-" + p);
      }
      Map<String, List<String>> commands = consumerCommands(c, server.url());
      for (String user : commands.keySet()) {
        server.createUser(user, "reader-pw");
        members.add(user);
      }
      server.createRoom(ROOM, members.toArray(String[]::new));
      for (Map.Entry<String, List<String>> e : commands.entrySet()) {
        consumers.add(ConsumerProcess.start(label(e.getKey()), e.getValue(), log));
      }
      for (ConsumerProcess p : consumers) {
        p.awaitReady(STEP_TIMEOUT);
      }
      producers.addAll(startProducers(c, server.url()));
      Random random = new Random(7);

      // Each consumer's CPU time at the end of the previous phase (NaN: unknown, no warm-up).
      Map<ConsumerProcess, Double> cpu = new LinkedHashMap<>();
      consumers.forEach(p -> cpu.put(p, Double.NaN));
      log.printf(Locale.ROOT, "warm-up: %,d messages%n", c.warmup());
      if (c.warmup() > 0) {
        // Half live, half as a backlog (frozen, then thawed): both phases' paths are compiled
        // before either is measured (a drain reads many frames per socket read; without this the
        // Java consumer was still JIT-compiling in the measured backlog, 0.7 s of it).
        int live = c.warmup() / 2;
        produce(producers, live, random);
        if (c.backlog()) {
          for (ConsumerProcess p : consumers) {
            p.pause();
          }
        }
        produce(producers, c.warmup() - live, random);
        if (c.backlog()) {
          for (ConsumerProcess p : consumers) {
            p.resume();
          }
        }
        for (ConsumerProcess p : consumers) {
          cpu.put(p, p.awaitReached(c.warmup(), STEP_TIMEOUT).cpuMillis());
        }
      }

      log.printf(Locale.ROOT, "live: %,d messages%n", c.messages());
      long target = (long) c.warmup() + c.messages();
      double start = JavaConsumer.nowMillis();
      produce(producers, c.messages(), random);
      double acked = JavaConsumer.nowMillis();
      double serverRate = c.messages() * 1000.0 / (acked - start);
      List<Figure> live = new ArrayList<>();
      for (ConsumerProcess p : consumers) {
        ConsumerProcess.Reached r = p.awaitReached(target, STEP_TIMEOUT);
        live.add(new Figure(p.label(), c.messages(), r.atMillis() - r.firstMillis(),
            r.atMillis() - acked, r.cpuMillis() - cpu.get(p)));
        cpu.put(p, r.cpuMillis());
      }

      List<Figure> backlog = new ArrayList<>();
      Map<String, Double> serverDrainCpu = Map.of();
      if (c.backlog()) {
        log.printf(Locale.ROOT, "backlog: %,d messages while the consumers are frozen%n",
            c.messages());
        for (ConsumerProcess p : consumers) {
          p.pause();
        }
        produce(producers, c.messages(), random);
        Map<String, Long> serverCpu = serverThreadCpuNanos();
        double thaw = JavaConsumer.nowMillis();
        for (ConsumerProcess p : consumers) {
          p.resume();
        }
        long end = target + c.messages();
        for (ConsumerProcess p : consumers) {
          ConsumerProcess.Reached r = p.awaitReached(end, STEP_TIMEOUT);
          backlog.add(new Figure(p.label(), c.messages(), r.atMillis() - thaw, Double.NaN,
              r.cpuMillis() - cpu.get(p)));
        }
        serverDrainCpu = since(serverCpu);
      }
      return new Report(serverRate, live, backlog, serverDrainCpu);
    } finally {
      for (ChatClient p : producers) {
        p.close();
      }
      for (ConsumerProcess p : consumers) {
        p.close();
      }
      server.stop();
      deleteTree(dir);
    }
  }

  private static Map<String, List<String>> consumerCommands(Config c, String url) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    String targets = targets(c);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (String mode : c.javaModes()) {
      String user = "reader-java-" + mode;
      List<String> command = new ArrayList<>(List.of(java, "-Dlogback.configurationFile=logback.xml"));
      command.addAll(consumerJvmOptions(mode));
      command.addAll(List.of("-cp", System.getProperty("java.class.path"),
          JavaConsumer.class.getName(), "--url", url, "--user", user, "--password", "reader-pw",
          "--room", ROOM, "--targets", targets, "--mode", mode));
      out.put(user, List.copyOf(command));
    }
    for (String lib : c.nodeLibs()) {
      if (!lib.equals("ddp") && !lib.equals("ddp.js")) {
        throw new IllegalArgumentException("node lib must be ddp or ddp.js: " + lib);
      }
      if (!Files.isRegularFile(c.nodeScript())) {
        throw new IllegalArgumentException("no Node script at " + c.nodeScript().toAbsolutePath()
            + " (run from the repository root, after npm install in benchmarks/node)");
      }
      String user = "reader-" + lib.replace(".", "");
      out.put(user, List.of(c.node(), c.nodeScript().toString(), "--lib", lib, "--url", url,
          "--user", user, "--password", "reader-pw", "--room", ROOM, "--targets", targets));
    }
    return out;
  }

  /**
   * Extra options for each Java consumer's JVM, from the environment variable {@code
   * JAVA_CONSUMER_OPTS} (split on white space; {@code {mode}} becomes the consumer's mode): a
   * profile of the consumer, say {@code -XX:StartFlightRecording=filename=target/consumer-{mode}.jfr}.
   */
  private static List<String> consumerJvmOptions(String mode) {
    String opts = System.getenv("JAVA_CONSUMER_OPTS");
    if (opts == null || opts.isBlank()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String o : opts.trim().split("\\s+")) {
      out.add(o.replace("{mode}", mode));
    }
    return out;
  }

  private static String targets(Config c) {
    List<String> t = new ArrayList<>();
    if (c.warmup() > 0) {
      t.add(Integer.toString(c.warmup()));
    }
    long live = (long) c.warmup() + c.messages();
    t.add(Long.toString(live));
    if (c.backlog()) {
      t.add(Long.toString(live + c.messages()));
    }
    return String.join(",", t);
  }

  private static String label(String user) {
    if (user.startsWith("reader-java-")) {
      return "java ddpkit ChatClient ("
          + JavaConsumer.Mode.fromName(user.substring("reader-java-".length())).label() + ")";
    }
    return switch (user) {
      case "reader-ddp" -> "node ddp 0.12.1";
      case "reader-ddpjs" -> "node ddp.js 2.2.1 + ws";
      default -> user;
    };
  }

  private static List<ChatClient> startProducers(Config c, String url) {
    List<ChatClient> out = new ArrayList<>();
    int each = (int) Math.min(100_000, (long) c.messages() / c.producers() + 10);
    for (int p = 1; p <= c.producers(); p++) {
      ChatClient client =
          ChatClient.builder()
              .url(url)
              .username("producer-" + p)
              .password("producer-pw")
              .historyLimit(0)
              .outboxCapacity(Math.max(each, c.warmup() / c.producers() + 10))
              .backoff(Backoff.fixed(Duration.ofMillis(200)))
              // A throughput run pushes past Rocket.Chat's 5 sends per second on purpose.
              .limits(ChatLimits.none())
              .name("bench-producer-" + p)
              .build();
      client.start();
      out.add(client);
    }
    for (ChatClient client : out) {
      client.loggedIn().orTimeout(30, TimeUnit.SECONDS).join();
    }
    return out;
  }

  /** Sends {@code n} messages round-robin from the producers, pipelined; returns once all acked. */
  private static void produce(List<ChatClient> producers, int n, Random random) {
    for (int i = 0; i < n; i++) {
      producers.get(i % producers.size()).sendMessage(ROOM, MessageMix.text(random));
    }
    CompletableFuture<?>[] flushes =
        producers.stream().map(ChatClient::flush).toArray(CompletableFuture[]::new);
    CompletableFuture.allOf(flushes).orTimeout(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
  }

  /** Prints the report as tables, with the ratios of ddpkit's figures to each other client's. */
  public static void print(Config c, Report r, PrintStream out) {
    out.printf(Locale.ROOT, "%nend-to-end inbound throughput over loopback: one room, %,d messages "
        + "per phase (after %,d of warm-up), %d pipelined producers%n", c.messages(), c.warmup(),
        c.producers());
    out.printf(Locale.ROOT, "server, live phase: %,.0f msgs/s stored, broadcast and acknowledged%n",
        r.liveServerPerSecond());
    table("live (consumers receive while the producers send)", r.live(), true, out);
    if (!r.backlog().isEmpty()) {
      table("backlog (consumers frozen while the producers send, then thawed together)",
          r.backlog(), false, out);
      StringBuilder line = new StringBuilder("  server CPU during the drain, ms:");
      r.serverDrainCpuMillis().forEach((role, ms) ->
          line.append(String.format(Locale.ROOT, " %s %.0f", role, ms)));
      out.println(line);
    }
  }

  private static void table(String title, List<Figure> figures, boolean live, PrintStream out) {
    out.printf(Locale.ROOT, "%n%s%n", title);
    out.printf(Locale.ROOT, "  %-36s %9s %10s %12s %16s%n", "consumer", "messages",
        "msgs/s", live ? "lag ms" : "drain ms", "cpu ms/1000 msgs");
    for (Figure f : figures) {
      out.printf(Locale.ROOT, "  %-36s %,9d %,10.0f %,12.1f %16s%n", f.consumer(), f.messages(),
          f.perSecond(), live ? f.lagMillis() : f.millis(),
          Double.isNaN(f.cpuMillis()) ? "-" : String.format(Locale.ROOT, "%.1f",
              f.cpuPerThousand()));
    }
    List<Figure> javas = figures.stream().filter(f -> f.consumer().startsWith("java")).toList();
    List<Figure> others = figures.stream().filter(f -> !f.consumer().startsWith("java")).toList();
    Figure base = javas.get(0);
    for (Figure java : javas.subList(1, javas.size())) {
      ratio(java, base, out); // each Java mode against the first (the default, the loop pool)
    }
    for (Figure java : javas) {
      for (Figure other : others) {
        ratio(java, other, out);
      }
    }
  }

  private static void ratio(Figure a, Figure b, PrintStream out) {
    out.printf(Locale.ROOT, "  ratio %s / %s: msgs/s x%.2f", shortLabel(a.consumer()),
        shortLabel(b.consumer()), a.perSecond() / b.perSecond());
    if (!Double.isNaN(a.cpuMillis()) && !Double.isNaN(b.cpuMillis())) {
      out.printf(Locale.ROOT, ", cpu per message x%.2f", a.cpuPerThousand() / b.cpuPerThousand());
    }
    out.println();
  }

  /** "java ddpkit ChatClient (loop pool)" -> "ddpkit loop pool"; Node labels unchanged. */
  private static String shortLabel(String label) {
    if (label.startsWith("java ddpkit ChatClient (")) {
      return "ddpkit " + label.substring("java ddpkit ChatClient (".length(), label.length() - 1);
    }
    return label;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
