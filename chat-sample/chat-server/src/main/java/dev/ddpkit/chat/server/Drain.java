package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.Scheduler;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a stopping server closes its connections: a graceful drain (1012 "service restart" in
 * batches spread over the drain period, each close with a {@code retry-after} hint) or a planned
 * restart (every connection closed at once with its own appointment, from a {@link RestartPlan}).
 * New connections are turned away meanwhile, with the same reason. Runs on the thread that stops
 * the server, which it blocks until the closes are made and the connections are gone.
 */
final class Drain {
  private static final Logger log = LoggerFactory.getLogger(Drain.class);
  /** The longest wait for the last connections to finish their close handshake. */
  private static final long CLOSED_WAIT_MILLIS = 2000;

  private Drain() {}

  /**
   * Drains the handler's connections: in batches over {@code period} on {@code batches} (the
   * server's own thread) when {@code plan} is null, else by appointment; then waits for them to
   * close.
   */
  static void run(DdpHandler handler, Scheduler batches, Duration period, RestartPlan plan)
      throws InterruptedException {
    if (plan == null) {
      long drainMillis = period.toMillis();
      String reason = "service restart; retry-after=" + Math.max(1000, drainMillis);
      handler.mode(Arrivals.Mode.DRAINING, () -> reason);
      inBatches(handler, batches, drainMillis, reason);
    } else {
      handler.mode(Arrivals.Mode.DRAINING, plan::nextCloseReason);
      List<Session> queue = handler.sessions();
      queue.sort(Comparator.comparingLong(s -> s.seq));
      queue.forEach(s -> handler.closeGracefully(s, 1012, plan.nextCloseReason()));
      log.info("planned restart: {} connections given appointments from {} ms on",
          queue.size(), plan.readyInMillis());
    }
    awaitNoConnections(handler, CLOSED_WAIT_MILLIS);
  }

  private static void inBatches(DdpHandler handler, Scheduler batches, long drainMillis,
      String reason) throws InterruptedException {
    List<Session> open = handler.sessions();
    if (open.isEmpty()) {
      return;
    }
    int n = (int) Math.max(1, Math.min(open.size(), drainMillis / 50));
    long step = drainMillis / n;
    CountDownLatch done = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      int from = (int) ((long) open.size() * i / n);
      int to = (int) ((long) open.size() * (i + 1) / n);
      List<Session> batch = open.subList(from, to);
      batches.schedule(Duration.ofMillis(step * i), () -> {
        try {
          batch.forEach(s -> handler.closeGracefully(s, 1012, reason));
        } finally {
          done.countDown();
        }
      });
    }
    if (!done.await(drainMillis + 5000, TimeUnit.MILLISECONDS)) {
      log.warn("drain batches did not all run in time");
    }
  }

  /** Waits up to about {@code timeoutMillis} (in 10 ms naps, no clock read) for no connection. */
  private static void awaitNoConnections(DdpHandler handler, long timeoutMillis) {
    for (long naps = timeoutMillis / 10; handler.currentConnections() > 0 && naps > 0; naps--) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}
