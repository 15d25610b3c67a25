package dev.ddpkit.chat.reliability;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.OutboxFullException;
import dev.ddpkit.chat.demo.DeliveryLedger;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ChatServerStats;
import dev.ddpkit.chat.server.RateLimits;
import dev.ddpkit.ddp.DdpStats;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.reconnect.Backoff;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The chaos scenario: chat clients, each behind a {@link FaultProxy} of its own, write into a few
 * rooms while the server is killed or drained and started again at random moments, and random
 * proxies go silent (half-open sockets the heartbeat must notice) and come back with a reset. At
 * the end everything is healed and the run waits until the clients have settled, then reports.
 *
 * <p>One proxy per client, so that a blackhole hits some clients and not others (a partial
 * network failure), while the server faults hit everybody. The random choices come from three
 * {@link Random}s seeded from {@link ChaosSettings#seed()}, one per sequence of actions (outages,
 * blackholes, writes); the interleaving with the clients' own timers is not reproducible, the plan
 * is. Waiting between chaos actions is the scenario's clock, done with a scheduler; the checks wait
 * with Awaitility.
 */
final class ChaosRun implements AutoCloseable {
  static final String THREAD_PREFIX = "chaos-";
  private static final Duration MEAN_DOWNTIME = Duration.ofMillis(1100);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(30);

  private final ChaosSettings settings;
  private final ChaosPace pace;
  private final PrintStream out;
  private final Path dataDir;
  private final Random outageRandom;
  /** Whether each outage, in order, is a drain (true) or a kill (false). */
  private final List<Boolean> outageIsDrain;
  private final Random blackholeRandom;
  private final Random writeRandom;
  private final Map<String, List<Integer>> members = new LinkedHashMap<>();
  private final List<List<String>> roomsOf = new ArrayList<>();
  private final DeliveryLedger ledger;
  private final List<FaultProxy> proxies = new ArrayList<>();
  private final List<ChatClient> clients = new ArrayList<>();
  private final List<Probe> probes = new ArrayList<>();
  /** Per client, its messages not deleted (yet), by room; the writer's thread only. */
  private final List<Map<String, List<String>>> mine = new ArrayList<>();
  private final AtomicLong edits = new AtomicLong();
  private final AtomicLong deletions = new AtomicLong();
  private final AtomicLong deletionsAcknowledged = new AtomicLong();
  /** Deletions asked for, per room: a room with more ids than a client's window may forget some. */
  private final Map<String, AtomicLong> deletionsIn = new java.util.concurrent.ConcurrentHashMap<>();
  private final double changeRatio =
      Double.parseDouble(System.getProperty("chaos.changeRatio", "0"));
  private volatile Convergence convergence;
  /** Per client, the number of messages written so far (the writer's thread only). */
  private final long[] writeSequence;
  private final Set<Integer> blackholed = ConcurrentHashMap.newKeySet();
  private final List<Throwable> chaosErrors = new CopyOnWriteArrayList<>();
  private final AtomicInteger kills = new AtomicInteger();
  private final AtomicInteger drains = new AtomicInteger();
  private final AtomicInteger blackholes = new AtomicInteger();
  private final AtomicInteger startRetries = new AtomicInteger();
  private final AtomicLong serverDuplicatesIgnored = new AtomicLong();
  private final AtomicLong serverRejected = new AtomicLong();
  private final AtomicLong serverHeartbeatTimeouts = new AtomicLong();
  private final CountDownLatch windowOver = new CountDownLatch(2); // duration elapsed, outages done
  private final ResourceSamples resources = new ResourceSamples(this::connectedClients);
  private final ScheduledExecutorService chaos;
  private final ScheduledExecutorService writer;
  /** The heap and thread samples, on a thread of their own: an outage may hold a driver thread. */
  private final ScheduledExecutorService sampler;
  /** When the chaos window is to end (nanoTime), once it has started. */
  private volatile long windowEnd;
  private final long t0 = System.nanoTime();
  private volatile boolean ending;
  private volatile ChatServer server; // null while down
  private int port;

