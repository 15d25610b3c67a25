package dev.ddpkit.chat.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.RateLimits;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Measures the two ways of {@code messages/get} to catch a room up after {@code changes} changes
 * (by default 1,000: 400 new messages, 400 edits of older ones, 200 deletions) against the
 * embedded server under Rocket.Chat's default limits ({@code messages/get} is "any one method 10
 * per 10 s per connection"): {@code lastUpdate} (one call, one answer) and the cursor pages
 * ({@code type: UPDATED} then {@code DELETED}, {@code next} until null) at page sizes 20 (the
 * default) and 100, paced to the limit. For each: calls, answer bytes (the results as JSON), and
 * the time until the room has every change. Run it alone ({@code flock /work/bench.lock}).
 *
 * <p>{@code java -cp chat-sample/target/ddpkit.jar dev.ddpkit.chat.bench.SyncModesBench
 * [--changes 1000]}
 */
public final class SyncModesBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int LIMIT_CALLS = 10;
  private static final long LIMIT_WINDOW_MS = 10_000 + 250; // the client's margin, as ChatLimits

  private SyncModesBench() {}

  /** Runs the benchmark and prints its table. */
  public static void main(String[] args) throws Exception {
    int changes = 1_000;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--changes")) {
        changes = Integer.parseInt(args[i + 1]);
      } else {
        throw new IllegalArgumentException("usage: SyncModesBench [--changes N]");
      }
    }
    System.exit(run(changes, System.out));
  }

  /** A measured catch-up. */
  record Run(String mode, int calls, long bytes, double seconds, int updated, int deleted) {}

  static int run(int changes, PrintStream out) throws Exception {
    Path dir = Files.createTempDirectory("sync-bench");
    int fresh = changes * 2 / 5;
    int edits = changes * 2 / 5;
    int deletions = changes - fresh - edits;
    long syncPoint = seed(dir, fresh, edits, deletions);
    out.printf("room with %d changes after the sync point: %d new, %d edits of older messages,"
        + " %d deletions; Rocket.Chat's default limits (messages/get 10 per 10 s)%n",
        changes, fresh, edits, deletions);
    ChatServer server = ChatServer.builder().dataDir(dir).rateLimits(RateLimits.rocketChatDefaults())
        .build();
    server.start();
    try {
      List<Run> runs = List.of(
          lastUpdate(server.url(), syncPoint),
          cursor(server.url(), syncPoint, 20),
          cursor(server.url(), syncPoint, 100));
      out.printf("%-22s %7s %12s %14s %9s %9s%n", "mode", "calls", "bytes", "converged (s)",
          "updated", "deleted");
      for (Run r : runs) {
        out.printf("%-22s %7d %12d %14.2f %9d %9d%n", r.mode(), r.calls(), r.bytes(),
            r.seconds(), r.updated(), r.deleted());
      }
      Run one = runs.get(0);
      for (Run r : runs.subList(1, runs.size())) {
        out.printf("%s vs lastUpdate: %.1fx the calls, %.2fx the bytes, %.1fx the time%n",
            r.mode(), (double) r.calls() / one.calls(), (double) r.bytes() / one.bytes(),
            r.seconds() / one.seconds());
      }
      boolean same = runs.stream().allMatch(r -> r.updated() == one.updated()
          && r.deleted() == one.deleted());
      out.println(same ? "every mode saw the same changes" : "MODES DISAGREE");
      return same ? 0 : 1;
    } finally {
      server.kill();
    }
  }

  /** Writes the room, with no limits; returns the sync point (a server time). */
  private static long seed(Path dir, int fresh, int edits, int deletions) throws Exception {
    ChatServer setup = ChatServer.builder().dataDir(dir).rateLimits(RateLimits.none()).build();
    setup.start();
    try (DdpClient c = login(setup.url())) {
      setup.seedDemo();
      c.call("login", List.of(Map.of("user", Map.of("username", "alice"),
          "password", Map.of("digest", sha256("alice-pw"), "algorithm", "sha-256"))),
          CallOptions.WAIT).get(30, TimeUnit.SECONDS);
      int older = edits + deletions;
      long last = 0;
      for (int i = 0; i < older; i++) {
        last = send(c, "old-" + i, "older message " + i);
      }
      long syncPoint = last;
      for (int i = 0; i < fresh; i++) {
        send(c, "new-" + i, "new message " + i);
      }
      for (int i = 0; i < edits; i++) {
        c.call("updateMessage", List.of(Map.of("_id", "old-" + i, "rid", "general",
            "msg", "older message " + i + ", edited"))).get(30, TimeUnit.SECONDS);
      }
      for (int i = edits; i < older; i++) {
        c.call("deleteMessage", List.of(Map.of("_id", "old-" + i))).get(30, TimeUnit.SECONDS);
      }
      return syncPoint;
    } finally {
      setup.stop();
    }
  }

  private static long send(DdpClient c, String id, String text) throws Exception {
    JsonNode r = c.call("sendMessage", List.of(Map.of("_id", id, "rid", "general", "msg", text)))
        .get(30, TimeUnit.SECONDS);
    return r.path("ts").path("$date").asLong();
  }

  private static Run lastUpdate(String url, long syncPoint) throws Exception {
    try (DdpClient c = loggedIn(url)) {
      long t0 = System.nanoTime();
      JsonNode r = c.call("messages/get", List.of("general",
          Map.of("lastUpdate", Instant.ofEpochMilli(syncPoint)))).get(60, TimeUnit.SECONDS);
      double s = (System.nanoTime() - t0) / 1e9;
      return new Run("lastUpdate", 1, JSON.writeValueAsBytes(r).length, s,
          r.path("updated").size(), r.path("deleted").size());
    }
  }

  private static Run cursor(String url, long syncPoint, int count) throws Exception {
    try (DdpClient c = loggedIn(url)) {
      ArrayDeque<Long> window = new ArrayDeque<>();
      int calls = 0;
      long bytes = 0;
      Map<String, Boolean> updated = new HashMap<>();
      Map<String, Boolean> deleted = new HashMap<>();
      long t0 = System.nanoTime();
      for (String type : List.of("UPDATED", "DELETED")) {
        String next = Long.toString(syncPoint);
        while (next != null) {
          pace(window);
          Map<String, Object> o = new LinkedHashMap<>();
          o.put("type", type);
          o.put("next", next);
          o.put("count", count);
          JsonNode r = c.call("messages/get", List.of("general", o)).get(60, TimeUnit.SECONDS);
          calls++;
          bytes += JSON.writeValueAsBytes(r).length;
          r.path("updated").forEach(m -> updated.put(m.path("_id").asText(), true));
          r.path("deleted").forEach(m -> deleted.put(m.path("_id").asText(), true));
          JsonNode n = r.path("cursor").path("next");
          next = n.isTextual() ? n.textValue() : null;
        }
      }
      double s = (System.nanoTime() - t0) / 1e9;
      return new Run("cursor, count " + count, calls, bytes, s, updated.size(), deleted.size());
    }
  }

  /** Waits until one more call fits in 10 per 10 s (plus the margin). */
  private static void pace(ArrayDeque<Long> window) throws InterruptedException {
    long now = System.currentTimeMillis();
    while (!window.isEmpty() && now - window.peekFirst() >= LIMIT_WINDOW_MS) {
      window.pollFirst();
    }
    if (window.size() >= LIMIT_CALLS) {
      long wait = window.peekFirst() + LIMIT_WINDOW_MS - now;
      TimeUnit.MILLISECONDS.sleep(Math.max(0, wait)); // a benchmark keeping to a rate limit
      window.pollFirst();
    }
    window.addLast(System.currentTimeMillis());
  }

  private static DdpClient login(String url) throws Exception {
    DdpClient c = DdpClient.builder().url(url).name("sync-bench").build();
    c.connect();
    return c;
  }

  private static DdpClient loggedIn(String url) throws Exception {
    DdpClient c = login(url);
    c.call("login", List.of(Map.of("user", Map.of("username", "alice"),
        "password", Map.of("digest", sha256("alice-pw"), "algorithm", "sha-256"))),
        CallOptions.WAIT).get(30, TimeUnit.SECONDS);
    return c;
  }

  private static String sha256(String s) throws IOException {
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-256")
          .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      StringBuilder b = new StringBuilder();
      for (byte x : d) {
        b.append(String.format("%02x", x));
      }
      return b.toString();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IOException(e);
    }
  }
}
