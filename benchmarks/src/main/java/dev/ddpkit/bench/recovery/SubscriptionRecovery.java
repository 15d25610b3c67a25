package dev.ddpkit.bench.recovery;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.RateLimits;
import dev.ddpkit.chat.server.ScriptedFaults;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.PasswordDigest;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * Time from a reconnect to every room stream of one client being ready again, against the round
 * trip of the same connection, in the same run.
 *
 * <p>An embedded {@link ChatServer}, one user member of N rooms (100 by default), one {@link
 * DdpClient} logged in (SHA-256 digest, then the resume token in a reconnect hook, as {@link
 * ChatClient} does) and subscribed to every room's {@code stream-room-messages}. Then, several
 * times: the server drops the connection ({@link dev.ddpkit.chat.server.ScriptedFaults#closeAll}); the client redials; the time
 * is taken on the wire ({@link WireClock}) from the new {@code connected} to the last of the N
 * {@code ready}s. The client sends the login and all N subscriptions back to back, so this should
 * take about one round trip plus the server's work, not N round trips. The round trip is measured
 * on the same connection: a DDP ping and a trivial method ({@code loadHistory} with limit 0).
 *
 * <pre>java -cp benchmarks.jar dev.ddpkit.bench.recovery.SubscriptionRecovery [rooms] [repetitions]</pre>
 */
public final class SubscriptionRecovery {
  private static final Duration STEP = Duration.ofSeconds(30);

  private SubscriptionRecovery() {}

  /**
   * The outcome.
   *
   * @param rooms streams subscribed
   * @param addedLatency the latency a proxy added each way (zero: direct)
   * @param recoveryMillis per repetition: from {@code connected} to the last {@code ready}
   * @param firstReadyMillis per repetition: from {@code connected} to the first {@code ready}
   * @param pingMillis DDP ping round trips on the same connection
   * @param methodMillis trivial method round trips on the same connection
   */
  public record Result(
      int rooms, Duration addedLatency, List<Double> recoveryMillis, List<Double> firstReadyMillis,
      List<Double> pingMillis, List<Double> methodMillis) {
    /** The median recovery over the median method round trip. */
    public double recoveryOverMethodRtt() {
      return Samples.median(recoveryMillis) / Samples.median(methodMillis);
    }

    /** The median recovery over the median ping round trip. */
    public double recoveryOverPingRtt() {
      return Samples.median(recoveryMillis) / Samples.median(pingMillis);
    }
  }

  /**
   * Runs with 100 rooms and 7 repetitions (or the arguments given), directly and then through a
   * proxy adding 20 ms each way (or the latency given, in ms; 0 to skip), and prints the figures.
   */
  public static void main(String[] args) throws Exception {
    int rooms = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    int latency = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    print(run(rooms, reps, 30, Duration.ZERO), System.out);
    if (latency > 0) {
      print(run(rooms, reps, 10, Duration.ofMillis(latency)), System.out);
    }
  }

  /**
   * Runs the measurement.
   *
   * @param rooms how many room streams
   * @param repetitions how many drops
   * @param rttSamples round trips of each kind measured before the drops (5 more after each)
   * @param latency latency added each way by a {@link FaultProxy} between client and server
   *     ({@link Duration#ZERO}: no proxy)
   */
  public static Result run(int rooms, int repetitions, int rttSamples, Duration latency)
      throws Exception {
    if (rooms < 1 || repetitions < 1 || rttSamples < 1) {
      throw new IllegalArgumentException("rooms, repetitions and rttSamples must be positive");
    }
    Path dir = Files.createTempDirectory("ddpkit-bench-recovery");
    // DdpClient re-subscribes every room at once: past Rocket.Chat's 40 streams per 10 s.
    ScriptedFaults faults = new ScriptedFaults();
    ChatServer server = ChatServer.builder().dataDir(dir).port(0).drainPeriod(Duration.ZERO)
        .rateLimits(RateLimits.none()).faults(faults).build();
    server.start();
    FaultProxy proxy = null;
    String url = server.url();
    if (!latency.isZero()) {
      proxy = FaultProxy.forward(server.port()).latency(latency);
      url = "ws://127.0.0.1:" + proxy.port() + "/websocket";
    }
    WireClock wire = new WireClock();
    AtomicReference<String> token = new AtomicReference<>();
    DdpClient client =
        DdpClient.builder()
            .url(url)
            .name("bench-recovery")
            .transportFactory(wire)
            .reconnection(
                ReconnectPolicy.builder()
                    .backoff(Backoff.fixed(Duration.ofMillis(50)))
                    .closePolicy(ClosePolicy.ddp())
                    .build())
            .build();
    try {
      server.createUser("bench", "bench-pw");
      List<String> rids = new ArrayList<>();
      for (int i = 0; i < rooms; i++) {
        String rid = String.format(Locale.ROOT, "room-%03d", i);
        server.createRoom(rid, "bench");
        rids.add(rid);
      }
      client.addReconnectHook(
          c -> c.call("login", List.of(Map.of("resume", token.get())), CallOptions.WAIT));
      client.connect();
      JsonNode login =
          client
              .call("login", List.of(Map.of(
                  "user", Map.of("username", "bench"),
                  "password", Map.of("digest", PasswordDigest.sha256Hex("bench-pw"),
                      "algorithm", "sha-256"))), CallOptions.WAIT)
              .get(STEP.toSeconds(), TimeUnit.SECONDS);
      token.set(login.path("token").asText());
      List<Subscription> subs = new ArrayList<>();
      for (String rid : rids) {
        subs.add(client.subscribe(
            ChatClient.STREAM, rid, Map.of("useCollection", false, "args", List.of())));
      }
      for (Subscription s : subs) {
        s.ready().get(STEP.toSeconds(), TimeUnit.SECONDS);
      }

      List<Double> pings = new ArrayList<>();
      List<Double> methods = new ArrayList<>();
      roundTrips(client, wire, rids.get(0), rttSamples, pings, methods);
      List<Double> recovery = new ArrayList<>();
      List<Double> firstReady = new ArrayList<>();
      for (int r = 0; r < repetitions; r++) {
        wire.reset();
        faults.closeAll(1012, "benchmark drop");
        Samples.await(() -> wire.seen().readyIds() >= rooms, STEP,
            "all " + rooms + " streams ready after the reconnect (saw " + wire.seen() + ")");
        WireClock.Seen seen = wire.seen();
        recovery.add(Samples.millis(seen.lastReadyAt() - seen.connectedAt()));
        firstReady.add(Samples.millis(seen.firstReadyAt() - seen.connectedAt()));
        Samples.await(() -> client.status().connected(), STEP, "connected again");
        roundTrips(client, wire, rids.get(0), 5, pings, methods);
      }
      return new Result(rooms, latency, recovery, firstReady, pings, methods);
    } finally {
      client.close();
      if (proxy != null) {
        proxy.close();
      }
      server.stop();
      deleteTree(dir);
    }
  }

  private static void roundTrips(DdpClient client, WireClock wire, String rid, int n,
      List<Double> pings, List<Double> methods) throws Exception {
    for (int i = 0; i < n; i++) {
      pings.add(wire.ping().get(STEP.toSeconds(), TimeUnit.SECONDS).toNanos() / 1e6);
      long t0 = System.nanoTime();
      client.call("loadHistory", Arrays.asList(rid, null, 0, null), CallOptions.DEFAULT)
          .get(STEP.toSeconds(), TimeUnit.SECONDS);
      methods.add(Samples.millis(System.nanoTime() - t0));
    }
  }

  /** Prints the figures. */
  public static void print(Result r, PrintStream out) {
    out.printf(Locale.ROOT, "%nrecovery of %d room streams after a reconnect (embedded server, "
        + "loopback%s), %d drops%n", r.rooms(), r.addedLatency().isZero() ? ", direct"
        : ", through a proxy adding " + r.addedLatency().toMillis() + " ms each way",
        r.recoveryMillis().size());
    out.printf(Locale.ROOT, "  connected -> first ready:       median %.2f ms (min %.2f, max %.2f)"
        + "%n", Samples.median(r.firstReadyMillis()), Samples.min(r.firstReadyMillis()),
        Samples.max(r.firstReadyMillis()));
    out.printf(Locale.ROOT, "  connected -> last of %d ready:  median %.2f ms (min %.2f, max %.2f)"
        + "%n", r.rooms(), Samples.median(r.recoveryMillis()), Samples.min(r.recoveryMillis()),
        Samples.max(r.recoveryMillis()));
    out.printf(Locale.ROOT, "  round trip, DDP ping:           median %.3f ms (min %.3f, max %.3f,"
        + " n=%d)%n", Samples.median(r.pingMillis()), Samples.min(r.pingMillis()),
        Samples.max(r.pingMillis()), r.pingMillis().size());
    out.printf(Locale.ROOT, "  round trip, trivial method:     median %.3f ms (min %.3f, max %.3f,"
        + " n=%d)%n", Samples.median(r.methodMillis()), Samples.min(r.methodMillis()),
        Samples.max(r.methodMillis()), r.methodMillis().size());
    out.printf(Locale.ROOT, "  recovery / method round trip:   %.1f   (one round trip per stream "
        + "would be ~%d)%n", r.recoveryOverMethodRtt(), r.rooms());
    out.printf(Locale.ROOT, "  recovery / ping round trip:     %.1f%n", r.recoveryOverPingRtt());
    out.printf(Locale.ROOT, "  per-drop recovery ms: %s%n", format(r.recoveryMillis()));
  }

  static String format(List<Double> values) {
    StringBuilder sb = new StringBuilder();
    for (double v : values) {
      sb.append(sb.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.2f", v));
    }
    return sb.toString();
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
