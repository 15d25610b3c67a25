package dev.ddpkit.chat.demo;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.OutboxFullException;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ChatServerStats;
import dev.ddpkit.chat.server.ConnectionListener;
import dev.ddpkit.reconnect.Backoff;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The restart demo: an embedded server, many clients in a few rooms writing now and then, a hard
 * kill of the server while they keep writing, a restart on the same port and data, and the
 * accounting of what was written, acknowledged and delivered.
 */
final class Demo {
  private final DemoCommand.Options o;
  private final PrintStream out;
  private final long t0 = System.nanoTime();
  private final Random random;
  private final List<DemoClient> clients = new ArrayList<>();
  private final Map<String, List<Integer>> members = new LinkedHashMap<>();
  private final ConcurrentLinkedQueue<long[]> arrivals = new ConcurrentLinkedQueue<>();
  /** When each rejected client was told to come back (nanoTime). */
  private final ConcurrentLinkedQueue<Long> appointments = new ConcurrentLinkedQueue<>();
  private volatile double allBackAfterRestartSeconds = Double.NaN;
  private final AtomicLong killAtNanos = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong restartAtNanos = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong restartAtMillis = new AtomicLong(Long.MAX_VALUE);
  private final AtomicInteger seq = new AtomicInteger();
  private DeliveryLedger ledger;
  private Path dataDir;
  private ChatServer server;
  private ScheduledExecutorService writer;

  Demo(DemoCommand.Options options, PrintStream out) {
    this.o = options;
    this.out = out;
    this.random = new Random(options.seed);
  }

  /** Runs the demo; returns its exit status. */
  int run() throws Exception {
    dataDir = Files.createTempDirectory("ddpkit-demo-");
    try {
      return runIn();
    } finally {
      shutdown();
      deleteTree(dataDir);
    }
  }

  private int runIn() throws Exception {
    Backoff backoff = o.rfc
        ? Backoff.rfc()
        : Backoff.fullJitter(Duration.ofMillis(200), Duration.ofSeconds(5));
    say("ddpkit demo: %d clients in %d rooms, server accept rate %d/s, down for %.1f s",
        o.clients, o.rooms, o.acceptRate, o.downMs / 1000.0);
    say("clients reconnect with %s, stable after 2 s; server 1013s carry retry-after hints",
        backoff);
    server = newServer(0);
    server.start();
    int port = server.port();
    setUp();
    say("%6.1f s  server up at %s (data in %s)", elapsed(), server.url(), dataDir);

    for (int i = 0; i < o.clients; i++) {
      clients.add(new DemoClient(i, server.url(), backoff));
    }
    clients.forEach(c -> c.client.start());
    await("every client logged in and joined", Duration.ofSeconds(40),
        () -> clients.stream().allMatch(DemoClient::ready));
    say("%6.1f s  %d clients logged in, %d room streams subscribed", elapsed(), o.clients,
        server.stats().subscriptionsByRoom().values().stream().mapToInt(Integer::intValue).sum());

    startWriting();
    sleep(o.beforeKillMs);
    killAtNanos.set(System.nanoTime());
    server.kill();
    say("%6.1f s  server killed hard (no close frames); %d messages written so far, clients keep"
        + " writing", elapsed(), ledger.writtenCount());
    sleep(o.downMs);
    server = newServer(port);
    server.start();
    restartAtMillis.set(System.currentTimeMillis());
    restartAtNanos.set(System.nanoTime());
    say("%6.1f s  server restarted on port %d with the same data; %d messages waiting in outboxes",
        elapsed(), port, clients.stream().mapToInt(c -> c.client.outboxSize()).sum());
    await("every client back", Duration.ofSeconds(40),
        () -> clients.stream().allMatch(DemoClient::recovered));
    double recovered = secondsSince(restartAtNanos.get());
    allBackAfterRestartSeconds = recovered;
    say("%6.1f s  all %d clients logged in again, %.1f s after the restart",
        elapsed(), o.clients, recovered);
    sleep(o.afterRestartMs);
    stopWriting();
    say("%6.1f s  writers stopped: %d messages written", elapsed(), ledger.writtenCount());
    boolean flushed = awaitQuietly("every outbox empty", Duration.ofSeconds(30),
        () -> clients.stream().allMatch(c -> c.client.outboxSize() == 0));
    boolean delivered = awaitQuietly("every delivery", Duration.ofSeconds(20),
        () -> ledger.observedDeliveries() >= ledger.expectedDeliveries());
    say("%6.1f s  done%s", elapsed(), flushed && delivered ? "" : " (timed out waiting)");
    return report();
  }

