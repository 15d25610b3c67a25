package dev.ddpkit.bench.recovery;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.TransportListener;
import dev.ddpkit.ddp.transport.WebSocketTransportFactory;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TransportFactory} around the real WebSocket one that notes, on the socket thread and
 * before the client sees them, when the server's {@code connected} and {@code ready} frames arrive;
 * and that can send a DDP {@code ping} of its own on the current connection and time its {@code
 * pong} (the client ignores that pong). Times are {@link System#nanoTime()}.
 */
final class WireClock implements TransportFactory {
  private static final String PONG_PREFIX = "bench-";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final TransportFactory delegate = new WebSocketTransportFactory();
  private final AtomicLong pingIds = new AtomicLong();
  private final Object lock = new Object();
  // Guarded by lock.
  private Transport current;
  private long connectedAt;
  private long firstReadyAt;
  private long lastReadyAt;
  private int readyFrames;
  private int readyIds;
  private String pendingPing;
  private long pingSentAt;
  private CompletableFuture<Duration> pong;

  @Override
  public Transport open(URI uri, TransportListener listener) throws Exception {
    Transport t = delegate.open(uri, new Tap(listener));
    synchronized (lock) {
      current = t;
    }
    return t;
  }

  /** Forgets what was seen: the next {@code connected} starts a new count of readies. */
  void reset() {
    synchronized (lock) {
      connectedAt = 0;
      firstReadyAt = 0;
      lastReadyAt = 0;
      readyFrames = 0;
      readyIds = 0;
    }
  }

  /** Returns a snapshot of what was seen since the last {@link #reset()}. */
  Seen seen() {
    synchronized (lock) {
      return new Seen(connectedAt, firstReadyAt, lastReadyAt, readyFrames, readyIds);
    }
  }

  /**
   * What the wire showed.
   *
   * @param connectedAt when {@code connected} arrived (0 if not yet)
   * @param firstReadyAt when the first {@code ready} arrived after it (0 if none)
   * @param lastReadyAt when the latest {@code ready} arrived after it (0 if none)
   * @param readyFrames how many {@code ready} frames arrived after it
   * @param readyIds how many subscription ids they named
   */
  record Seen(
      long connectedAt, long firstReadyAt, long lastReadyAt, int readyFrames, int readyIds) {}

  /** Sends a DDP ping on the current connection; completes with the time to its pong. */
  CompletableFuture<Duration> ping() {
    String id = PONG_PREFIX + pingIds.incrementAndGet();
    CompletableFuture<Duration> f = new CompletableFuture<>();
    Transport t;
    synchronized (lock) {
      if (pong != null) {
        throw new IllegalStateException("one ping at a time");
      }
      t = current;
      pendingPing = id;
      pong = f;
      pingSentAt = System.nanoTime();
    }
    t.send(MAPPER.createObjectNode().put("msg", "ping").put("id", id).toString());
    return f;
  }

  private void onFrame(String text) {
    long now = System.nanoTime();
    CompletableFuture<Duration> done = null;
    Duration took = null;
    synchronized (lock) {
      if (isMsg(text, "connected")) {
        connectedAt = now;
        firstReadyAt = 0;
        lastReadyAt = 0;
        readyFrames = 0;
        readyIds = 0;
      } else if (isMsg(text, "ready") && connectedAt != 0) {
        if (firstReadyAt == 0) {
          firstReadyAt = now;
        }
        lastReadyAt = now;
        readyFrames++;
        readyIds += count(text, ',') + 1; // the ids of {"msg":"ready","subs":[...]}, no commas in ids
      } else if (pong != null && isMsg(text, "pong") && text.contains(pendingPing)) {
        done = pong;
        took = Duration.ofNanos(now - pingSentAt);
        pong = null;
        pendingPing = null;
      }
    }
    if (done != null) {
      done.complete(took);
    }
  }

  private static boolean isMsg(String text, String msg) {
    return text.contains("\"msg\":\"" + msg + "\"");
  }

  private static int count(String text, char c) {
    int start = text.indexOf('[');
    int end = text.indexOf(']', start + 1);
    int n = 0;
    for (int i = start + 1; i > 0 && i < end; i++) {
      if (text.charAt(i) == c) {
        n++;
      }
    }
    return n;
  }

  /** Passes every event on, noting frames first. */
  private final class Tap implements TransportListener {
    private final TransportListener next;

    Tap(TransportListener next) {
      this.next = next;
    }

    @Override
    public void onOpen() {
      next.onOpen();
    }

    @Override
    public void onMessage(String text) {
      onFrame(text);
      next.onMessage(text);
    }

    @Override
    public void onClose(int code, String reason, boolean remote) {
      next.onClose(code, reason, remote);
    }

    @Override
    public void onError(Throwable error) {
      next.onError(error);
    }
  }
}
