package dev.ddpkit.bench.throughput;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatClientBuilder;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The Java side of the end-to-end run: a {@link ChatClient} in a process of its own that logs in,
 * joins one room and counts the messages its listener is given, speaking the same line protocol on
 * stdout as {@code benchmarks/node/consume.js} ({@code READY}, then one {@code REACHED} line per
 * target). Run by {@link EndToEndThroughput}.
 *
 * <pre>java -cp benchmarks.jar dev.ddpkit.bench.throughput.JavaConsumer
 *     --url ws://127.0.0.1:PORT/websocket --user U --password P --room R --targets 100,2100
 *     [--mode default|shared]</pre>
 */
public final class JavaConsumer {
  /** The size of the pool in {@link Mode#SHARED}. */
  static final int SHARED_THREADS = 2;

  private JavaConsumer() {}

  /** Where the client's event loop runs. */
  public enum Mode {
    /** The default: the loop on the JVM's shared ddpkit-loop pool, fed by the socket's reader. */
    DEFAULT("default", "loop pool"),
    /** {@code executor(pool)}: a fixed pool of {@value #SHARED_THREADS} threads of the caller's. */
    SHARED("shared", "shared pool");

    private final String cliName;
    private final String label;

    Mode(String cliName, String label) {
      this.cliName = cliName;
      this.label = label;
    }

    /** The label in the report. */
    public String label() {
      return label;
    }

    /** The mode called {@code name}; IllegalArgumentException naming the known ones if none. */
    public static Mode fromName(String name) {
      for (Mode m : values()) {
        if (m.cliName.equals(name)) {
          return m;
        }
      }
      throw new IllegalArgumentException("unknown Java consumer mode '" + name
          + "' (known: default, shared)");
    }
  }

  /** Runs the consumer; exits 0 after the last target, 2 on bad arguments or a failed join. */
  public static void main(String[] argv) throws InterruptedException {
    Args a;
    try {
      a = Args.parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("JavaConsumer: " + e.getMessage());
      System.exit(2);
      return;
    }
    int code = run(a, System.out);
    System.exit(code);
  }