  private ChatServer newServer(int port) {
    return ChatServer.builder()
        .port(port)
        .dataDir(dataDir)
        .acceptRate(o.acceptRate)
        .drainPeriod(Duration.ofMillis(500))
        .connectionListener(
            new ConnectionListener() {
              @Override
              public void accepted(long epochMillis) {
                arrivals.add(new long[] {System.nanoTime(), 1, 0});
              }

              @Override
              public void rejected(long epochMillis, int code, long retryAfterMillis) {
                long now = System.nanoTime();
                arrivals.add(new long[] {now, 0, 1});
                if (retryAfterMillis > 0) {
                  appointments.add(now + TimeUnit.MILLISECONDS.toNanos(retryAfterMillis));
                }
              }
            })
        .build();
  }

  private void setUp() {
    for (int r = 0; r < o.rooms; r++) {
      members.put("room-" + (r + 1), new ArrayList<>());
    }
    List<String> rids = new ArrayList<>(members.keySet());
    for (int i = 0; i < o.clients; i++) {
      server.createUser(user(i), password(i));
      members.get(rids.get(i % rids.size())).add(i);
    }
    members.forEach(
        (rid, list) -> server.createRoom(rid, list.stream().map(Demo::user).toArray(String[]::new)));
    ledger = new DeliveryLedger(members);
  }

  private static String user(int i) {
    return String.format("user%03d", i);
  }

  private static String password(int i) {
    return "pw-" + user(i);
  }

  // ---- writing ----

