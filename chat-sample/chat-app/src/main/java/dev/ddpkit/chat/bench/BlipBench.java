package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.protocol.CallLimit;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.RateLimits;
import dev.ddpkit.chat.server.SessionStats;
import dev.ddpkit.ddp.DdpClient;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/**
 * The network blip: N {@link ChatClient}s in R rooms each, logged in through a {@link BlipProxy}
 * in front of an embedded {@link ChatServer}; the proxy resets every TCP connection at once (the
 * server process stays up), refuses connections for a gap G, then lets them through again. One
 * run with DDP session resumption (client and server) and one without, in the same JVM; for each
 * gap it measures what the server handled per client for the reconnect (frames in, method calls,
 * subscriptions), the server's CPU time for the wave (its own threads; from the cut, and from the
 * network's return alone), and when every client was
 * live and caught up again (its status CONNECTED): from the network's return, and for each client
 * from its socket's open, against one round trip measured before the blip.
 */
final class BlipBench {
  /** What one wave measured. */
  record Wave(boolean resume, int clients, int rooms, long gapMs, int cut, long framesIn,
      long methodCalls, long subscriptions, long resumed, long serverCpuNanos,
      long serverCpuAfterReturnNanos, long lastLiveMs,
      long[] afterOpenMicros, long rttMicros, long lostSubscriptions, long lostMessages,
      long held, long expired, Probes probes) {
    /** {@code total} over every client, the probes' included (they reconnect the same way). */
    double perClient(long total) {
      return (double) total / (clients + probes.count());
    }

    long afterOpen(double quantile) {
      return BlipClients.quantile(afterOpenMicros.clone(), quantile);
    }
  }

  /**
   * What the probes ({@link BlipProbe}, clients in a JVM of their own) measured in a wave, one
   * entry per probe: open to live and {@code connect} to {@code connected}, in µs.
   */
  record Probes(int count, long[] afterOpenMicros, long[] roundTripMicros, long resumed,
      long[] openToConnectMicros, long[] connectedToLiveMicros) {
    static final Probes NONE = new Probes(0, new long[0], new long[0], 0, new long[0], new long[0]);

    double ratio(double quantile) {
      double[] r = new double[count];
      for (int k = 0; k < count; k++) {
        r[k] = (double) afterOpenMicros[k] / Math.max(1, roundTripMicros[k]);
      }
      return quantile(r, quantile);
    }
  }

