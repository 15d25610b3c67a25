package dev.ddpkit.chat.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.bench.AbuseCommand.Codes;
import dev.ddpkit.chat.server.testing.RawPeer;
import dev.ddpkit.chat.server.testing.WebSocketWire;
import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The attacks of the {@link AbuseCommand}, each on raw sockets from loopback addresses of its own;
 * each runs until told to stop and says what it met (close codes, answers, sockets dropped).
 */
final class Attacks {
  static final int METHOD = 0;
  static final int LOGIN = 1;
  static final int SUB = 2;

  /** How long a peer waits for the server's next frame before it counts as silent. */
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(15);

  private final AbuseCommand run;
  /** The mask keys of the frames made once and written many times. */
  private final Random masks = new SecureRandom();

  Attacks(AbuseCommand run) {
    this.run = run;
  }

  /** A peer of the attacks for {@code url}, connecting from {@code from}. */
  static RawPeer.Builder peer(String url, InetAddress from) {
    return RawPeer.builder(url).from(from).timeout(READ_TIMEOUT);
  }

  private RawPeer ddp(InetAddress from) throws IOException {
    return peer(run.url(), from).ddp();
  }

  /** The server's close code; 1006 if the connection just ended, 0 if nothing closes in time. */
  private static int closeCode(RawPeer p) {
    try {
      return p.awaitCloseCode();
    } catch (SocketTimeoutException e) {
      return 0;
    }
  }

  /** The next {@code result} message, skipping the others. */
  private static JsonNode nextResult(RawPeer p) throws IOException {
    while (true) {
      JsonNode n = p.nextJson();
      if (n.path("msg").asText().equals("result")) {
        return n;
      }
    }
  }

  /** {@code n} threads running {@code body} until {@code stop}; returns once all have ended. */
  private static void parallel(int n, AtomicBoolean stop, Body body) throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int k = i;
      Thread t = new Thread(() -> {
        while (!stop.get()) {
          try {
            body.once(k);
          } catch (IOException e) {
            // the server closed or reset this socket: the next round makes another
          }
        }
      }, "abuse-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  /** One round of an attacker thread. */
  interface Body {
    void once(int thread) throws IOException;
  }

  String neverEnding(AtomicBoolean stop) throws Exception {
    InetAddress from = run.freshAddress();
    Codes codes = new Codes();
    AtomicLong maxSent = new AtomicLong();
    AtomicLong sockets = new AtomicLong();
    byte[] fragment = new byte[64 * 1024];
    java.util.Arrays.fill(fragment, (byte) 'x');
    byte[] first = WebSocketWire.encode(WebSocketWire.TEXT, false, true, fragment, masks);
    byte[] next = WebSocketWire.encode(WebSocketWire.CONTINUATION, false, true, fragment, masks);
    parallel(4, stop, k -> {
      try (RawPeer p = ddp(from)) {
        sockets.incrementAndGet();
        long sent = 0;
        long start = System.nanoTime();
        boolean closed = false;
        try {
          p.write(first);
          sent += fragment.length;
          while (!stop.get() && sent < (256L << 20)) {
            p.write(next);
            sent += fragment.length;
            pace(start, sent);
          }
          p.flush();
        } catch (IOException e) {
          closed = true; // the server closed while we were sending: what we sent is the measure
        }
        maxSent.accumulateAndGet(sent, Math::max);
        codes.add(closed || !stop.get() ? closeCode(p) : Codes.STOPPED);
      }
    });
    return sockets + " sockets at " + (BYTES_PER_SECOND >> 20) + " MiB/s each, each closed having"
        + " written at most " + (maxSent.get() >> 10)
        + " KiB into its socket (serve's limit: 1024 KiB; the rest sat in the kernel's buffers);"
        + " closes: " + codes;
  }

  String oversized(AtomicBoolean stop) throws Exception {
    InetAddress from = run.freshAddress();
    Codes codes = new Codes();
    byte[] chunk = new byte[64 * 1024];
    parallel(4, stop, k -> {
      try (RawPeer p = ddp(from)) {
        try {
          p.header(WebSocketWire.TEXT, true, true, 100L << 20);
          p.write(new byte[] {1, 2, 3, 4});
          long start = System.nanoTime();
          for (int i = 0; i < 16; i++) {
            p.write(chunk);
            pace(start, (i + 1L) * chunk.length);
          }
          p.flush();
        } catch (IOException e) {
          // closed from the header alone
        }
        codes.add(closeCode(p));
      }
    });
    return "4 sockets at " + (BYTES_PER_SECOND >> 20) + " MiB/s each; closes: " + codes;
  }

  /** Connections that each send one frame and are closed for it. */
  String oneFrameEach(AtomicBoolean stop, byte[] payload, int opcode) throws Exception {
    return eachConnection(stop, p -> p.frame(opcode, true, true, payload));
  }

  String nonObjects(AtomicBoolean stop) throws Exception {
    String[] frames = {"[1,2,3]", "42", "\"x\"", "null"};
    AtomicLong n = new AtomicLong();
    return eachConnection(stop, p -> p.frame(WebSocketWire.TEXT, true, true,
        frames[(int) (n.getAndIncrement() % frames.length)].getBytes(StandardCharsets.UTF_8)));
  }

  String unmasked(AtomicBoolean stop) throws Exception {
    byte[] ping = "{\"msg\":\"ping\"}".getBytes(StandardCharsets.UTF_8);
    return eachConnection(stop, p -> p.frame(WebSocketWire.TEXT, true, false, ping));
  }

  /** What one connection sends before it waits for the server's close. */
  interface Send {
    void on(RawPeer p) throws IOException;
  }

  private String eachConnection(AtomicBoolean stop, Send send) throws Exception {
    InetAddress from = run.freshAddress();
    Codes codes = new Codes();
    parallel(2, stop, k -> {
      try (RawPeer p = ddp(from)) {
        send.on(p);
        p.flush();
        codes.add(closeCode(p));
      }
    });
    return "closes: " + codes;
  }

  String idleBeforeUpgrade(AtomicBoolean stop) throws Exception {
    InetAddress from = run.freshAddress();
    List<RawPeer> peers = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      RawPeer p = peer(run.url(), from).tcp();
      if (i % 2 == 0) {
        p.write(Arrays.copyOf(WebSocketWire.upgradeRequest(run.url(), masks), 40));
        p.flush();
      }
      peers.add(p);
    }
    long opened = System.nanoTime();
    int closed = closedWhenStopped(stop, peers, 100);
    return "200 sockets (100 silent, 100 with half an upgrade request): " + closed
        + " closed by the server within " + (System.nanoTime() - opened) / 1_000_000
        + " ms (serve's upgrade deadline: 5 s)";
  }

