package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatLimits;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.OutboxFullException;
import dev.ddpkit.chat.server.testing.RawPeer;
import dev.ddpkit.chat.server.testing.WebSocketWire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The abuse run (issue 23, {@code scripts/abuse.sh}): {@code ddpkit.jar serve} in a child JVM
 * ({@code -Xmx512m}) under one attack per phase, with a healthy pair beside it (bob writes a
 * message a second to general, alice reads them, both from 127.0.0.1); each attack comes from a
 * loopback address of its own (127.0.0.N), as it would from another host. Per phase it prints
 * whether the server stayed up (its process alive, a fresh client served), the healthy pair's lost
 * messages and p99 latency (bob's send to alice's screen), the server's heap after a full GC
 * ({@code jcmd}), its log lines, and what the attack met. Last, the client side: a chat client in a
 * child JVM ({@code -Xmx512m}) against a server that streams a message that never ends.
 *
 * <p>Usage: {@code java -cp ddpkit.jar dev.ddpkit.chat.bench.AbuseCommand [--phase-s 10] [--only
 * TEXT]} ({@code --only}: the phases whose name contains TEXT); exit
 * status 0 if every phase passed (up, nothing lost, p99 under 2 s, heap after GC under 256 MiB).
 */
public final class AbuseCommand {
  private static final PrintStream out = System.out;
  private static final long HEAP_BOUND_MIB = 256;
  private static final long P99_BOUND_MILLIS = 2_000;

  /** One attack: runs until {@code stop} is set, then returns what it met, in a few words. */
  interface Attack {
    String run(AtomicBoolean stop) throws Exception;
  }

  private final long phaseMillis;
  private final String cp = System.getProperty("java.class.path");
  private Process server;
  private Path serverLog;
  private String url;
  private final Healthy healthy = new Healthy();
  private boolean allPassed = true;
  private int nextAddress = 10;

  /** Runs only the phases whose name contains it (null: all). */
  private final String only;

  private AbuseCommand(long phaseMillis, String only) {
    this.phaseMillis = phaseMillis;
    this.only = only;
  }

