package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatClientBuilder;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpClientBuilder;
import dev.ddpkit.ddp.Subscription;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * The client footprint: idle clients, connected, logged in (resume token) and subscribed to one
 * room's stream, added in steps in one JVM; after each step, full GCs until the used heap settles,
 * then threads, used heap and resident memory against the baseline taken before the first client.
 * The server runs in another JVM ({@link FootprintServer}), so nothing of it is counted.
 */
public final class Footprint {
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
  private static final int WARM_UP_CLIENTS = 5;

  /** How the measured clients run. */
  public enum Mode {
    /** {@code ChatClient} with its defaults: the event loop on the JVM's shared loop pool. */
    CHAT("chat"),
    /** {@code DdpClient} with its defaults: the event loop on the JVM's shared loop pool. */
    DDP("ddp"),
    /** {@code DdpClient}s whose event loops share a fixed pool of the caller's ({@code executor}). */
    DDP_SHARED("ddp-shared");

    private final String cliName;

    Mode(String cliName) {
      this.cliName = cliName;
    }

    /** The name on the command line. */
    public String cliName() {
      return cliName;
    }

    /** The mode called {@code name}; IllegalArgumentException naming the known ones if none. */
    public static Mode fromName(String name) {
      for (Mode m : values()) {
        if (m.cliName.equals(name)) {
          return m;
        }
      }
      throw new IllegalArgumentException("unknown mode '" + name + "' (known: chat, ddp,"
          + " ddp-shared)");
    }
  }

  private final String url;
  private final String room;
  private final String token;
  private final int sharedThreads;

  /**
   * A benchmark against one server.
   *
   * @param url the server's WebSocket URL
   * @param room the room to subscribe to
   * @param token a resume token of a member of the room
   * @param sharedThreads the size of the shared pool in {@link Mode#DDP_SHARED}, 1 or more
   */
  public Footprint(String url, String room, String token, int sharedThreads) {
    if (sharedThreads < 1) {
      throw new IllegalArgumentException("sharedThreads must be 1 or more: " + sharedThreads);
    }
    this.url = java.util.Objects.requireNonNull(url, "url");
    this.room = java.util.Objects.requireNonNull(room, "room");
    this.token = java.util.Objects.requireNonNull(token, "token");
    this.sharedThreads = sharedThreads;
  }

  /**
   * Measures one mode at each cumulative step (ascending client counts); every client is closed
   * before this returns.
   */
  public List<FootprintRow> measure(Mode mode, List<Integer> steps) {
    AtomicInteger poolThreads = new AtomicInteger();
    ExecutorService pool =
        mode == Mode.DDP_SHARED
            ? Executors.newFixedThreadPool(sharedThreads, r -> {
              Thread t = new Thread(r, "footprint-loop-" + poolThreads.incrementAndGet());
              t.setDaemon(true);
              return t;
            })
            : null;
    List<AutoCloseable> clients = new ArrayList<>();
    List<FootprintRow> rows = new ArrayList<>();
    try {
      // Warm up: classes loaded, shared schedulers started, pool threads made; then closed.
      List<AutoCloseable> warm = new ArrayList<>();
      addClients(mode, pool, warm, WARM_UP_CLIENTS);
      closeAll(warm);
      if (pool != null) {
        prestart(pool);
      }
      Snapshot base = Snapshot.take();
      for (int target : steps) {
        addClients(mode, pool, clients, target - clients.size());
        Snapshot s = Snapshot.take();
        rows.add(new FootprintRow(mode, clients.size(), s.threads - base.threads,
            s.heap - base.heap, base.rss < 0 || s.rss < 0 ? -1 : s.rss - base.rss));
      }
      return rows;
    } finally {
      closeAll(clients);
      if (pool != null) {
        pool.shutdownNow();
      }
    }
  }

  private static void prestart(ExecutorService pool) {
    // Make every pool thread exist before the baseline, so that they are not charged to clients.
    for (int i = 0; i < 64; i++) {
      pool.execute(() -> LockSupport.parkNanos(1_000_000));
    }
  }

  private void addClients(Mode mode, ExecutorService pool, List<AutoCloseable> into, int count) {
    List<CompletableFuture<?>> ready = new ArrayList<>();
    int first = into.size();
    IntConsumer add = i -> {
      if (mode == Mode.CHAT) {
        ChatClient c = ChatClient.builder().url(url).token(token).room(room)
            .historyLimit(0).name("footprint-" + i).build();
        into.add(c);
        c.start();
        ready.add(c.loggedIn());
      } else {
        DdpClientBuilder b = DdpClient.builder().url(url).name("footprint-" + i);
        if (pool != null) {
          b.executor(pool);
        }
        DdpClient c = b.build();
        into.add(c);
        c.connect();
        CompletableFuture<?> login =
            c.call("login", List.of(Map.of("resume", token)), CallOptions.WAIT);
        Subscription sub = c.subscribe(ChatClient.STREAM, room,
            Map.of("useCollection", false, "args", List.of()));
        ready.add(CompletableFuture.allOf(login, sub.ready()));
      }
    };
    for (int i = first; i < first + count; i++) {
      add.accept(i);
    }
    try {
      CompletableFuture.allOf(ready.toArray(new CompletableFuture<?>[0]))
          .get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (mode == Mode.CHAT) {
        awaitJoined(into.subList(first, into.size()));
      }
    } catch (Exception e) {
      throw new IllegalStateException(count + " " + mode.cliName() + " clients did not all log in"
          + " and subscribe within " + READY_TIMEOUT.toMinutes() + " min: " + e, e);
    }
  }

  private void awaitJoined(List<AutoCloseable> chats) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    for (AutoCloseable c : chats) {
      while (!((ChatClient) c).joinedRooms().contains(room)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(c + " did not join " + room);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
    }
  }

  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private static void closeAll(List<AutoCloseable> clients) {
    ExecutorService closer = Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r, "footprint-close");
      t.setDaemon(true);
      return t;
    });
    for (AutoCloseable c : clients) {
      closer.execute(() -> {
        try {
          c.close();
          // close() returns at once: wait for the threads, so the next baseline has none of them.
          if (c instanceof DdpClient d) {
            d.awaitTermination(CLOSE_WAIT);
          } else if (c instanceof ChatClient chat) {
            chat.awaitTermination(CLOSE_WAIT);
          }
        } catch (Exception e) {
          // closing is best effort here
        }
      });
    }
    closer.shutdown();
    try {
      closer.awaitTermination(2, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    clients.clear();
  }

  /** Threads, used heap after full GCs, and resident memory, now. */
  private record Snapshot(int threads, long heap, long rss) {
    static Snapshot take() {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500)); // let in-flight frames settle
      long heap = settledHeap();
      int threads = ManagementFactory.getThreadMXBean().getThreadCount();
      return new Snapshot(threads, heap, readRss());
    }

    /** Full GCs until two readings agree within 1 % (at most 6), then their minimum. */
    private static long settledHeap() {
      long previous = Long.MAX_VALUE;
      long best = Long.MAX_VALUE;
      for (int i = 0; i < 6; i++) {
        System.gc();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        best = Math.min(best, used);
        if (Math.abs(used - previous) <= previous / 100) {
          break;
        }
        previous = used;
      }
      return best;
    }

    private static long readRss() {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
          if (line.startsWith("VmRSS:")) {
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
          }
        }
      } catch (IOException | RuntimeException e) {
        return -1;
      }
      return -1;
    }
  }
}
