package dev.ddpkit.bench.throughput;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The Java side of the end-to-end run: a {@link ChatClient} in a process of its own that logs in,
 * joins one room and counts the messages its listener is given, speaking the same line protocol on
 * stdout as {@code benchmarks/node/consume.js} ({@code READY}, then one {@code REACHED} line per
 * target). Run by {@link EndToEndThroughput}.
 *
 * <pre>java -cp benchmarks.jar dev.ddpkit.bench.throughput.JavaConsumer
 *     --url ws://127.0.0.1:PORT/websocket --user U --password P --room R --targets 100,2100</pre>
 */
public final class JavaConsumer {
  private JavaConsumer() {}

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
    ChatClient client =
        ChatClient.builder()
            .url(a.url)
            .username(a.user)
            .password(a.password)
            .room(a.room)
            .historyLimit(0)
            .outboxCapacity(10)
            .name("bench-java-consumer")
            .listener(counter)
            .build();
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

  /** Process CPU time in milliseconds, all threads. */
  static double cpuMillis() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime() / 1e6;
    }
    return -1;
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
        out.printf(Locale.ROOT, "REACHED %d %.3f %.3f %.1f 0%n",
            delivered, nowMillis(), firstOfPhase, cpuMillis());
        out.flush();
        firstOfPhase = 0;
        if (targets.isEmpty()) {
          done.run();
        }
      }
    }
  }

  /** Command-line arguments. */
  record Args(String url, String user, String password, String room, List<Long> targets) {
    static Args parse(String[] argv) {
      String url = null;
      String user = null;
      String password = null;
      String room = null;
      List<Long> targets = new ArrayList<>();
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
      return new Args(url, user, password, room, List.copyOf(targets));
    }
  }
}
