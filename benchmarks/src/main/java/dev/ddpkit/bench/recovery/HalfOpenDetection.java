package dev.ddpkit.bench.recovery;

import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectPolicy;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time to detect a half-open connection against the heartbeat setting. A {@link DdpClient} talks
 * to an embedded {@link ChatServer} through a {@link FaultProxy}; right after a frame from the server
 * (the answer to a call) the proxy goes {@link FaultProxy.Mode#BLACKHOLE} (both directions silent,
 * nothing closed: a NAT that forgot the flow), and the time is taken from that switch to the
 * client's status leaving {@code CONNECTED}. The client pings after {@code interval} without
 * inbound traffic and gives up {@code timeout} after the ping, so the expected time is about
 * {@code interval + timeout} (the last frame came just before the blackhole).
 *
 * <pre>java -cp benchmarks.jar dev.ddpkit.bench.recovery.HalfOpenDetection [repetitions]</pre>
 */
public final class HalfOpenDetection {
  private static final Duration STEP = Duration.ofSeconds(30);

  private HalfOpenDetection() {}

  /**
   * One heartbeat setting.
   *
   * @param interval idle time before a ping
   * @param timeout time a ping may go unanswered
   */
  public record Setting(Duration interval, Duration timeout) {
    /** The time detection should take when the blackhole follows a frame: interval + timeout. */
    public Duration expected() {
      return interval.plus(timeout);
    }
  }

  /**
   * The detection times of one setting.
   *
   * @param setting the heartbeat setting
   * @param detectionMillis per repetition: from the blackhole to the status leaving CONNECTED
   */
  public record Row(Setting setting, List<Double> detectionMillis) {
    /** The median detection time over the heartbeat interval. */
    public double overInterval() {
      return Samples.median(detectionMillis) / setting.interval().toMillis();
    }

    /** The median detection time over interval + timeout. */
    public double overExpected() {
      return Samples.median(detectionMillis) / setting.expected().toMillis();
    }
  }

  /** The settings of the script: 250 ms, 500 ms, 1 s with timeout = interval, and 1 s / 500 ms. */
  public static List<Setting> defaultSettings() {
    return List.of(
        new Setting(Duration.ofMillis(250), Duration.ofMillis(250)),
        new Setting(Duration.ofMillis(500), Duration.ofMillis(500)),
        new Setting(Duration.ofSeconds(1), Duration.ofSeconds(1)),
        new Setting(Duration.ofSeconds(1), Duration.ofMillis(500)));
  }

  /** Runs the default settings, 5 repetitions each (or the number given), and prints the figures. */
  public static void main(String[] args) throws Exception {
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    print(run(defaultSettings(), reps), System.out);
  }

  /** Runs every setting {@code repetitions} times against one server and one proxy. */
  public static List<Row> run(List<Setting> settings, int repetitions) throws Exception {
    if (repetitions < 1) {
      throw new IllegalArgumentException("repetitions must be positive: " + repetitions);
    }
    Path dir = Files.createTempDirectory("ddpkit-bench-halfopen");
    ChatServer server = ChatServer.builder().dataDir(dir).port(0).drainPeriod(Duration.ZERO).build();
    server.start();
    List<Row> rows = new ArrayList<>();
    try (FaultProxy proxy = FaultProxy.forward(server.port())) {
      for (Setting s : settings) {
        rows.add(new Row(s, measure(proxy, s, repetitions)));
      }
    } finally {
      server.stop();
      SubscriptionRecovery.deleteTree(dir);
    }
    return rows;
  }

  private static List<Double> measure(FaultProxy proxy, Setting s, int repetitions) {
    AtomicLong leftAt = new AtomicLong(); // 0: armed, not left yet; -1: not armed
    leftAt.set(-1);
    DdpClient client =
        DdpClient.builder()
            .url("ws://127.0.0.1:" + proxy.port() + "/websocket")
            .name("bench-halfopen")
            .heartbeatInterval(s.interval())
            .heartbeatTimeout(s.timeout())
            .reconnection(
                ReconnectPolicy.builder()
                    .backoff(Backoff.fixed(Duration.ofMillis(50)))
                    .closePolicy(ClosePolicy.ddp())
                    .build())
            .addStatusListener(st -> {
              if (st.state() != DdpStatus.State.CONNECTED) {
                leftAt.compareAndSet(0, System.nanoTime());
              }
            })
            .build();
    List<Double> out = new ArrayList<>();
    try {
      client.connect();
      Duration limit = s.expected().multipliedBy(5).plus(STEP);
      for (int r = 0; r < repetitions; r++) {
        Samples.await(() -> client.status().connected(), STEP, "connected through the proxy");
        // A fresh frame from the server just before the blackhole: an error answer will do.
        client.call("bench-noop", List.of(), CallOptions.DEFAULT)
            .handle((v, e) -> null)
            .get(STEP.toSeconds(), TimeUnit.SECONDS);
        leftAt.set(0);
        long t0 = System.nanoTime();
        proxy.mode(FaultProxy.Mode.BLACKHOLE);
        Samples.await(() -> leftAt.get() != 0, limit, "the client to notice the blackhole");
        out.add(Samples.millis(leftAt.get() - t0));
        leftAt.set(-1);
        proxy.mode(FaultProxy.Mode.PASS); // the client redials within 50 ms
      }
    } catch (Exception e) {
      throw new IllegalStateException("half-open run failed for " + s + ": " + e, e);
    } finally {
      client.close();
    }
    return out;
  }

  /** Prints one line per setting. */
  public static void print(List<Row> rows, PrintStream out) {
    out.printf(Locale.ROOT, "%nhalf-open detection (FaultProxy BLACKHOLE right after a server "
        + "frame; time to the status leaving CONNECTED)%n");
    out.printf(Locale.ROOT, "  %9s %9s %10s %10s %10s %10s %12s %12s%n", "interval", "timeout",
        "median ms", "min ms", "max ms", "expected", "/ interval", "/ expected");
    for (Row row : rows) {
      Setting s = row.setting();
      List<Double> d = row.detectionMillis();
      out.printf(Locale.ROOT, "  %7dms %7dms %10.1f %10.1f %10.1f %8dms %12.2f %12.2f%n",
          s.interval().toMillis(), s.timeout().toMillis(), Samples.median(d), Samples.min(d),
          Samples.max(d), s.expected().toMillis(), row.overInterval(), row.overExpected());
    }
    out.println("  (expected = interval + timeout: the idle ping goes out one interval after the "
        + "last frame, the drop one timeout later)");
  }
}