  private void startWriting() {
    writer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "demo-writer");
      t.setDaemon(true);
      return t;
    });
    long tickMs = 100;
    double perTick = o.ratePerSecond * tickMs / 1000.0;
    writer.scheduleAtFixedRate(() -> {
      int n = (int) perTick + (random.nextDouble() < perTick - (int) perTick ? 1 : 0);
      for (int k = 0; k < n; k++) {
        clients.get(random.nextInt(clients.size())).write();
      }
    }, 0, tickMs, TimeUnit.MILLISECONDS);
  }

  private void stopWriting() throws InterruptedException {
    writer.shutdown();
    writer.awaitTermination(5, TimeUnit.SECONDS);
  }

  // ---- report ----

  private int report() {
    ChatServerStats stats = server.stats();
    DeliveryLedger.Report r = ledger.report();
    long killAt = killAtNanos.get();

    say("");
    say("status timeline of %s (seconds from the kill):", clients.get(0).client.name());
    for (long[] e : clients.get(0).timelineNanos()) {
      ChatStatus s = clients.get(0).statusAt((int) e[1]);
      say("  %+7.2f s  %s", (e[0] - killAt) / 1e9, s.text());
    }

    say("");
    long restartAt = restartAtNanos.get();
    ArrivalHistogram h = new ArrivalHistogram(o.bucketMs);
    for (long[] a : arrivals) {
      if (a[0] >= restartAt) {
        h.add((a[0] - restartAt) / 1_000_000, a[1], a[2]);
      }
    }
    for (long due : appointments) {
      if (due >= restartAt) {
        h.appointment((due - restartAt) / 1_000_000);
      }
    }
    long accepted = 0;
    long rejected = 0;
    for (long v : h.accepted()) {
      accepted += v;
    }
    for (long v : h.rejected()) {
      rejected += v;
    }
    say("reconnect wave at the server, per %d ms from the restart (# accepted, x rejected 1013;"
        + " due: appointments, rejected clients told to come back then):", o.bucketMs);
    h.render(50).forEach(this::say);
    say("  total: %d accepted, %d turned away with 1013 (accept rate %d/s)", accepted, rejected,
        o.acceptRate);
    sayLimit();

    int loggedIn = (int) clients.stream().filter(DemoClient::recovered).count();
    int resubscribed = stats.subscriptionsByRoom().values().stream().mapToInt(Integer::intValue).sum();
    int heardAfter = (int) clients.stream().filter(DemoClient::heardAfterRestart).count();
    say("");
    say("accounting:");
    say("  messages written            %8d  (%d refused by a full outbox)", r.written(), r.refused());
    say("  acknowledged by the server  %8d", r.acknowledged());
    say("  stored by the server        %8d  (%d re-sends ignored as duplicates)",
        members.keySet().stream().mapToLong(server::messageCount).sum(), stats.duplicatesIgnored());
    say("  deliveries expected         %8d  (each message to each member of its room)",
        r.expected());
    say("  deliveries observed         %8d", r.observed());
    say("  exactly once                %8d", r.exactlyOnce());
    say("  duplicates                  %8d", r.duplicates());
    say("  missing                     %8d", r.missing());
    say("  unexpected                  %8d", r.unexpected());
    say("  clients logged in again     %8d / %d", loggedIn, o.clients);
    say("  room streams re-subscribed  %8d / %d (server count)", resubscribed, o.clients);
    say("  clients that got a message written after the restart %d / %d", heardAfter, o.clients);
    say("  threads: %d peak in this JVM (%d clients, each an event loop and its socket threads,"
        + " plus the server)", ManagementFactory.getThreadMXBean().getPeakThreadCount(), o.clients);
    boolean ok = r.perfect() && loggedIn == o.clients && resubscribed == o.clients
        && heardAfter == o.clients && r.written() > 0;
    say("");
    say(ok ? "RESULT: OK - nothing lost, nothing duplicated, everyone recovered (%.1f s in total)"
            : "RESULT: FAILED (%.1f s in total)", elapsed());
    return ok ? 0 : 1;
  }

  /**
   * All-back time against the least the server allows: N/C after the restart (its bucket starts
   * empty), D + N/C from the kill.
   */
  private void sayLimit() {
    double after = allBackAfterRestartSeconds;
    if (Double.isNaN(after) || o.acceptRate == 0) {
      return;
    }
    double down = (restartAtNanos.get() - killAtNanos.get()) / 1e9;
    double nc = (double) o.clients / o.acceptRate;
    say("  all back %.1f s after the restart: limit N/C = %d/%d/s = %.1f s (%.2fx);"
        + " %.1f s after the kill: limit D + N/C = %.1f + %.1f = %.1f s (%.2fx)",
        after, o.clients, o.acceptRate, nc, after / nc, down + after, down, nc, down + nc,
        (down + after) / (down + nc));
  }

  // ---- plumbing ----

  private void shutdown() {
    if (writer != null) {
      writer.shutdownNow();
    }
    clients.forEach(c -> c.client.close());
    if (server != null) {
      server.kill();
    }
  }

  private static void deleteTree(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary folder left behind is not worth failing the demo for.
    }
  }

  private void await(String what, Duration timeout, BooleanSupplier done) throws TimeoutException {
    if (!awaitQuietly(what, timeout, done)) {
      throw new TimeoutException(what + ": not reached in " + timeout.toSeconds() + " s");
    }
  }

  private boolean awaitQuietly(String what, Duration timeout, BooleanSupplier done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        say("  ! %s: not reached in %d s", what, timeout.toSeconds());
        return false;
      }
      sleep(20);
    }
    return true;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private double elapsed() {
    return secondsSince(t0);
  }

  private static double secondsSince(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }

  private void say(String format, Object... args) {
    out.println(args.length == 0 ? format : String.format(format, args));
    out.flush();
  }

  /** One simulated user: a chat client and what it saw. */
  private final class DemoClient implements ChatListener {
    final int index;
    final String rid;
    final ChatClient client;
    private final List<ChatStatus> statuses = new ArrayList<>();
    private final List<long[]> timeline = new ArrayList<>(); // {nanos, index into statuses}
    private volatile boolean connected;
    private volatile long connectedAtNanos;
    private volatile boolean heardAfterRestart;

    DemoClient(int index, String url, Backoff backoff) {
      this.index = index;
      this.rid = roomOf(index);
      this.client =
          ChatClient.builder()
              .url(url)
              .username(user(index))
              .password(password(index))
              .room(rid)
              .backoff(backoff)
              .stableAfter(Duration.ofSeconds(2))
              .heartbeatInterval(Duration.ofSeconds(5))
              .heartbeatTimeout(Duration.ofSeconds(5))
              .outboxCapacity(200)
              .historyLimit(10)
              .listener(this)
              .name("demo-" + user(index))
              .build();
    }

    boolean ready() {
      return connected && client.joinedRooms().contains(rid);
    }

    boolean recovered() {
      return connected && connectedAtNanos > restartAtNanos.get();
    }

    boolean heardAfterRestart() {
      return heardAfterRestart;
    }

    void write() {
      String text = "message " + seq.incrementAndGet() + " from " + user(index);
      try {
        String id = client.sendMessage(rid, text);
        ledger.written(id, rid);
      } catch (OutboxFullException e) {
        ledger.refused();
      }
    }

    synchronized List<long[]> timelineNanos() {
      return new ArrayList<>(timeline);
    }

    synchronized ChatStatus statusAt(int i) {
      return statuses.get(i);
    }

    @Override
    public void onMessage(ChatMessage m) {
      ledger.delivered(index, m.id());
      if (m.ts().toEpochMilli() >= restartAtMillis.get()) {
        heardAfterRestart = true;
      }
    }

    @Override
    public void onSent(String rid, String id) {
      ledger.acknowledged(id);
    }

    @Override
    public synchronized void onStatus(ChatStatus status) {
      long now = System.nanoTime();
      statuses.add(status);
      timeline.add(new long[] {now, statuses.size() - 1});
      if (status.state() == ChatStatus.State.CONNECTED) {
        connectedAtNanos = now;
        connected = true;
      } else {
        connected = false;
      }
    }
  }

  private String roomOf(int index) {
    List<String> rids = new ArrayList<>(members.keySet());
    return rids.get(index % rids.size());
  }
}