  /** Runs the abuse run; see the class comment. */
  public static void main(String[] args) throws Exception {
    long phaseSeconds = 10;
    String only = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--phase-s")) {
        phaseSeconds = Long.parseLong(args[i + 1]);
      } else if (args[i].equals("--only")) {
        only = args[i + 1];
      } else {
        System.err.println("usage: AbuseCommand [--phase-s N] [--only TEXT]");
        System.exit(2);
      }
    }
    AbuseCommand run = new AbuseCommand(TimeUnit.SECONDS.toMillis(phaseSeconds), only);
    int status;
    try {
      status = run.runAll();
    } finally {
      run.stopServer();
    }
    System.exit(status);
  }

  private int runAll() throws Exception {
    startServer();
    healthy.start(url);
    out.printf("== abuse run: ddpkit.jar serve (pid %d, -Xmx512m), healthy pair bob -> alice at 1"
        + " message/s from 127.0.0.1, %d s per phase%n", server.pid(), phaseMillis / 1000);
    out.printf("%-44s %-4s %5s %4s %7s %8s %4s  %s%n", "phase", "up", "sent", "lost", "p99 ms",
        "heap MiB", "log", "result");
    Attacks a = new Attacks(this);
    phase("baseline (no attack)", stop -> "nothing sent");
    phase("never-ending fragmented message, 4 sockets", a::neverEnding);
    phase("oversized frame (header says 100 MiB), 4 sockets", a::oversized);
    phase("malformed JSON", s -> a.oneFrameEach(s, "{\"msg\": nope".getBytes(), WebSocketWire.TEXT));
    phase("non-objects ([1,2,3], 42, \"x\", null)", a::nonObjects);
    phase("deep nesting (10,000 levels)", s -> a.oneFrameEach(s,
        ("[".repeat(10_000) + "]".repeat(10_000)).getBytes(), WebSocketWire.TEXT));
    phase("invalid UTF-8", s -> a.oneFrameEach(s, new byte[] {'"', (byte) 0xC3, 0x28, '"'},
        WebSocketWire.TEXT));
    phase("binary frames", s -> a.oneFrameEach(s, new byte[] {1, 2, 3}, WebSocketWire.BINARY));
    phase("unmasked frames", a::unmasked);
    phase("200 sockets idle before the upgrade", a::idleBeforeUpgrade);
    phase("10 non-reading clients that ping", a::nonReaders);
    phase("method flood, 4 sockets", s -> a.flood(s, Attacks.METHOD));
    phase("login flood, 4 sockets", s -> a.flood(s, Attacks.LOGIN));
    phase("subscription flood, 4 sockets", s -> a.flood(s, Attacks.SUB));
    phase("connection flood, 8 dialers", a::connectionFlood);
    phase("password guessing against alice, 1 address", a::guessing);
    phase("2,000 sockets (8 addresses x 250)", a::twoThousand);
    if (only == null || "client side".contains(only)) {
      clientSide();
    }
    healthy.stop();
    out.println("== all phases passed: " + allPassed);
    return allPassed ? 0 : 1;
  }

  /** A loopback address no earlier attack used: 127.0.0.10, .11 and so on. */
  InetAddress freshAddress() throws IOException {
    int n = nextAddress++;
    return InetAddress.getByAddress(new byte[] {127, 0, (byte) (n / 250), (byte) (1 + n % 250)});
  }

  String url() {
    return url;
  }

  private void phase(String name, Attack attack) throws Exception {
    if (only != null && !name.contains(only)) {
      return;
    }
    long logBefore = logLines();
    long firstSeq = healthy.nextSeq();
    AtomicBoolean stop = new AtomicBoolean();
    List<String> detail = new CopyOnWriteArrayList<>();
    Thread t = new Thread(() -> {
      try {
        detail.add(attack.run(stop));
      } catch (Exception e) {
        detail.add("attack failed: " + e);
      }
    }, "abuse-attack");
    t.setDaemon(true);
    t.start();
    Thread.sleep(phaseMillis); // the phase's length: what is measured is what happens meanwhile
    stop.set(true);
    t.join(30_000);
    long lastSeq = healthy.nextSeq();
    healthy.awaitReceived(firstSeq, lastSeq, 10_000);
    boolean up = server.isAlive() && freshClientServed();
    long lost = healthy.lost(firstSeq, lastSeq);
    long p99 = healthy.p99Millis(firstSeq, lastSeq);
    long heap = heapAfterGcMiB();
    boolean pass = up && lost == 0 && p99 < P99_BOUND_MILLIS && heap >= 0 && heap < HEAP_BOUND_MIB;
    allPassed &= pass;
    out.printf("%-44s %-4s %5d %4d %7d %8d %4d  %s%n", name, up ? "yes" : "NO",
        lastSeq - firstSeq, lost, p99, heap, logLines() - logBefore, pass ? "PASS" : "FAIL");
    out.println("    " + (detail.isEmpty() ? "(the attack did not end)" : detail.get(0))
        + healthy.takeReasons());
    out.flush();
  }

  private void clientSide() throws Exception {
    try (HostileServer hostile = new HostileServer(url)) {
      ProcessBuilder pb = new ProcessBuilder(javaBin(), "-Xmx512m", "-cp", cp,
          AbuseClientChild.class.getName(), hostile.url());
      pb.redirectErrorStream(true);
      Process child = pb.start();
      List<String> lines = new ArrayList<>();
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith("child:") || line.contains("OutOfMemoryError")) {
            lines.add(line);
          }
        }
      }
      boolean exited = child.waitFor(120, TimeUnit.SECONDS);
      int code = hostile.clientClose.getNow(0);
      long sentMiB = hostile.sentBeforeClose.get() >> 20;
      boolean pass = exited && child.exitValue() == 0 && code == 1009 && sentMiB < 32;
      allPassed &= pass;
      out.printf("%-44s client closed with %d after %d MiB streamed; child exit %s  %s%n",
          "client side: hostile server -> ChatClient", code, sentMiB,
          exited ? String.valueOf(child.exitValue()) : "none", pass ? "PASS" : "FAIL");
      for (String l : lines) {
        out.println("    " + l);
      }
    }
  }

  // ------------------------------------------------------------------ the server

  private void startServer() throws Exception {
    Path dir = Files.createTempDirectory("ddpkit-abuse-");
    serverLog = dir.resolve("server.log");
    ProcessBuilder pb = new ProcessBuilder(javaBin(), "-Xmx512m", "-XX:+UseG1GC",
        "-Xlog:gc:file=" + dir.resolve("gc.log"), "-cp", cp,
        "dev.ddpkit.chat.cli.Main", "serve", "--data", dir.resolve("data").toString(),
        "--port", "0", "--seed-demo");
    pb.redirectError(serverLog.toFile());
    server = pb.start();
    BufferedReader r = new BufferedReader(
        new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = r.readLine()) != null) {
      int at = line.indexOf("ws://");
      if (line.startsWith("chat server listening on ") && at >= 0) {
        url = line.substring(at).trim();
        break;
      }
    }
    if (url == null) {
      throw new IllegalStateException("serve did not start; see " + serverLog);
    }
    Thread drain = new Thread(() -> {
      try {
        while (r.readLine() != null) {
          // serve's stdout, read so that it never blocks
        }
      } catch (IOException e) {
        // ended
      }
    }, "abuse-server-stdout");
    drain.setDaemon(true);
    drain.start();
  }

  private void stopServer() {
    if (server != null) {
      server.destroy();
      try {
        server.waitFor(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      server.destroyForcibly();
    }
  }

  private boolean freshClientServed() {
    try (RawPeer p = Attacks.peer(url, InetAddress.getLoopbackAddress()).ddp()) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private long logLines() throws IOException {
    try (var lines = Files.lines(serverLog, StandardCharsets.UTF_8)) {
      return lines.count();
    } catch (java.io.UncheckedIOException e) {
      return -1;
    }
  }

  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  /** The server's heap after a full GC, from {@code jcmd}; -1 if it could not be read. */
  private long heapAfterGcMiB() throws Exception {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    String pid = String.valueOf(server.pid());
    run(jcmd, pid, "GC.run");
    Matcher m = USED.matcher(run(jcmd, pid, "GC.heap_info"));
    return m.find() ? Long.parseLong(m.group(1)) >> 10 : -1;
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return text;
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  // ------------------------------------------------------------------ the healthy pair

  /**
   * Bob writes a message a second to general; alice reads them; latency is send to screen. One,
   * well under Rocket.Chat's 5 a second per user: at four, and even at two on a loaded box, a
   * server stall of a few seconds makes the sends arrive bunched past the limit, and the refused
   * ones then queue behind the new ones, so the pair measured its own backlog.
   */
  private static final class Healthy implements ChatListener {
    private final Map<Long, Long> sentAt = new ConcurrentHashMap<>();
    private final Map<Long, Long> latencyNanos = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private ChatClient bob;
    private ChatClient alice;
    private Thread writer;

    void start(String url) throws Exception {
      alice = ChatClient.builder().url(url).username("alice").password("alice-pw")
          .room("general").listener(this).name("healthy-alice").build();
      // The client's own pacing with a margin of a second: the server counts sendMessage per
      // second at arrival, and sends that a stalled server reads at once arrive bunched.
      bob = ChatClient.builder().url(url).username("bob").password("bob-pw").room("general")
          .limits(ChatLimits.rocketChatDefaults().withMargin(Duration.ofSeconds(1)))
          .listener(new ChatListener() {
            @Override
            public void onStatus(ChatStatus status) {
              noteStatus("bob", status);
            }
          }).name("healthy-bob").build();
      alice.start();
      bob.start();
      alice.loggedIn().get(30, TimeUnit.SECONDS);
      bob.loggedIn().get(30, TimeUnit.SECONDS);
      while (alice.status().state() != ChatStatus.State.CONNECTED) {
        Thread.sleep(50); // polling a status the client does not signal otherwise
      }
      writer = new Thread(this::write, "healthy-writer");
      writer.setDaemon(true);
      writer.start();
    }

    private void write() {
      while (!stop.get()) {
        long n = seq.getAndIncrement();
        sentAt.put(n, System.nanoTime());
        try {
          bob.sendMessage("general", "abuse " + n);
        } catch (OutboxFullException e) {
          // refused by a full outbox: never sent, so counted as lost
        }
        try {
          Thread.sleep(1000); // the pair's tempo, not a synchronisation
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** Reasons the pair was not connected, since the last {@link #takeReasons}. */
    private final List<String> reasons = new CopyOnWriteArrayList<>();

    private void noteStatus(String who, ChatStatus status) {
      if (!status.reason().isEmpty()) {
        reasons.add(who + ": " + status.reason());
      }
    }

    @Override
    public void onStatus(ChatStatus status) {
      noteStatus("alice", status);
    }

    /** The distinct reasons noted since the last call, and bob's outbox if it is behind. */
    String takeReasons() {
      List<String> r = new ArrayList<>(new java.util.LinkedHashSet<>(reasons));
      reasons.clear();
      String behind = bob.outboxSize() > 2 ? "; bob's outbox: " + bob.outboxSize()
          + " waiting, " + bob.stats() : "";
      return (r.isEmpty() ? "" : "; the healthy pair saw: " + String.join(", ", r)) + behind;
    }

    @Override
    public void onMessage(ChatMessage m) {
      if (m.user().equals("bob") && m.text().startsWith("abuse ")) {
        long n = Long.parseLong(m.text().substring(6));
        Long sent = sentAt.get(n);
        if (sent != null) {
          latencyNanos.putIfAbsent(n, System.nanoTime() - sent);
        }
      }
    }

    long nextSeq() {
      return seq.get();
    }

    void awaitReceived(long from, long to, long timeoutMillis) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
      while (lost(from, to) > 0 && System.nanoTime() < deadline) {
        Thread.sleep(50); // waiting for the stragglers of a phase, bounded
      }
    }

    long lost(long from, long to) {
      long lost = 0;
      for (long n = from; n < to; n++) {
        lost += latencyNanos.containsKey(n) ? 0 : 1;
      }
      return lost;
    }

    long p99Millis(long from, long to) {
      List<Long> l = new ArrayList<>();
      for (long n = from; n < to; n++) {
        Long v = latencyNanos.get(n);
        if (v != null) {
          l.add(v);
        }
      }
      if (l.isEmpty()) {
        return -1;
      }
      l.sort(null);
      int at = (int) Math.ceil(0.99 * l.size()) - 1;
      return TimeUnit.NANOSECONDS.toMillis(l.get(Math.max(0, at)));
    }

    void stop() {
      stop.set(true);
      bob.close();
      alice.close();
    }
  }

  /** A histogram of close codes, printed as {@code 1002 x41}. */
  static final class Codes {
    /** Not a close: the attacker was still sending when its phase ended. */
    static final int STOPPED = -1;
    private final Map<Integer, AtomicLong> counts = new TreeMap<>();

    synchronized void add(int code) {
      counts.computeIfAbsent(code, c -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public synchronized String toString() {
      StringBuilder sb = new StringBuilder();
      counts.forEach((c, n) -> sb.append(sb.length() == 0 ? "" : ", ")
          .append(c == STOPPED ? "still sending at the phase's end" : c == 0 ? "no close in 15 s"
              : c == 1006 ? "reset" : String.valueOf(c)).append(" x")
          .append(n));
      return sb.length() == 0 ? "none" : sb.toString();
    }
  }
}