  ChaosRun(Path dataDir, ChaosSettings settings, PrintStream out) {
    this.settings = settings;
    this.pace = settings.pace();
    this.out = out;
    this.dataDir = dataDir;
    this.outageRandom = new Random(settings.seed());
    this.outageIsDrain = outagePlan(settings.restarts(), outageRandom);
    this.blackholeRandom = new Random(settings.seed() + 1);
    this.writeRandom = new Random(settings.seed() + 2);
    for (int i = 0; i < settings.clients(); i++) {
      List<String> rooms = new ArrayList<>();
      int first = i % settings.rooms();
      rooms.add(room(first));
      if (i % 2 == 0) {
        // Every other client is in a second room, a different one for each group of clients.
        int offset = 1 + (i / settings.rooms()) % (settings.rooms() - 1);
        rooms.add(room((first + offset) % settings.rooms()));
      }
      roomsOf.add(List.copyOf(rooms));
      for (String rid : rooms) {
        members.computeIfAbsent(rid, r -> new ArrayList<>()).add(i);
      }
    }
    this.ledger = new DeliveryLedger(members);
    this.writeSequence = new long[settings.clients()];
    for (int i = 0; i < settings.clients(); i++) {
      mine.add(new HashMap<>());
    }
    this.chaos = Executors.newScheduledThreadPool(2, named(THREAD_PREFIX + "driver-"));
    this.writer = Executors.newSingleThreadScheduledExecutor(named(THREAD_PREFIX + "writer-"));
    this.sampler = Executors.newSingleThreadScheduledExecutor(named(THREAD_PREFIX + "sampler-"));
  }

