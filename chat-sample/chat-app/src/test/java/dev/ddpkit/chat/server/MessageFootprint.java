package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.RandomIds;
import dev.ddpkit.chat.RoomTimeline;
import dev.ddpkit.chat.demo.DeliveryLedger;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * What the long chaos run keeps per message on purpose, measured: the server's store (a stored
 * message in memory), the run's {@link DeliveryLedger} (one written, acknowledged message), and a
 * client's window of recent ids (one id in a full {@link RoomTimeline}). Each figure is the heap
 * after a full GC with {@code n} of them, less the heap before, over {@code n}; the hour's heap
 * series is read against them (RELIABILITY.md). A tool, not a test:
 *
 * <pre>{@code
 * java -cp chat-sample/chat-app/target/test-classes:chat-sample/target/ddpkit.jar \
 *     dev.ddpkit.chat.server.MessageFootprint 50000
 * }</pre>
 */
public final class MessageFootprint {
  private MessageFootprint() {}

  /** Prints the three figures for {@code args[0]} messages (default 50,000). */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    System.out.printf("per message, %d of each, heap after full GC:%n", n);
    System.out.printf("  server store (one stored message)      %6.0f bytes%n", store(n));
    System.out.printf("  delivery ledger (written, acknowledged) %6.0f bytes%n", ledger(n));
    System.out.printf("  client id window (one id remembered)   %6.0f bytes%n", window(n));
  }

  private static long heap() {
    ManagementFactory.getMemoryMXBean().gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Messages of the chaos run's shape (17-character ids, its text) in one room of the store. */
  static double store(int n) throws IOException {
    Path dir = Files.createTempDirectory("footprint-");
    ChatStore store = ChatStore.open(dir, "footprint-store", Clock.systemUTC(), batch -> { });
    try {
      ObjectNode user = Frames.object();
      user.put("_id", "chaos-user-0001");
      user.put("username", "chaos-user-0001");
      store.createUser("chaos-user-0001", user).join();
      store.createRoom("room-001", List.of("chaos-user-0001")).join();
      RandomIds ids = new RandomIds(new Random(1));
      long before = heap();
      List<CompletableFuture<?>> pending = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        pending.add(store.append(ids.next(), "room-001",
            "from chaos-user-0001 #" + i + " at 1234.5 s", user));
        if (pending.size() == 1_000) {
          CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
          pending.clear();
        }
      }
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
      return (heap() - before) / (double) n;
    } finally {
      store.close();
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The ledger of the hour: 100 rooms of 15 members; each message written and acknowledged. */
  static double ledger(int n) {
    Map<String, List<Integer>> members = new HashMap<>();
    for (int r = 0; r < 100; r++) {
      List<Integer> list = new ArrayList<>();
      for (int m = 0; m < 15; m++) {
        list.add(r * 10 + m);
      }
      members.put("room-" + r, list);
    }
    DeliveryLedger ledger = new DeliveryLedger(members);
    RandomIds ids = new RandomIds(new Random(2));
    long before = heap();
    for (int i = 0; i < n; i++) {
      String id = ids.next();
      ledger.written(id, "room-" + (i % 100));
      ledger.acknowledged(id);
    }
    double per = (heap() - before) / (double) n;
    if (ledger.writtenCount() != n) {
      throw new AssertionError("ledger lost entries");
    }
    return per;
  }

  /** One timeline that remembers every id shown, as a client's window before it is full. */
  static double window(int n) {
    RoomTimeline timeline = new RoomTimeline("room-001", n, 0);
    RandomIds ids = new RandomIds(new Random(3));
    Instant t0 = Instant.parse("2026-12-01T00:00:00Z");
    long before = heap();
    for (int i = 0; i < n; i++) {
      timeline.offerLive(new ChatMessage(ids.next(), "room-001", "u", "t", t0.plusMillis(i)));
    }
    double per = (heap() - before) / (double) n;
    if (timeline.lastSeen().isEmpty()) {
      throw new AssertionError("nothing shown");
    }
    return per;
  }
}