  static int run(Args a, PrintStream out) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    Counter counter = new Counter(a.targets, out, done::countDown);
    ChatClientBuilder b =
        ChatClient.builder()
            .url(a.url)
            .username(a.user)
            .password(a.password)
            .room(a.room)
            .historyLimit(0)
            .outboxCapacity(10)
            .name("bench-java-consumer")
            .listener(counter);
    ExecutorService pool = null;
    switch (a.mode) {
      case DEFAULT -> { }
      case SHARED -> {
        AtomicInteger n = new AtomicInteger();
        pool = Executors.newFixedThreadPool(SHARED_THREADS, r -> {
          Thread t = new Thread(r, "bench-java-consumer-pool-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
        b.executor(pool);
      }
      default -> throw new AssertionError("Unexpected mode: " + a.mode);
    }
    ChatClient client = b.build();
    Thread stdinWatch = new Thread(() -> awaitEof(done), "bench-stdin-watch");
    stdinWatch.setDaemon(true);
    stdinWatch.start();
    try {
      client.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      // A CLI, not a test: the client has no "joined" event, so look every few milliseconds.
      while (!client.joinedRooms().contains(a.room)) {
        if (System.nanoTime() > deadline) {
          System.err.println("JavaConsumer: not joined within 30 s: " + client.status());
          return 2;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
      out.println("READY java");
      out.flush();
      done.await();
      return 0;
    } finally {
      client.close();
      if (pool != null) {
        pool.shutdownNow();
      }
    }
  }

  private static void awaitEof(CountDownLatch done) {
    try {
      while (System.in.read() >= 0) {
        // the coordinator sends nothing; EOF means it is gone
      }
    } catch (IOException e) {
      // the same: nobody to report to
    }
    done.countDown();
  }

  /**
   * Process CPU time in milliseconds, all threads: {@link ScheduledTime} (nanoseconds, the JVM's
   * own threads included), or where {@code /proc} cannot tell, the MXBean's process CPU time. The
   * MXBean's comes in clock ticks on Linux (10 ms steps here): a drain of 20,000 messages costs
   * about 80 ms, so a tick was an eighth of the figure.
   */
  static double cpuMillis() {
    double precise = ScheduledTime.processMillis();
    if (precise >= 0) {
      return precise;
    }
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime() / 1e6;
    }
    return -1;
  }

  /**
   * The kernel's run time of this process's threads: each one's {@code /proc/self/task/<tid>/
   * schedstat}, summed. A thread that has ended (the JIT's idle compiler threads do) keeps the
   * time of its last reading in the total, so the sum never goes back; what it ran after that
   * reading is not counted. A thread whose file cannot be read this time counts its last reading.
   */
  static final class ScheduledTime {
    private static final ScheduledTime SELF = new ScheduledTime(Path.of("/proc/self/task"));

    private final Path tasks;
    /** Each thread's run time at its last reading, ns, by thread id. */
    private final Map<String, Long> last = new HashMap<>();
    /** The last readings of the threads that have ended since, ns. */
    private long ended;
    /** The last total returned, ms; -1 before the first. */
    private double lastTotal = -1;

    /** Reads the threads under {@code tasks}: a directory per thread, each with a schedstat. */
    ScheduledTime(Path tasks) {
      this.tasks = tasks;
    }

    /** This process's: milliseconds, or -1 where {@code /proc} does not tell. */
    static double processMillis() {
      return SELF.millis();
    }

    /**
     * Milliseconds, or -1 where the directory does not tell (not Linux, or no schedstat). Once it
     * has told, a listing that fails returns the last total: the caller never switches to another
     * clock's baseline in the middle of a run.
     */
    synchronized double millis() {
      Map<String, Long> now = new HashMap<>();
      boolean listed = false;
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tasks)) {
        for (Path task : dirs) {
          listed = true;
          String tid = task.getFileName().toString();
          Long nanos = runNanos(task);
          if (nanos == null) {
            nanos = last.get(tid); // listed but not readable: it may be ending
          }
          if (nanos != null) {
            now.put(tid, nanos);
          }
        }
      } catch (IOException | RuntimeException e) {
        return lastTotal;
      }
      if (!listed || (now.isEmpty() && last.isEmpty())) {
        return lastTotal;
      }
      for (Map.Entry<String, Long> e : last.entrySet()) {
        if (!now.containsKey(e.getKey())) {
          ended += e.getValue();
        }
      }
      last.clear();
      last.putAll(now);
      long total = ended;
      for (long nanos : now.values()) {
        total += nanos;
      }
      lastTotal = total / 1e6;
      return lastTotal;
    }

    /** The first field of a thread's schedstat, or null if it cannot be read (it ended). */
    private static Long runNanos(Path task) {
      try {
        String line = Files.readString(task.resolve("schedstat"));
        int space = line.indexOf(' ');
        return Long.parseLong(space < 0 ? line.trim() : line.substring(0, space));
      } catch (IOException | NumberFormatException e) {
        return null;
      }
    }
  }

  /** Epoch milliseconds with a microsecond fraction. */
  static double nowMillis() {
    java.time.Instant t = java.time.Instant.now();
    return t.getEpochSecond() * 1e3 + t.getNano() / 1e6;
  }

  /** Counts delivered messages and prints a line at each target; runs on the client's thread. */
  static final class Counter implements ChatListener {
    private final List<Long> targets;
    private final PrintStream out;
    private final Runnable done;
    private final ThreadCpu threads = new ThreadCpu();
    private long delivered;
    private double firstOfPhase;

    Counter(List<Long> targets, PrintStream out, Runnable done) {
      this.targets = new ArrayList<>(targets);
      this.out = out;
      this.done = done;
    }

    @Override
    public void onMessage(ChatMessage message) {
      if (firstOfPhase == 0) {
        firstOfPhase = nowMillis();
      }
      delivered++;
      if (!targets.isEmpty() && delivered == targets.get(0)) {
        targets.remove(0);
        // The ChatClient drops repeats itself: it never shows one, so there is none to count.
        double cpu = cpuMillis();
        out.printf(Locale.ROOT, "REACHED %d %.3f %.3f %.1f 0%n",
            delivered, nowMillis(), firstOfPhase, cpu);
        out.println(threads.phase(delivered, cpu)); // a log line: shown by the coordinator
        out.flush();
        firstOfPhase = 0;
        if (targets.isEmpty()) {
          done.run();
        }
      }
    }
  }

  /**
   * Where the process's CPU went since the previous call, per 1,000 messages, by thread role: the
   * socket's reader and writer threads, the event loop (the shared pool or the caller's), other Java threads, and
   * the rest of the process (the JVM's own threads: JIT compilers, GC), which the thread MXBean does
   * not list; with the GCs, GC pause time and JIT compile time (wall, summed over compiler
   * threads) of the interval, which tell what that rest was.
   */
  static final class ThreadCpu {
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final Map<String, Double> last = new HashMap<>();
    private double lastProcess;
    private long lastCount;
    private long lastGcCount;
    private long lastGcMillis;
    private long lastJitMillis;

    String phase(long count, double processMillis) {
      Map<String, Double> now = new LinkedHashMap<>();
      for (String role : List.of("ws-read", "loop", "ws-write", "other java")) {
        now.put(role, 0.0);
      }
      for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
        if (info == null) {
          continue;
        }
        long ns = mx.getThreadCpuTime(info.getThreadId());
        if (ns > 0) {
          now.merge(role(info.getThreadName()), ns / 1e6, Double::sum);
        }
      }
      double java = now.values().stream().mapToDouble(Double::doubleValue).sum();
      now.put("jvm (jit, gc)", processMillis - java);
      long n = count - lastCount;
      StringBuilder line = new StringBuilder("cpu ms/1000 msgs by thread, last ");
      line.append(String.format(Locale.ROOT, "%,d msgs:", n));
      for (Map.Entry<String, Double> e : now.entrySet()) {
        double before = last.getOrDefault(e.getKey(), 0.0);
        line.append(String.format(Locale.ROOT, " %s %.1f", e.getKey(),
            (e.getValue() - before) * 1000.0 / n));
      }
      long gcCount = 0;
      long gcMillis = 0;
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        gcCount += Math.max(0, gc.getCollectionCount());
        gcMillis += Math.max(0, gc.getCollectionTime());
      }
      CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
      long jitMillis = jit != null && jit.isCompilationTimeMonitoringSupported()
          ? jit.getTotalCompilationTime() : 0;
      line.append(String.format(Locale.ROOT,
          " (process %.1f); in the interval: %d GCs, %d ms of GC pauses, %d ms of JIT compiling",
          (processMillis - lastProcess) * 1000.0 / n, gcCount - lastGcCount,
          gcMillis - lastGcMillis, jitMillis - lastJitMillis));
      lastGcCount = gcCount;
      lastGcMillis = gcMillis;
      lastJitMillis = jitMillis;
      last.clear();
      last.putAll(now);
      lastProcess = processMillis;
      lastCount = count;
      return line.toString();
    }