  String nonReaders(AtomicBoolean stop) throws Exception {
    InetAddress from = run.freshAddress();
    String ping = "{\"msg\":\"ping\",\"id\":\"" + "p".repeat(60_000) + "\"}";
    List<RawPeer> peers = new ArrayList<>();
    AtomicLong pings = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      RawPeer p = peer(run.url(), from).receiveBuffer(4096).ddp();
      peers.add(p);
      Thread t = new Thread(() -> {
        try {
          while (!stop.get()) {
            p.sendText(ping); // and never read the pongs
            pings.incrementAndGet();
          }
        } catch (IOException e) {
          // dropped by the server
        }
      }, "abuse-non-reader");
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    int dropped = closedWhenStopped(stop, peers, 100);
    for (Thread t : threads) {
      t.join(5_000);
    }
    return "10 clients never reading, pinging with 60 KB ids (" + pings + " pings, "
        + (pings.get() * 60_000 >> 20) + " MiB of pongs asked for): " + dropped
        + " dropped by the server (serve's send-queue bound: 4 MiB)";
  }

  String flood(AtomicBoolean stop, int kind) throws Exception {
    InetAddress from = run.freshAddress();
    AtomicLong sent = new AtomicLong();
    AtomicLong limited = new AtomicLong();
    AtomicLong answered = new AtomicLong();
    parallel(4, stop, k -> {
      try (RawPeer p = ddp(from)) {
        if (kind != LOGIN) {
          p.sendText(login("carol", "carol-pw", "l"));
          nextResult(p);
        }
        Thread reader = new Thread(() -> {
          try {
            for (WebSocketWire.Frame f; (f = p.next()) != null && f.opcode() != WebSocketWire.CLOSE; ) {
              if (f.opcode() == WebSocketWire.TEXT) {
                answered.incrementAndGet();
                if (f.text().contains("too-many-requests")) {
                  limited.incrementAndGet();
                }
              }
            }
          } catch (IOException e) {
            // closed
          }
        }, "abuse-flood-reader");
        reader.setDaemon(true);
        reader.start();
        int burst = kind == LOGIN ? 50 : 500;
        for (int i = 0; i < burst && !stop.get(); i++) {
          String id = "f" + k + "-" + i;
          p.sendText(switch (kind) {
            case METHOD -> i % 2 == 0
                ? "{\"msg\":\"method\",\"id\":\"" + id + "\",\"method\":\"loadHistory\","
                    + "\"params\":[\"general\",null,1,null]}"
                : "{\"msg\":\"method\",\"id\":\"" + id + "\",\"method\":\"no-such-method\","
                    + "\"params\":[]}";
            case LOGIN -> login("carol", "carol-pw", id);
            default -> i % 2 == 0
                ? "{\"msg\":\"sub\",\"id\":\"s" + k + "\",\"name\":\"stream-room-messages\","
                    + "\"params\":[\"general\",{\"useCollection\":false,\"args\":[]}]}"
                : "{\"msg\":\"unsub\",\"id\":\"s" + k + "\"}";
          });
          sent.incrementAndGet();
        }
        // Read what the server answers to the burst before the next connection (bounded).
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (answered.get() < sent.get() && !stop.get() && System.nanoTime() < deadline) {
          sleepQuietly(20);
        }
      }
    });
    return sent + " sent, " + answered + " answers read, " + limited + " of them too-many-requests";
  }