  /** Runs the whole scenario and returns what was counted; does not assert. */
  ChaosReport execute() throws IOException, InterruptedException {
    say("chaos run: seed %d, %d clients in %d rooms, %s of writing, %d restarts, rate limits %s",
        settings.seed(), settings.clients(), settings.rooms(), settings.duration(),
        settings.restarts(), settings.rateLimits() ? "on" : "off");
    setUp();
    say("all %d clients logged in and subscribed through their proxies", clients.size());

    long windowStart = System.nanoTime();
    windowEnd = windowStart + settings.duration().toNanos();
    sampler.scheduleAtFixedRate(() -> sampleResources(windowStart), 0,
        settings.sampleEvery().toMillis(), MILLISECONDS);
    writer.scheduleAtFixedRate(this::writeTick, 0, ChaosPace.WRITE_TICK.toMillis(), MILLISECONDS);
    chaos.scheduleAtFixedRate(this::progress, PROGRESS_EVERY.toMillis(),
        PROGRESS_EVERY.toMillis(), MILLISECONDS);
    chaos.schedule(windowOver::countDown, settings.duration().toNanos(), NANOSECONDS);
    scheduleOutage(settings.restarts());
    scheduleBlackhole();
    if (!windowOver.await(settings.timeLimit().toMillis(), MILLISECONDS)) {
      chaosErrors.add(new AssertionError("the chaos window did not end in time"));
    }
    ending = true;
    double window = (System.nanoTime() - windowStart) / 1e9;

    stopChaos();
    say("writers and faults stopped after %.1f s; everything healed, waiting for the clients",
        window);
    long settleStart = System.nanoTime();
    boolean settled = awaitSettled();
    double settleSeconds = (System.nanoTime() - settleStart) / 1e9;
    sampleResources(windowStart);
    ChaosReport report = report(window, settled, settleSeconds);
    report.lines().forEach(out::println);
    if (changeRatio > 0) {
      // The last edits reach the views a moment after their acknowledgements: wait, bounded.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Convergence c = compareViews();
      while (c.viewsEqual() < c.viewsChecked() && System.nanoTime() < until) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        c = compareViews();
      }
      convergence = c;
      c.lines().forEach(out::println);
    }
    if (settings.duration().compareTo(Duration.ofMinutes(10)) >= 0) {
      // What the heap holds at the end, for a long run's heap series to be read against.
      ResourceSamples.histogram(25).forEach(out::println);
    }
    out.flush();
    return report;
  }

  // ---- set-up ----

  private void setUp() throws IOException {
    ChatServer first = newServer(0);
    first.start();
    port = first.port();
    server = first;
    for (int i = 0; i < settings.clients(); i++) {
      first.createUser(user(i), user(i) + "-pw");
    }
    members.forEach((rid, idx) ->
        first.createRoom(rid, idx.stream().map(ChaosRun::user).toArray(String[]::new)));
    for (int i = 0; i < settings.clients(); i++) {
      FaultProxy proxy = FaultProxy.forward(port);
      proxies.add(proxy);
      Probe probe = new Probe(i);
      probes.add(probe);
      clients.add(client(i, proxy.port(), probe));
    }
    clients.forEach(ChatClient::start);
    await("every client logged in and subscribed").atMost(pace.settle())
        .pollInterval(Duration.ofMillis(100))
        .until(this::settled);
  }

  private ChatServer newServer(int onPort) {
    return ChatServer.builder()
        .port(onPort)
        .dataDir(dataDir)
        .acceptRate(pace.acceptRate())
        .drainPeriod(Duration.ofMillis(500))
        // Short server-side heartbeat: sessions left behind by half-open sockets go away quickly.
        .heartbeatInterval(pace.serverHeartbeat())
        .heartbeatTimeout(pace.serverHeartbeat().multipliedBy(2))
        .rateLimits(settings.rateLimits() ? RateLimits.rocketChatDefaults() : RateLimits.none())
        .build();
  }

  private ChatClient client(int i, int proxyPort, Probe probe) {
    return ChatClient.builder()
        .url("ws://127.0.0.1:" + proxyPort + "/websocket")
        .username(user(i))
        .password(user(i) + "-pw")
        .rooms(roomsOf.get(i))
        .backoff(Backoff.fullJitter(Duration.ofMillis(100), pace.backoffMax()))
        .stableAfter(Duration.ofSeconds(1))
        .heartbeatInterval(pace.heartbeat())
        .heartbeatTimeout(pace.heartbeatTimeout())
        .connectTimeout(pace.connectTimeout())
        .resendDelay(Duration.ofMillis(200))
        .dedupWindow(pace.dedupWindow())
        .listener(probe)
        .name(THREAD_PREFIX + "c" + i)
        .build();
  }

  // ---- writing ----

  private void writeTick() {
    try {
      for (int i = 0; i < clients.size(); i++) {
        if (writeRandom.nextDouble() >= pace.writeChance()) {
          continue;
        }
        List<String> rooms = roomsOf.get(i);
        String rid = rooms.get(writeRandom.nextInt(rooms.size()));
        List<String> own = mine.get(i).computeIfAbsent(rid, r -> new ArrayList<>());
        try {
          if (changeRatio > 0 && !own.isEmpty() && writeRandom.nextDouble() < changeRatio) {
            change(i, rid, own);
            continue;
          }
          String text = OrderCheck.text(user(i), ++writeSequence[i], elapsed());
          String id = clients.get(i).sendMessage(rid, text);
          ledger.written(id, rid);
          own.add(id);
        } catch (OutboxFullException e) {
          ledger.refused();
        }
      }
    } catch (RuntimeException | Error e) {
      chaosErrors.add(e); // a periodic task that throws would stop silently
    }
  }

  /** Edits (two in three) or deletes one of the client's messages in the room. */
  private void change(int i, String rid, List<String> own) {
    int pick = writeRandom.nextInt(own.size());
    String id = own.get(pick);
    if (writeRandom.nextInt(3) < 2) {
      clients.get(i).edit(rid, id, "edited " + edits.incrementAndGet() + " by " + user(i));
    } else {
      own.remove(pick);
      deletions.incrementAndGet();
      deletionsIn.computeIfAbsent(rid, r -> new AtomicLong()).incrementAndGet();
      clients.get(i).delete(rid, id).thenRun(() -> {
        deletionsAcknowledged.incrementAndGet();
        ledger.deleted(id);
      });
    }
  }

  /** The views at the end, once settled (null before). */
  Convergence convergence() {
    return convergence;
  }

  /**
   * Compares every client's view of each of its rooms with the server's: each message it shows
   * must be on the server with the same text and edited flag, and, as far as its window reaches,
   * every message the server holds must be shown: all of them in a room that never had more ids
   * than the window (messages stored plus deleted), else the newest half of what the view holds.
   * (Not "a view smaller than the window": a client forgets its oldest ids once the window is
   * full, and a deletion afterwards makes the view smaller without bringing them back.)
   */
  private Convergence compareViews() {
    int checked = 0;
    int equal = 0;
    long resurrected = 0;
    String example = "";
    Map<String, Map<String, String>> serverViews = new HashMap<>();
    Map<String, List<String>> serverOrder = new HashMap<>();
    for (String rid : members.keySet()) {
      Map<String, String> byId = new LinkedHashMap<>();
      server.storedMessages(rid).forEach(m -> byId.put(m.id(), m.text() + (m.edited() ? " *" : "")));
      serverViews.put(rid, byId);
      serverOrder.put(rid, new ArrayList<>(byId.keySet()));
    }
    for (int i = 0; i < clients.size(); i++) {
      for (String rid : roomsOf.get(i)) {
        checked++;
        List<ChatMessage> view;
        try {
          view = clients.get(i).view(rid).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          example = example.isEmpty() ? clients.get(i).name() + " " + rid + ": " + e : example;
          continue;
        }
        Map<String, String> want = serverViews.get(rid);
        boolean same = true;
        java.util.Set<String> shown = new java.util.HashSet<>();
        for (ChatMessage m : view) {
          shown.add(m.id());
          String had = want.get(m.id());
          if (had == null) {
            resurrected++;
            same = false;
          } else if (!had.equals(m.text() + (m.edited() ? " *" : ""))) {
            same = false;
          }
          if (!same && example.isEmpty()) {
            example = clients.get(i).name() + " " + rid + ": shows " + m.id() + " '" + m.text()
                + "', server: " + (had == null ? "deleted" : "'" + had + "'");
          }
        }
        List<String> order = serverOrder.get(rid);
        long everHeld = order.size()
            + deletionsIn.getOrDefault(rid, new AtomicLong()).get();
        int reach = everHeld <= pace.dedupWindow() ? order.size()
            : Math.min(order.size(), Math.max(1, view.size() / 2));
        for (int k = order.size() - reach; k < order.size(); k++) {
          String id = order.get(k);
          if (!shown.contains(id)) {
            if (same && example.isEmpty()) {
              example = clients.get(i).name() + " " + rid + ": misses " + id + " (newest but "
                  + (order.size() - 1 - k) + " of " + order.size() + " on the server; the view "
                  + "holds " + view.size() + ", the window " + pace.dedupWindow() + ")";
            }
            same = false;
          }
        }
        if (same) {
          equal++;
        }
      }
    }
    return new Convergence(edits.get(), deletions.get(), deletionsAcknowledged.get(), checked,
        equal, resurrected, example);
  }

  // ---- server outages ----

  /**
   * Schedules the next of the {@code remaining} outages. The mean up time is what is left of the
   * window shared among them, so that the plan keeps to the window even when the machine stalls
   * (a kill, a drain or a start can take seconds on a loaded box): late outages come closer.
   */
  private void scheduleOutage(int remaining) {
    if (remaining == 0) {
      windowOver.countDown();
      return;
    }
    long left = Math.max(0, windowEnd - System.nanoTime()) / 1_000_000;
    long cycle = left / remaining;
    long meanUpMillis = Math.max(400, cycle - MEAN_DOWNTIME.toMillis() - 300);
    long upMillis = (long) (meanUpMillis * (0.4 + 1.2 * outageRandom.nextDouble()));
    later(Duration.ofMillis(upMillis), () -> outage(remaining));
  }

  private void outage(int remaining) {
    ChatServer s = server;
    absorb(s.stats());
    boolean graceful = outageIsDrain.get(settings.restarts() - remaining);
    long downMillis = 200 + outageRandom.nextInt(1801);
    if (graceful) {
      s.stop();
      drains.incrementAndGet();
    } else {
      s.kill();
      kills.incrementAndGet();
    }
    server = null;
    say("%s #%d, down for %d ms", graceful ? "drain" : "kill",
        kills.get() + drains.get(), downMillis);
    later(Duration.ofMillis(downMillis), () -> {
      bringUp();
      scheduleOutage(remaining - 1);
    });
  }

  /**
   * The kind of each of {@code restarts} outages, true for a drain: half drains (rounded down),
   * the rest kills, in a seeded random order. A coin per outage could pick the same kind every
   * time, and the run would pass without ever testing the other.
   */
  static List<Boolean> outagePlan(int restarts, Random random) {
    List<Boolean> plan = new ArrayList<>(restarts);
    for (int i = 0; i < restarts; i++) {
      plan.add(i < restarts / 2);
    }
    Collections.shuffle(plan, random);
    return List.copyOf(plan);
  }

  /** Starts a server on the same port and data; retries briefly if the port is not free yet. */
  private void bringUp() {
    for (int tries = 1; ; tries++) {
      ChatServer s = newServer(port);
      try {
        s.start();
        server = s;
        return;
      } catch (IllegalStateException e) {
        if (tries == 50) {
          throw e;
        }
        startRetries.incrementAndGet();
        LockSupport.parkNanos(MILLISECONDS.toNanos(100)); // the scenario's clock, not a sync
      }
    }
  }

  private void absorb(ChatServerStats stats) {
    serverDuplicatesIgnored.addAndGet(stats.duplicatesIgnored());
    serverRejected.addAndGet(stats.connectionsRejected());
    serverHeartbeatTimeouts.addAndGet(stats.heartbeatTimeouts());
  }

  // ---- blackholes ----

  private void scheduleBlackhole() {
    if (!ending) {
      later(Duration.ofMillis(200 + blackholeRandom.nextInt(800)), this::blackhole);
    }
  }

  /** Silences the proxies of one to three clients, each for 0.3 to 3 s. */
  private void blackhole() {
    if (ending) {
      return;
    }
    int n = 1 + blackholeRandom.nextInt(3);
    for (int k = 0; k < n; k++) {
      int i = blackholeRandom.nextInt(proxies.size());
      long millis = 300 + blackholeRandom.nextInt(pace.blackholeSpreadMillis() + 1);
      if (blackholed.add(i)) {
        proxies.get(i).mode(FaultProxy.Mode.BLACKHOLE);
        blackholes.incrementAndGet();
        later(Duration.ofMillis(millis), () -> heal(i));
      }
    }
    scheduleBlackhole();
  }

  /**
   * Ends a blackhole the way a real outage ends: the connections that went silent are dead (the
   * proxy dropped bytes, so their streams are cut), hence a reset, then new ones pass.
   */
  private void heal(int i) {
    FaultProxy proxy = proxies.get(i);
    proxy.reset();
    proxy.mode(FaultProxy.Mode.PASS);
    blackholed.remove(i);
  }

  // ---- scheduling ----

  private void later(Duration delay, Runnable task) {
    Runnable guarded = () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        chaosErrors.add(e);
      }
    };
    try {
      chaos.schedule(guarded, delay.toNanos(), NANOSECONDS);
    } catch (RejectedExecutionException e) {
      guarded.run(); // shutting down: a restart or a heal must still happen
    }
  }

  private void stopChaos() throws InterruptedException {
    sampler.shutdown();
    writer.shutdown();
    if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
      chaosErrors.add(new AssertionError("writer did not stop"));
    }
    // Delayed tasks still run after shutdown(): the pending heals (and nothing else by now), the
    // last of them up to the longest blackhole from now.
    chaos.shutdown();
    if (!chaos.awaitTermination(pace.blackholeSpreadMillis() + 30_000L, MILLISECONDS)) {
      chaosErrors.add(new AssertionError("chaos driver did not stop"));
    }
    proxies.forEach(p -> p.mode(FaultProxy.Mode.PASS));
    if (server == null) {
      bringUp();
    }
  }

  // ---- settling and accounting ----

  private boolean awaitSettled() {
    try {
      await("every outbox empty, every client connected and subscribed, every delivery seen")
          .atMost(pace.settle()).pollInterval(Duration.ofMillis(100)).until(this::settled);
      // Once more a second later: a late duplicate would show up in the counts.
      await("still settled a second later").pollDelay(Duration.ofSeconds(1))
          .atMost(pace.settle()).until(this::settled);
      return true;
    } catch (ConditionTimeoutException e) {
      say("did not settle: %s", e.getMessage());
      return false;
    }
  }

  private boolean settled() {
    for (int i = 0; i < clients.size(); i++) {
      ChatClient c = clients.get(i);
      if (c.outboxSize() != 0
          || c.status().state() != ChatStatus.State.CONNECTED
          || !c.joinedRooms().equals(Set.copyOf(roomsOf.get(i)))) {
        return false;
      }
    }
    ChatServer s = server;
    if (s == null) {
      return false;
    }
    ChatServerStats stats = s.stats();
    return stats.authenticatedSessions() == clients.size()
        && stats.subscriptionsByRoom().equals(expectedSubscriptions())
        && ledger.observedDeliveries() >= ledger.expectedDeliveries();
  }

  /** Each room's subscription count: its number of members. */
  Map<String, Integer> expectedSubscriptions() {
    Map<String, Integer> expected = new HashMap<>();
    members.forEach((rid, idx) -> expected.put(rid, idx.size()));
    return expected;
  }

  private ChaosReport report(double window, boolean settled, double settleSeconds) {
    ChatServer s = server;
    long stored = 0;
    for (String rid : members.keySet()) {
      stored += s.messageCount(rid);
    }
    ChatServerStats last = s.stats();
    long[] reconnects = new long[clients.size()];
    long heartbeatTimeouts = 0;
    long connectTimeouts = 0;
    long protocolErrors = 0;
    long resends = 0;
    long catchUps = 0;
    long resumes = 0;
    int notConnected = 0;
    int notSubscribed = 0;
    int maxAttempt = 0;
    long tsBackwards = 0;
    long senderBackwards = 0;
    List<String> errors = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      ChatClient c = clients.get(i);
      DdpStats d = c.connectionStats();
      ChatClient.Stats cs = c.stats();
      reconnects[i] = d.reconnects();
      heartbeatTimeouts += d.heartbeatTimeouts();
      connectTimeouts += d.connectTimeouts();
      protocolErrors += d.protocolErrors();
      resends += cs.resends();
      catchUps += cs.catchUps();
      resumes += cs.resumes();
      if (c.status().state() != ChatStatus.State.CONNECTED) {
        notConnected++;
      }
      if (!c.joinedRooms().equals(Set.copyOf(roomsOf.get(i)))) {
        notSubscribed++;
      }
      maxAttempt = Math.max(maxAttempt, probes.get(i).maxAttempt.get());
      tsBackwards += probes.get(i).order.tsBackwards();
      senderBackwards += probes.get(i).order.senderBackwards();
      for (String e : probes.get(i).errors) {
        errors.add(c.name() + ": " + e);
      }
    }
    List<String> failures = new ArrayList<>();
    chaosErrors.forEach(t -> failures.add(t.toString()));
    return new ChaosReport(
        settings,
        window,
        settled,
        settleSeconds,
        ledger.report(),
        tsBackwards,
        senderBackwards,
        stored,
        kills.get(),
        drains.get(),
        blackholes.get(),
        startRetries.get(),
        reconnects,
        maxAttempt,
        heartbeatTimeouts,
        connectTimeouts,
        protocolErrors,
        resends,
        catchUps,
        resumes,
        serverDuplicatesIgnored.get() + last.duplicatesIgnored(),
        serverRejected.get() + last.connectionsRejected(),
        serverHeartbeatTimeouts.get() + last.heartbeatTimeouts(),
        notConnected,
        notSubscribed,
        last.authenticatedSessions(),
        last.subscriptionsByRoom().equals(expectedSubscriptions()),
        List.copyOf(errors),
        List.copyOf(failures),
        resources.lines(settings.clients()));
  }

  /** One sample of the heap after a full GC and the thread count, printed as it is taken. */
  private void sampleResources(long windowStart) {
    try {
      ResourceSamples.Sample s = resources.sample((System.nanoTime() - windowStart) / 60e9);
      say("resources: minute %.1f, heap after full GC %.1f MiB, %d threads, %d clients connected",
          s.minutes(), s.heapBytes() / 1048576.0, s.threads(), s.connected());
    } catch (RuntimeException | Error e) {
      chaosErrors.add(e);
    }
  }

  /** How many clients are connected now (the resource samples' "all connected" filter). */
  private int connectedClients() {
    int n = 0;
    for (ChatClient c : clients) {
      n += c.status().state() == ChatStatus.State.CONNECTED ? 1 : 0;
    }
    return n;
  }

  private void progress() {
    DeliveryLedger.Report r = ledger.report();
    say("progress: %d written, %d acknowledged, %d/%d deliveries, %d kills, %d drains,"
        + " %d blackholes", r.written(), r.acknowledged(), r.observed(), r.expected(),
        kills.get(), drains.get(), blackholes.get());
  }

  // ---- tear-down ----

  /** Stops the writers and the faults, closes every client and proxy, kills the server. */
  @Override
  public void close() {
    ending = true;
    writer.shutdownNow();
    sampler.shutdownNow();
    chaos.shutdownNow();
    try {
      writer.awaitTermination(10, TimeUnit.SECONDS);
      chaos.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    clients.forEach(ChatClient::close);
    proxies.forEach(FaultProxy::close);
    ChatServer s = server;
    if (s != null) {
      s.kill();
    }
  }

  // ---- helpers ----

  private static String user(int i) {
    return "cu" + i;
  }

  private static String room(int r) {
    return "chaos-r" + r;
  }

  private String elapsed() {
    return String.format("%.1f s", (System.nanoTime() - t0) / 1e9);
  }

  private void say(String format, Object... args) {
    out.printf("[%8s] %s%n", elapsed(), String.format(format, args));
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** One client's listener: feeds the ledger and keeps what the report needs. */
  private final class Probe implements ChatListener {
    private final int index;
    private final AtomicInteger maxAttempt = new AtomicInteger();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final OrderCheck order = new OrderCheck();

    Probe(int index) {
      this.index = index;
    }

    @Override
    public void onMessage(ChatMessage message) {
      ledger.delivered(index, message.id());
      order.shown(message);
    }

    @Override
    public void onSent(String rid, String id) {
      ledger.acknowledged(id);
    }

    @Override
    public void onStatus(ChatStatus status) {
      maxAttempt.accumulateAndGet(status.attempt(), Math::max);
    }

    @Override
    public void onError(String message) {
      errors.add(message);
    }
  }
}