    private static String role(String thread) {
      if (thread.endsWith("-ws-read")) {
        return "ws-read";
      }
      if (thread.endsWith("-ws-write") || thread.startsWith("WebSocketWriteThread")) {
        return "ws-write";
      }
      if (thread.startsWith("ddpkit-loop-") || thread.startsWith("bench-java-consumer-pool")) {
        return "loop";
      }
      return "other java";
    }
  }

  /** Command-line arguments. */
  record Args(String url, String user, String password, String room, List<Long> targets,
      Mode mode) {
    static Args parse(String[] argv) {
      String url = null;
      String user = null;
      String password = null;
      String room = null;
      List<Long> targets = new ArrayList<>();
      Mode mode = Mode.DEFAULT;
      for (int i = 0; i < argv.length; i += 2) {
        if (i + 1 >= argv.length) {
          throw new IllegalArgumentException("missing value for " + argv[i]);
        }
        String v = argv[i + 1];
        switch (argv[i]) {
          case "--url" -> url = v;
          case "--user" -> user = v;
          case "--password" -> password = v;
          case "--room" -> room = v;
          case "--mode" -> mode = Mode.fromName(v);
          case "--targets" -> {
            for (String t : v.split(",")) {
              targets.add(Long.parseLong(t.trim()));
            }
          }
          default -> throw new IllegalArgumentException("unknown option " + argv[i]);
        }
      }
      if (url == null || user == null || password == null || room == null || targets.isEmpty()) {
        throw new IllegalArgumentException(
            "usage: --url U --user U --password P --room R --targets N,M,...");
      }
      return new Args(url, user, password, room, List.copyOf(targets), mode);
    }
  }
}