  String connectionFlood(AtomicBoolean stop) throws Exception {
    InetAddress from = run.freshAddress();
    AtomicLong connected = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    parallel(8, stop, k -> {
      try (RawPeer p = ddp(from)) {
        connected.incrementAndGet();
      } catch (IOException e) {
        refused.incrementAndGet();
      }
    });
    return connected + " dials connected (DDP connected, then dropped), " + refused + " refused";
  }

  String guessing(AtomicBoolean stop) throws Exception {
    InetAddress from = run.freshAddress();
    AtomicLong wrong = new AtomicLong();
    AtomicLong limited = new AtomicLong();
    AtomicLong n = new AtomicLong();
    parallel(1, stop, k -> {
      try (RawPeer p = ddp(from)) {
        for (int i = 0; i < 5 && !stop.get(); i++) {
          p.sendText(login("alice", "guess-" + n.incrementAndGet(), "g" + i));
          String answer = nextResult(p).toString();
          if (answer.contains("too-many-requests")) {
            limited.incrementAndGet();
          } else if (answer.contains("403")) {
            wrong.incrementAndGet();
          }
        }
      }
    });
    String alice;
    try (RawPeer p = ddp(run.freshAddress())) {
      p.sendText(login("alice", "alice-pw", "real"));
      alice = nextResult(p).toString().contains("\"token\"") ? "logged in at once" : "REFUSED";
    }
    return n + " guesses: " + wrong + " answered 403, " + limited
        + " too-many-requests; alice from another address right after: " + alice;
  }

  String twoThousand(AtomicBoolean stop) throws Exception {
    List<RawPeer> peers = new ArrayList<>();
    int failed = 0;
    for (int a = 0; a < 8; a++) {
      InetAddress from = run.freshAddress();
      for (int i = 0; i < 250; i++) {
        try {
          peers.add(ddp(from));
        } catch (IOException e) {
          failed++;
        }
      }
    }
    int held = peers.size();
    int closed = closedWhenStopped(stop, peers, 1);
    return held + " DDP sessions open at once (" + failed + " failed to open), " + closed
        + " closed by the server while held";
  }

  /**
   * Holds {@code peers} open until {@code stop}, then counts (and closes) those the server has
   * closed, giving each {@code waitMillis} to show it.
   */
  private static int closedWhenStopped(AtomicBoolean stop, List<RawPeer> peers, int waitMillis)
      throws InterruptedException {
    while (!stop.get()) {
      Thread.sleep(50); // polling the phase's end, not a synchronisation
    }
    int closed = 0;
    for (RawPeer p : peers) {
      closed += p.closedByServer(waitMillis) ? 1 : 0;
      p.close();
    }
    return closed;
  }

  /**
   * Holds a bulk sender to {@link #BYTES_PER_SECOND}. Unpaced, 4 sockets on loopback push several
   * hundred MB/s, and the kernel's loopback work on a 2-core box then starves every process on it
   * (the abuse run's own JVM did not answer {@code jstack} for 10 s): a measure of the box, not
   * of the server. Paced, 4 sockets send what the attack sent (4.5 GiB in 65 s).
   */
  private static void pace(long startNanos, long sent) {
    long due = startNanos + sent * 1_000_000_000L / BYTES_PER_SECOND;
    long ahead = due - System.nanoTime();
    if (ahead > 1_000_000) {
      sleepQuietly(ahead / 1_000_000);
    }
  }

  /** A bulk sender's rate: 16 MiB/s a socket, 64 MiB/s for the 4 sockets of a phase. */
  static final long BYTES_PER_SECOND = 16L << 20;

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis); // pacing a flood's reads, not a synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String login(String user, String password, String id) {
    return "{\"msg\":\"method\",\"id\":\"" + id + "\",\"method\":\"login\",\"params\":[{\"user\":"
        + "{\"username\":\"" + user + "\"},\"password\":\"" + password + "\"}]}";
  }
}