  static double quantile(double[] v, double q) {
    if (v.length == 0) {
      return 0;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    return s[(int) Math.min(s.length - 1, Math.floor(q * s.length))];
  }

  private static final String USER = "blip";
  private static final String WRITER = "blip-writer";
  private static final Duration LIVE_TIMEOUT = Duration.ofMinutes(4);
  private static final int START_BATCH = 100;
  /** Rooms a writer posts in: 4 waves in 10 s stay within 10 sendMessage per connection. */
  private static final int ROOMS_PER_WRITER = 2;
  /** The gap of the unmeasured wave that runs first. */
  private static final Duration WARM_UP_GAP = Duration.ofSeconds(1);

  private final int clients;
  private final int rooms;
  private final int probes;
  private final PrintStream progress;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private BlipClients marks;
  private ProbeProcess probe;
  private int written;

  /**
   * @param clients the clients in this JVM
   * @param rooms the rooms each is in
   * @param probes the clients in a JVM of their own ({@link BlipProbe}), 0 for none
   * @param progress where progress lines go
   */
  BlipBench(int clients, int rooms, int probes, PrintStream progress) {
    this.clients = clients;
    this.rooms = rooms;
    this.probes = probes;
    this.progress = progress;
  }

  /** One setup (server, proxy, clients) and one wave per gap, with or without resumption. */
  List<Wave> run(boolean resume, List<Duration> gaps) {
    Path dir;
    try {
      dir = Files.createTempDirectory("ddpkit-blip-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Rocket.Chat's default limits, but for sendMessage per user: the one writer posts in every
    // room during the gap.
    ChatServer server = ChatServer.builder().dataDir(dir)
        .rateLimits(RateLimits.rocketChatDefaults()
            .withSendMessagePerUser(new CallLimit(100_000, Duration.ofSeconds(1))))
        .sessionGrace(resume ? Duration.ofSeconds(15) : Duration.ZERO).build();
    server.start();
    List<ChatClient> all = new ArrayList<>();
    marks = new BlipClients(clients, i -> { });
    try (BlipProxy proxy = new BlipProxy(server.port())) {
      server.createUser(USER, "blip-pw");
      server.createUser(WRITER, "writer-pw");
      List<String> rids = new ArrayList<>();
      for (int r = 0; r < rooms; r++) {
        rids.add("blip-" + r);
        server.createRoom("blip-" + r, USER, WRITER);
      }
      String token = server.issueToken(USER);
      String writerToken = server.issueToken(WRITER);
      String url = "ws://127.0.0.1:" + proxy.port() + "/websocket";
      for (int i = 0; i < clients; i++) {
        all.add(marks.start(i, url, token, rids, resume, "blip-" + i));
        if ((i + 1) % START_BATCH == 0 || i + 1 == clients) {
          awaitTrue(() -> marks.allLive(all.size()), "clients connected");
          progress.printf(Locale.ROOT, "  %d of %d clients live%n", all.size(), clients);
        }
      }
      if (probes > 0) {
        probe = ProbeProcess.start(url, token, rids, resume, probes, LIVE_TIMEOUT);
        progress.printf(Locale.ROOT, "  %d probes live in a JVM of their own%n", probes);
      }
      long rtt = roundTripMicros(url);
      List<Wave> waves = new ArrayList<>();
      // Rocket.Chat's limit of one method 10 times in 10 s per connection: a writer posts one
      // message per wave in each of its rooms, and waves (the unmeasured one included) can come
      // 3 s apart, so 4 in 10 s: a writer per ROOMS_PER_WRITER rooms.
      List<DdpClient> writers = new ArrayList<>();
      try {
        for (int w = 0; w < (rooms + ROOMS_PER_WRITER - 1) / ROOMS_PER_WRITER; w++) {
          writers.add(writer(server.url(), writerToken));
        }
        // One wave first, not measured: the first resume or recovery of the run would otherwise
        // run the client's and the server's code for it cold (interpreted, classes loading), as
        // the initial connect ran the login path cold; the measured waves compare compiled code.
        progress.printf(Locale.ROOT, "  warm-up wave (not measured), gap %d ms:%n",
            WARM_UP_GAP.toMillis());
        wave(server, proxy, all, WARM_UP_GAP, resume, rtt, writers, rids);
        for (Duration gap : gaps) {
          waves.add(wave(server, proxy, all, gap, resume, rtt, writers, rids));
        }
      } finally {
        writers.forEach(DdpClient::close);
      }
      return waves;
    } finally {
      if (probe != null) {
        probe.close();
        probe = null;
      }
      all.forEach(ChatClient::close);
      server.kill();
      deleteQuietly(dir);
    }
  }

  private Wave wave(ChatServer server, BlipProxy proxy, List<ChatClient> all, Duration gap,
      boolean resume, long rtt, List<DdpClient> writers, List<String> rids) {
    awaitTrue(() -> marks.allLive(clients), "clients live before the blip");
    long seenBefore = marks.seenTotal();
    long resumesBefore = all.stream().mapToLong(c -> c.stats().resumes()).sum();
    SessionStats before = server.sessionStats();
    long cpuBefore = serverCpuNanos();
    java.util.Map<String, Long> cpuByRoleBefore = serverCpuByRole();
    marks.clearLive();
    if (probe != null) {
      probe.forgetEarlierLines();
    }
    int cut = proxy.cut();
    long gapEnd = System.nanoTime() + gap.toNanos();
    // While the network is down, one message in every room: each client must get them all.
    // Written once the server saw every socket go: a frame written into a socket the server
    // still thinks open is lost with it, and the client's count then no longer matches (no
    // resume, by design). Measured apart: see BENCHMARKS.md.
    awaitQuiet(() -> server.stats().currentConnections() == 0,
        Duration.ofNanos(Math.max(0, gapEnd - System.nanoTime())));
    List<java.util.concurrent.CompletableFuture<?>> sends = new ArrayList<>();
    for (int r = 0; r < rids.size(); r++) {
      sends.add(writers.get(r / ROOMS_PER_WRITER).call("sendMessage", java.util.Map.of("_id",
          "gap-" + (++written), "rid", rids.get(r), "msg", "written during the blip")));
    }
    sends.forEach(java.util.concurrent.CompletableFuture::join);
    LockSupport.parkNanos(Math.max(0, gapEnd - System.nanoTime()));
    long upNanos = System.nanoTime();
    long cpuAtReturn = serverCpuNanos();
    proxy.restore();
    awaitTrue(() -> marks.allLive(clients), "every client live again");
    Probes probed = probe == null ? Probes.NONE : probe.awaitEveryProbeLive();
    long expected = seenBefore + (long) clients * rids.size();
    awaitQuiet(() -> marks.seenTotal() >= expected, Duration.ofSeconds(30));
    long lostMessages = expected - marks.seenTotal();
    long lastLive = 0;
    long[] afterOpen = new long[clients];
    for (int i = 0; i < clients; i++) {
      lastLive = Math.max(lastLive, marks.live.get(i) - upNanos);
      afterOpen[i] = marks.afterOpenMicros(i);
    }
    long cpuNow = serverCpuNanos();
    long cpu = cpuNow - cpuBefore;
    long[] toConnected = new long[clients];
    long[] connectedToLive = new long[clients];
    for (int i = 0; i < clients; i++) {
      toConnected[i] = (marks.connected.get(i) - marks.opened.get(i)) / 1_000;
      connectedToLive[i] = (marks.live.get(i) - marks.connected.get(i)) / 1_000;
    }
    StringBuilder roles = new StringBuilder();
    serverCpuByRole().forEach((role, nanos) -> roles.append(String.format(Locale.ROOT, " %s %.0f",
        role, (nanos - cpuByRoleBefore.getOrDefault(role, 0L)) / 1e6)));
    progress.printf(Locale.ROOT, "  resume %s, gap %d ms: socket open -> DDP connected p50/p99 %d/%d"
        + " us, connected -> live p50/p99 %d/%d us; server CPU ms %.0f from the cut, %.0f after the"
        + " network's return; by thread:%s%n",
        resume ? "on" : "off", gap.toMillis(), BlipClients.quantile(toConnected, 0.5),
        BlipClients.quantile(toConnected, 0.99), BlipClients.quantile(connectedToLive, 0.5),
        BlipClients.quantile(connectedToLive, 0.99), cpu / 1e6, (cpuNow - cpuAtReturn) / 1e6,
        roles);
    SessionStats after = server.sessionStats();
    long resumed = all.stream().mapToLong(c -> c.stats().resumes()).sum() - resumesBefore;
    long lost = server.stats().subscriptionsByRoom().values().stream().mapToLong(v -> v).sum();
    if (probe != null) {
      progress.printf(Locale.ROOT, "  probes (%d, own JVM): open -> live p50/max %d/%d us, connect ->"
          + " connected p50/max %d/%d us, %d resumed; open -> connect p50/max %d/%d us, connected"
          + " -> live p50/max %d/%d us%n", probed.count(),
          BlipClients.quantile(probed.afterOpenMicros().clone(), 0.5),
          BlipClients.quantile(probed.afterOpenMicros().clone(), 1.0),
          BlipClients.quantile(probed.roundTripMicros().clone(), 0.5),
          BlipClients.quantile(probed.roundTripMicros().clone(), 1.0), probed.resumed(),
          BlipClients.quantile(probed.openToConnectMicros().clone(), 0.5),
          BlipClients.quantile(probed.openToConnectMicros().clone(), 1.0),
          BlipClients.quantile(probed.connectedToLiveMicros().clone(), 0.5),
          BlipClients.quantile(probed.connectedToLiveMicros().clone(), 1.0));
    }
    // The writer's own frames (one sendMessage per room) are not the clients'.
    return new Wave(resume, clients, rooms, gap.toMillis(), cut,
        after.framesIn() - before.framesIn() - rids.size(),
        after.methodCalls() - before.methodCalls() - rids.size(),
        after.subscriptionRequests() - before.subscriptionRequests(), resumed, cpu,
        cpuNow - cpuAtReturn,
        TimeUnit.NANOSECONDS.toMillis(lastLive), afterOpen, rtt,
        (long) (clients + probes) * rooms - lost, lostMessages,
        after.sessionsHeld() - before.sessionsHeld(),
        after.sessionsExpired() - before.sessionsExpired(), probed);
  }

  /** A DDP client straight to the server (no proxy), logged in: it writes during the gap. */
  private static DdpClient writer(String url, String token) {
    DdpClient d = DdpClient.builder().url(url).name("blip-writer").build();
    d.connect();
    d.call("login", java.util.Map.of("resume", token)).join();
    return d;
  }

  /** Waits for {@code done} up to {@code max}; returns quietly either way. */
  private static void awaitQuiet(BooleanSupplier done, Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  /** The median of 50 method round trips on an idle connection through the proxy, in µs. */
  private static long roundTripMicros(String url) {
    try (DdpClient ddp = DdpClient.builder().url(url).name("blip-rtt").build()) {
      ddp.connect();
      long[] t = new long[50];
      for (int i = -10; i < t.length; i++) { // 10 to warm up
        long start = System.nanoTime();
        ddp.call("blip/no-such-method").handle((v, e) -> null).get(10, TimeUnit.SECONDS);
        if (i >= 0) {
          t[i] = (System.nanoTime() - start) / 1_000;
        }
      }
      Arrays.sort(t);
      return t[t.length / 2];
    } catch (Exception e) {
      throw new IllegalStateException("round trip: " + e, e);
    }
  }

  /** CPU time of the server's threads so far by role: selector, worker, store, timer. */
  private java.util.Map<String, Long> serverCpuByRole() {
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    for (long id : threads.getAllThreadIds()) {
      ThreadInfo info = threads.getThreadInfo(id);
      if (info != null && info.getThreadName().startsWith("chat-server-")) {
        long t = threads.getThreadCpuTime(id);
        String role = info.getThreadName().replaceAll("^chat-server-\\d+-", "")
            .replaceAll("-\\d+$", "");
        if (t > 0) {
          out.merge(role, t, Long::sum);
        }
      }
    }
    return out;
  }

  /** CPU time of the server's own threads (selector, workers, store, timer) so far. */
  private long serverCpuNanos() {
    long sum = 0;
    for (long id : threads.getAllThreadIds()) {
      ThreadInfo info = threads.getThreadInfo(id);
      if (info != null && info.getThreadName().startsWith("chat-server-")) {
        long t = threads.getThreadCpuTime(id);
        if (t > 0) {
          sum += t;
        }
      }
    }
    return sum;
  }

  private static void awaitTrue(BooleanSupplier done, String what) {
    long deadline = System.nanoTime() + LIVE_TIMEOUT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not done within " + LIVE_TIMEOUT + ": " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  private static void deleteQuietly(Path dir) {
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temp directory
    }
  }
}
