package dev.ddpkit.chat.server;

import java.nio.ByteBuffer;
import java.util.Collection;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bound on each socket's send queue: a client that does not read (a paused reader, a phone
 * gone to sleep behind a live NAT) would otherwise be held for as long as it pings, with every
 * frame for it queued in the server's heap (20 such readers left about 5.8 MB each). Past {@code
 * maxQueuedBytes} not yet written to the kernel, the socket is dropped with 1008 and a reason
 * that says why, whether or not it pings; the others are not slowed, since nothing waits for it.
 * Run by the server's timer every 100 ms, over the connections with bytes queued at all (a
 * {@link ServerConnection} queues only what the kernel did not take).
 */
final class SendQueues {
  private static final Logger log = LoggerFactory.getLogger(SendQueues.class);
  /** The close code a slow reader is dropped with: it broke the server's policy of reading. */
  static final int SLOW_READER_CODE = 1008;

  private final Counters counters;
  private final long maxQueuedBytes;

  SendQueues(Counters counters, long maxQueuedBytes) {
    this.counters = counters;
    this.maxQueuedBytes = maxQueuedBytes;
  }

  /** Drops every socket of {@code candidates} whose queue is over the limit. */
  void dropSlowReaders(Collection<? extends WebSocket> candidates) {
    for (WebSocket conn : candidates) {
      long queued = queuedBytes(conn);
      if (queued > maxQueuedBytes && !conn.isClosed()) {
        counters.slowReadersDropped.incrementAndGet();
        Object who = conn.getAttachment() instanceof Session s ? s : "a connection";
        log.info("{}: dropped, {} bytes queued for it unsent (the limit is {}): not reading", who,
            queued, maxQueuedBytes);
        Liveness.dropAbruptly(conn, SLOW_READER_CODE,
            "send queue over " + maxQueuedBytes + " bytes: the client is not reading");
      }
    }
  }

  /** Bytes queued for {@code conn} and not yet handed to the kernel. */
  static long queuedBytes(WebSocket conn) {
    if (!(conn instanceof WebSocketImpl impl)) {
      return 0;
    }
    long total = 0;
    for (ByteBuffer b : impl.outQueue) { // weakly consistent: a snapshot good enough for a bound
      total += b.remaining();
    }
    return total;
  }
}
