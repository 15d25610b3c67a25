package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ServerConnectionListener;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.sim.HerdConfig;
import dev.ddpkit.reconnect.sim.HerdResult;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The reconnect wave on real sockets: N {@link ChatClient}s in this JVM, logged in with a resume
 * token and subscribed to one room's stream, against an embedded {@link ChatServer}; the server
 * is killed (TCP reset, no close frame) and a new one starts on the same port and data after the
 * downtime, admitting C connections per second from an empty token bucket (the shared {@link
 * dev.ddpkit.reconnect.admission.Admission}; 1013 beyond that, with or without the {@code
 * retry-after} hint of a reserved slot). With {@link HerdConfig#planned()} the drop is a planned
 * restart instead: {@link ChatServer#stopForRestart(Duration, int)} closes every connection with
 * 1012 and its own appointment (D plus its place in the queue at C/s), and the new server is
 * started so that it is ready at D (started the first server's start-up time before it).
 *
 * <p>The scenario is a {@link HerdConfig}: clients, capacity, downtime, policy, hints, seed (each
 * client's manager draws from its own stream split from it), bucket, and the horizon as the cap of
 * the wave. A client is back when it saw its login answered again and the server holds its room
 * subscription (the server is sampled every {@value #SAMPLE_MS} ms). Each client is configured as
 * the simulation's: the policy's backoff, the DDP close profile, stable after 10 s; and runs as a
 * {@code ChatClient} does by default: Java-WebSocket's two threads, the event loop on the pool
 * every client shares.
 *
 * <p>The first server admits everyone (no accept rate), so that the clients start at attempt 0
 * as in the simulation; clients are started in batches.
 */
public final class RealHerd {
  static final int SAMPLE_MS = 10;
  private static final String ROOM = "herd-room";
  private static final String USER = "herd";
  private static final int START_BATCH = 50;
  private static final Duration STABLE_AFTER = Duration.ofSeconds(10);
  private static final Duration SETUP_TIMEOUT = Duration.ofMinutes(3);

  private final HerdConfig config;
  private final PrintStream progress;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

  private RealHerd(HerdConfig config, PrintStream progress) {
    this.config = config;
    this.progress = progress;
  }

  /**
   * Runs one wave and returns its figures; progress lines go to {@code progress}.
   *
   * @throws IllegalStateException if the clients cannot all be connected before the drop
   */
  public static RealHerdResult run(HerdConfig config, PrintStream progress) {
    return new RealHerd(config, progress).execute();
  }

  private RealHerdResult execute() {
    Path dataDir;
    try {
      dataDir = Files.createTempDirectory("ddpkit-herd-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int n = config.clients();
    WaveRecorder rec = new WaveRecorder(n, config.horizon().toMillis() + 60_000);
    ServerConnectionListener serverEvents = new ServerConnectionListener() {
      @Override
      public void accepted(long epochMillis) {
        rec.accepted(epochMillis);
      }

      @Override
      public void rejected(long epochMillis, int code, long retryAfterMillis) {
        if (code == 1013) {
          rec.rejected(epochMillis);
        }
      }
    };
    ChatServer server = ChatServer.builder().dataDir(dataDir).build();
    long startNanos = System.nanoTime();
    server.start();
    long startupMs = (System.nanoTime() - startNanos) / 1_000_000;
    int port = server.port();
    List<ChatClient> clients = new ArrayList<>(n);
    List<ReconnectionManager> managers = new ArrayList<>(n);
    ChatServer[] current = {server};
    try {
      server.createUser(USER, "herd-pw");
      server.createRoom(ROOM, USER);
      String token = server.issueToken(USER);
      startClients(server.url(), token, rec, clients, managers);
      awaitStable(managers);

      threads.resetPeakThreadCount();
      long drops = ListenOverflows.read();
      long t0 = System.currentTimeMillis();
      rec.drop(t0);
      if (config.planned()) {
        server.stopForRestart(config.downtime(), config.capacity());
        current[0] = null;
        // Ready at D, as the appointments promised: started its start-up time before.
        sleepUntil(t0 + config.downtime().toMillis() - startupMs);
      } else {
        server.kill();
        current[0] = null;
        if (!config.warmUp()) {
          sleepUntil(t0 + config.downtime().toMillis());
        }
      }
      // Warming up, the new server listens at once and is ready at D: it books every dial meanwhile.
      long warmUpMs = config.warmUp()
          ? Math.max(0, t0 + config.downtime().toMillis() - startupMs - System.currentTimeMillis())
          : 0;
      ChatServer restarted =
          ChatServer.builder()
              .port(port)
              .dataDir(dataDir)
              .acceptRate(config.capacity())
              .acceptBurst(config.burst())
              .retryAfterHints(config.hints())
              .warmUp(Duration.ofMillis(warmUpMs))
              .connectionListener(serverEvents)
              .build();
      restarted.start();
      current[0] = restarted;
      // Listening: from here a dial is answered (warming up, with 1013 and a slot), not refused.
      rec.serverUp(System.currentTimeMillis());
      long upMs = System.currentTimeMillis() - t0;
      int peak = watch(restarted, rec, t0);
      long wall = System.currentTimeMillis() - t0;
      long dropsAfter = ListenOverflows.read();
      return result(rec, upMs, peak, wall,
          drops < 0 || dropsAfter < 0 ? -1 : dropsAfter - drops);
    } finally {
      closeAll(clients);
      if (current[0] != null) {
        current[0].kill();
      }
      deleteQuietly(dataDir);
    }
  }

  private void startClients(String url, String token, WaveRecorder rec, List<ChatClient> clients,
      List<ReconnectionManager> managers) {
    SplittableRandom master = new SplittableRandom(config.seed());
    AtomicInteger connected = new AtomicInteger();
    long deadline = System.nanoTime() + SETUP_TIMEOUT.toNanos();
    for (int i = 0; i < config.clients(); i++) {
      int client = i;
      // Each client's one source of randomness, seeded from the master in client order.
      Random random = new Random(master.nextLong());
      ReconnectPolicy policy =
          ReconnectPolicy.builder()
              .backoff(config.policy().backoff())
              .closePolicy(ClosePolicy.ddp())
              .stableAfter(STABLE_AFTER)
              .build();
      ChatListener listener = new ChatListener() {
        private boolean wasConnected;

        @Override
        public void onStatus(ChatStatus status) {
          if (status.state() == ChatStatus.State.CONNECTED) {
            if (!wasConnected) {
              wasConnected = true;
              connected.incrementAndGet();
            }
          }
          // Logged in again: catching up (SYNCING) comes first, unless nothing is behind.
          if (status.state() == ChatStatus.State.SYNCING
              || status.state() == ChatStatus.State.CONNECTED) {
            rec.loggedIn(client, System.currentTimeMillis());
          }
        }
      };
      ChatClient c =
          ChatClient.builder()
              .url(url)
              .token(token)
              .room(ROOM)
              .historyLimit(0)
              .reconnection(policy)
              .random(random)
              .listener(listener)
              .name("herd-" + i)
              .build();
      ReconnectionManager m = c.reconnectionManager();
      m.addListener(s -> {
        if (s.state() == ReconnectionManager.State.CONNECTING) {
          rec.dial(System.currentTimeMillis());
        }
        if (s.state() != ReconnectionManager.State.CONNECTED) {
          rec.lost(client, System.currentTimeMillis());
        }
      });
      clients.add(c);
      managers.add(m);
      c.start();
      if ((i + 1) % START_BATCH == 0 || i + 1 == config.clients()) {
        int started = i + 1;
        awaitUntil(() -> connected.get() >= started, deadline,
            () -> "only " + connected.get() + " of " + started + " clients connected");
        progress.printf("  %d of %d clients connected%n", started, config.clients());
      }
    }
  }

  /** The clients must all be at attempt 0 before the drop, as in the simulation. */
  private void awaitStable(List<ReconnectionManager> managers) {
    boolean retried = managers.stream().anyMatch(m -> m.status().attempt() > 0);
    if (retried) {
      progress.printf("  some clients retried during setup: waiting %d s for stable connections%n",
          STABLE_AFTER.plusSeconds(1).toSeconds());
      sleepUntil(System.currentTimeMillis() + STABLE_AFTER.plusSeconds(1).toMillis());
    }
  }

  /** Samples the server until everyone is back or the cap; returns the peak thread count. */
  private int watch(ChatServer server, WaveRecorder rec, long t0) {
    int n = config.clients();
    long end = t0 + config.horizon().toMillis();
    int peakThreads = threads.getThreadCount();
    while (System.currentTimeMillis() < end) {
      long now = System.currentTimeMillis();
      rec.subscriptions(now, server.stats().subscriptions(ROOM));
      peakThreads = Math.max(peakThreads, threads.getThreadCount());
      if (rec.backCount() >= n) {
        break;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SAMPLE_MS));
    }
    return Math.max(peakThreads, threads.getPeakThreadCount());
  }

  private RealHerdResult result(WaveRecorder rec, long upMs, int peakThreads, long wallMs,
      long synDrops) {
    int n = config.clients();
    int back = rec.backCount();
    HerdResult herd =
        new HerdResult(
            config,
            back,
            rec.backAt(rank(n, 50)),
            rec.backAt(rank(n, 99)),
            rec.backAt(n),
            rec.dialsTotal(),
            rec.refusedTotal(),
            rec.rejectedTotal(),
            rec.acceptedTotal(),
            rec.peakArrivalsPerSecond(),
            rec.peakRefusedPerSecond(),
            rec.buckets((int) config.bucket().toMillis()));
    return new RealHerdResult(herd, rec.peakAcceptsPerSecond(), rec.peakAcceptsPerWallSecond(),
        rec.loggedInCount(), rec.lostAt(rank(n, 50)).orElse(-1), rec.lostAt(n).orElse(-1), upMs,
        peakThreads, wallMs, synDrops);
  }

  /** The rank (1-based) of the client that brings the share back to {@code percent}, as the sim. */
  static int rank(int n, int percent) {
    return (int) Math.max(1, ((long) n * percent + 99) / 100);
  }

  private static void closeAll(List<ChatClient> clients) {
    // close() returns at once: close them all, then wait for each, so they shut down together.
    clients.forEach(ChatClient::close);
    try {
      for (ChatClient c : clients) {
        c.awaitTermination(Duration.ofSeconds(10));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitUntil(java.util.function.BooleanSupplier done, long deadlineNanos,
      java.util.function.Supplier<String> failure) {
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadlineNanos) {
        throw new IllegalStateException("setup timed out: " + failure.get());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SAMPLE_MS));
    }
  }

  private static void sleepUntil(long epochMs) {
    long left;
    while ((left = epochMs - System.currentTimeMillis()) > 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(left));
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temp dir left behind is harmless
    }
  }
}
