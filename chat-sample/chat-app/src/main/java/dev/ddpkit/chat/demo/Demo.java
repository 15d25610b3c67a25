package dev.ddpkit.chat.demo;

import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ChatServerStats;
import dev.ddpkit.chat.server.ServerConnectionListener;
import dev.ddpkit.reconnect.Backoff;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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
 * The restart demo: an embedded server, many clients in a few rooms writing now and then, and,
 * while they keep writing, a planned restart (a deploy: every client told when to come back) and
 * a hard kill (a crash: no word to anyone), each followed by a new server on the same port and
 * data; then the accounting of what was written, acknowledged and delivered.
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
  private final List<RestartPhase> phases = new ArrayList<>();
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
    server = newServer(0, Duration.ZERO);
    long startupNanos = System.nanoTime();
    server.start();
    startupNanos = System.nanoTime() - startupNanos;
    int port = server.port();
    setUp();
    say("%6.1f s  server up at %s (data in %s)", elapsed(), server.url(), dataDir);

    for (int i = 0; i < o.clients; i++) {
      clients.add(new DemoClient(i, roomOf(i), server.url(), backoff, password(i), this));
    }
    clients.forEach(c -> c.client.start());
    await("every client logged in and joined", Duration.ofSeconds(40),
        () -> clients.stream().allMatch(DemoClient::ready));
    say("%6.1f s  %d clients logged in, %d room streams subscribed", elapsed(), o.clients,
        server.stats().subscriptionsByRoom().values().stream().mapToInt(Integer::intValue).sum());

    startWriting();
    sleep(o.beforeKillMs);
    for (int i = 0; i < o.restarts.size(); i++) {
      if (i > 0) {
        sleep(o.afterRestartMs);
      }
      phases.add(restart(o.restarts.get(i), port, startupNanos));
    }
    sleep(o.afterRestartMs);
    stopWriting();
    say("%6.1f s  writers stopped: %d messages written", elapsed(), ledger.writtenCount());
    boolean flushed = awaitQuietly("every outbox empty", Duration.ofSeconds(30),
        () -> clients.stream().allMatch(c -> c.client.outboxSize() == 0));
    boolean delivered = awaitQuietly("every delivery", Duration.ofSeconds(20),
        () -> ledger.observedDeliveries() >= ledger.expectedDeliveries());
    boolean converged = awaitQuietly("every view equal to the server's", Duration.ofSeconds(20),
        () -> viewsEqual() == o.clients);
    delivered &= converged;
    say("%6.1f s  done%s", elapsed(), flushed && delivered ? "" : " (timed out waiting)");
    return report();
  }

  /**
   * Takes the server away as {@code kind} says, starts the next one on the same port and data
   * after the downtime, and waits until every client is back. A planned restart promises the next
   * server at D, so it is started its start-up time (the first server's, at most D/2) before.
   */
  private RestartPhase restart(RestartPhase.Kind kind, int port, long startupNanos)
      throws TimeoutException {
    long stopAt = System.nanoTime();
    List<Long> promised = List.of();
    long upAt = stopAt + TimeUnit.MILLISECONDS.toNanos(o.downMs);
    if (kind == RestartPhase.Kind.PLANNED) {
      int connections = server.stats().authenticatedSessions();
      promised = RestartPhase.appointments(stopAt, Duration.ofMillis(o.downMs), connections,
          o.acceptRate);
      server.stopForRestart(Duration.ofMillis(o.downMs));
      // Up by D at the latest, as promised: started its start-up time early (at most D/2; an
      // early server only has its tokens ready before the first appointment).
      upAt -= Math.min(startupNanos, TimeUnit.MILLISECONDS.toNanos(o.downMs) / 2);
      say("%6.1f s  planned restart: the server closed its %d connections with 1012, each with its"
          + " own appointment (D + its place in the queue at %d/s); %d messages written so far",
          elapsed(), connections, o.acceptRate, ledger.writtenCount());
    } else {
      server.kill();
      say("%6.1f s  server killed hard (no close frames); %d messages written so far, clients keep"
          + " writing", elapsed(), ledger.writtenCount());
    }
    server = null;
    long readyAt;
    if (kind == RestartPhase.Kind.WARM) {
      // Listening at once, ready at D: warm for D less its own start-up time.
      Duration warm = Duration.ofNanos(Math.max(0, upAt - System.nanoTime() - startupNanos))
          .truncatedTo(ChronoUnit.MILLIS);
      server = newServer(port, warm);
      // The warm-up runs from inside start(): "ready" no later than this, so all-back is not
      // understated.
      readyAt = System.nanoTime() + warm.toNanos();
      server.start();
      say("%6.1f s  a new server listens on port %d at once and warms up for %.1f s: every dial"
          + " until then is turned away with a slot after it", elapsed(), port,
          warm.toMillis() / 1000.0);
    } else {
      sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(upAt - System.nanoTime())));
      server = newServer(port, Duration.ZERO);
      server.start();
      readyAt = System.nanoTime();
    }
    restartAtMillis.set(System.currentTimeMillis());
    restartAtNanos.set(System.nanoTime());
    say("%6.1f s  server restarted on port %d with the same data; %d messages waiting in outboxes",
        elapsed(), port, clients.stream().mapToInt(c -> c.client.outboxSize()).sum());
    await("every client back", Duration.ofSeconds(40),
        () -> clients.stream().allMatch(DemoClient::recovered));
    double recovered = secondsSince(readyAt);
    say("%6.1f s  all %d clients logged in again, %.1f s after the %s", elapsed(), o.clients,
        recovered, kind == RestartPhase.Kind.WARM ? "server was ready" : "restart");
    return new RestartPhase(kind, stopAt, readyAt, recovered, promised);
  }

  private ChatServer newServer(int port, Duration warmUp) {
    return ChatServer.builder()
        .port(port)
        .dataDir(dataDir)
        .acceptRate(o.acceptRate)
        .warmUp(warmUp)
        .drainPeriod(Duration.ofMillis(500))
        .connectionListener(
            new ServerConnectionListener() {
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

  /** When the current restart's server came up (nanoTime); Long.MAX_VALUE before the first. */
  long restartAtNanos() {
    return restartAtNanos.get();
  }

  /** The same moment as {@link #restartAtNanos()} in epoch milliseconds. */
  long restartAtMillis() {
    return restartAtMillis.get();
  }

  DeliveryLedger ledger() {
    return ledger;
  }

  /** The next message number, shared by every client. */
  int nextMessage() {
    return seq.incrementAndGet();
  }

  static String user(int i) {
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
        DemoClient c = clients.get(random.nextInt(clients.size()));
        if (random.nextDouble() < o.changeRatio) {
          c.change(random);
        } else {
          c.write();
        }
      }
    }, 0, tickMs, TimeUnit.MILLISECONDS);
  }

  private void stopWriting() throws InterruptedException {
    writer.shutdown();
    writer.awaitTermination(5, TimeUnit.SECONDS);
  }

  // ---- convergence ----

  private final java.util.concurrent.atomic.AtomicLong editCount =
      new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong deletionCount =
      new java.util.concurrent.atomic.AtomicLong();

  void countEdit() {
    editCount.incrementAndGet();
  }

  void countDeletion() {
    deletionCount.incrementAndGet();
  }

  /** A message as a view shows it: id, text, and whether it was edited. */
  private static String shown(String id, String text, boolean edited) {
    return id + "\u0000" + text + (edited ? "\u0000edited" : "");
  }

  /** The server's view of each room, as {@link #shown} lines. */
  private Map<String, List<String>> serverViews() {
    Map<String, List<String>> out = new HashMap<>();
    for (String rid : members.keySet()) {
      out.put(rid, server.storedMessages(rid).stream()
          .map(m -> shown(m.id(), m.text(), m.edited())).toList());
    }
    return out;
  }

  /** How many clients' views of their room equal the server's now (ids, texts, edited flags). */
  private int viewsEqual() {
    Map<String, List<String>> want = serverViews();
    int equal = 0;
    for (DemoClient c : clients) {
      if (want.get(c.rid).equals(view(c))) {
        equal++;
      }
    }
    return equal;
  }

  private static List<String> view(DemoClient c) {
    try {
      return c.client.view(c.rid).get(10, TimeUnit.SECONDS).stream()
          .map(m -> shown(m.id(), m.text(), m.edited())).toList();
    } catch (Exception e) {
      return List.of("unreadable: " + e);
    }
  }

  /** Ids a client still shows that the server deleted: resurrected (or never removed). */
  private long resurrected() {
    long n = 0;
    for (DemoClient c : clients) {
      java.util.Set<String> live = new java.util.HashSet<>();
      server.storedMessages(c.rid).forEach(m -> live.add(m.id()));
      n += view(c).stream().map(l -> l.substring(0, l.indexOf('\u0000')))
          .filter(id -> !live.contains(id)).count();
    }
    return n;
  }

  // ---- report ----

  private int report() {
    ChatServerStats stats = server.stats();
    DeliveryLedger.Report r = ledger.report();
    long killAt = phases.get(0).stopAtNanos();

    say("");
    say("status timeline of %s (seconds from the first restart, the %s):",
        clients.get(0).client.name(), phases.get(0).kind().title);
    for (long[] e : clients.get(0).timelineNanos()) {
      ChatStatus s = clients.get(0).statusAt((int) e[1]);
      say("  %+7.2f s  %s", (e[0] - killAt) / 1e9, s.text());
    }

    for (int i = 0; i < phases.size(); i++) {
      RestartPhase p = phases.get(i);
      long end = i + 1 < phases.size() ? phases.get(i + 1).stopAtNanos() : Long.MAX_VALUE;
      say("");
      p.wave(arrivals, appointments, end, o.bucketMs, o.acceptRate).forEach(this::say);
      p.limit(o.clients, o.acceptRate).forEach(this::say);
    }

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
    say("  threads: %d peak in this JVM (%d clients, each its two socket threads; their event loops"
        + " on the shared pool; plus the server)",
        ManagementFactory.getThreadMXBean().getPeakThreadCount(), o.clients);
    int equal = viewsEqual();
    long resurrected = resurrected();
    say("  edits asked for             %8d", editCount.get());
    say("  deletions asked for         %8d  (%d acknowledged)", deletionCount.get(),
        ledger.deletedCount());
    say("  deleted messages still shown %7d", resurrected);
    ledger.firstMissing().ifPresent(pair -> {
      String[] p = pair.split(" ");
      DemoClient c = clients.get(Integer.parseInt(p[0]));
      say("  first missing delivery: %s never shown %s (heard edited: %s)", c.client.name(), p[1],
          c.editedIds.contains(p[1]));
    });
    say("  views equal to the server's: %d / %d (ids, texts and edited flags of every message)",
        equal, o.clients);
    boolean ok = r.perfect() && loggedIn == o.clients && resubscribed == o.clients
        && heardAfter == o.clients && r.written() > 0 && equal == o.clients && resurrected == 0;
    say("");
    say(ok ? "RESULT: OK - nothing lost, nothing duplicated, every view equal to the server's,"
            + " everyone recovered (%.1f s in total)"
            : "RESULT: FAILED (%.1f s in total)", elapsed());
    return ok ? 0 : 1;
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

  private String roomOf(int index) {
    List<String> rids = new ArrayList<>(members.keySet());
    return rids.get(index % rids.size());
  }
}
