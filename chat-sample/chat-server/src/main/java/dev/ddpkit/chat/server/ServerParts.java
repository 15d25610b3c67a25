package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Scheduler;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one start of a {@link ChatServer} opens, in order, and closes in reverse: the server's own
 * timer thread, the store (and its writer thread), the {@link DdpHandler}, the {@link Endpoint}
 * (its selector and worker threads) and the periodic checks. The protocol's timers (heartbeats,
 * holds, held sessions, close grace, the upgrade deadline, the send-queue bound) run on the
 * configured {@link Scheduler}, the server's own thread by default; the socket write kick and the
 * drain's batches always run on the server's own thread, since they pace real sockets and a
 * caller blocked in {@code stop()}.
 */
final class ServerParts {
  private static final Logger log = LoggerFactory.getLogger(ServerParts.class);
  /**
   * Period of the work-around for Java-WebSocket's lost write wakeup, see Endpoint: while some
   * connection has bytes queued for the selector.
   */
  private static final Duration WRITE_KICK = Duration.ofMillis(10);
  /** How often every socket's send queue is checked against its limit. */
  private static final Duration SEND_QUEUE_CHECK = Duration.ofMillis(100);

  private final ServerConfig cfg;
  private final Counters counters;
  private final GuardedTimer thread;
  /** The server's own timer thread as a {@link Scheduler}. */
  final Scheduler own;
  /** Where the protocol's timers run: the configured scheduler, or {@link #own}. */
  final Scheduler timers;
  private volatile ChatStore store;
  private volatile DdpHandler handler;
  private volatile Endpoint endpoint;

  ServerParts(ServerConfig cfg, String threadPrefix, Counters counters, FatalErrors fatal) {
    this.cfg = cfg;
    this.counters = counters;
    this.thread = new GuardedTimer(threadPrefix + "timer", fatal);
    this.own = onThread(thread);
    this.timers = cfg.scheduler != null ? cfg.scheduler : own;
  }

  /**
   * Opens the store, builds the handler, binds the port (returns once it is bound) and starts the
   * periodic checks. If it throws, {@link #close} closes whatever it opened.
   */
  void open(String threadPrefix, Secrets secrets, FatalErrors fatal) throws Exception {
    Files.createDirectories(cfg.dataDir);
    ChatStore s = ChatStore.open(cfg.dataDir, threadPrefix + "store", cfg.clock,
        this::onDurable, this::onDurableChanges);
    store = s;
    s.onWriterError(fatal::reportIfFatal);
    DdpHandler h = new DdpHandler(s, secrets, counters, cfg, timers);
    handler = h;
    Endpoint ep = new Endpoint(new InetSocketAddress(cfg.host, cfg.port), cfg.workers,
        cfg.maxFrameBytes, h, threadPrefix, fatal, cfg.ticker);
    ep.setMaxPendingConnections(cfg.listenBacklog);
    ep.maxSocketsPerAddress(cfg.maxSocketsPerAddress);
    h.attach(ep);
    endpoint = ep;
    ep.kickStalledWritesOn(own, WRITE_KICK); // only while some connection has bytes queued
    ep.startAndAwait(10_000);
    h.startHeartbeat();
    long upgradeNanos = cfg.upgradeTimeout.toNanos();
    Duration sweep = Duration.ofMillis(
        Math.max(10, Math.min(1000, cfg.upgradeTimeout.toMillis() / 4)));
    repeat(timers, sweep, () -> ep.dropLateUpgrades(upgradeNanos, counters.upgradesTimedOut));
    repeat(timers, SEND_QUEUE_CHECK, h::dropSlowReaders);
  }

  /** The port bound. */
  int port() {
    return endpoint.getPort();
  }

  ChatStore store() {
    return store;
  }

  DdpHandler handler() {
    return handler;
  }

  /** The reads decoded so far, by where (see {@link Endpoint#queue}). */
  Endpoint.Decodes decodes() {
    return endpoint.decodes();
  }

  /** Accepted sockets open now, upgraded or not (0 before the port is bound). */
  int acceptedSockets() {
    Endpoint ep = endpoint;
    return ep == null ? 0 : ep.acceptedSockets();
  }

  /**
   * Stops listening and waits up to 2 s for the socket threads, stops the timer thread, then
   * closes the store: {@code immediately} with no further write (a kill), else once its queued
   * writes are done. Closes only what {@link #open} opened.
   */
  void close(boolean immediately) {
    try {
      Endpoint ep = endpoint;
      if (ep != null) {
        ep.stopAndJoin(2000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopThread();
      ChatStore s = store;
      if (s != null && immediately) {
        s.closeImmediately();
      } else if (s != null) {
        s.close();
      }
    }
  }

  private void stopThread() {
    thread.shutdownNow();
    try {
      if (!thread.awaitTermination(2, TimeUnit.SECONDS)) {
        log.warn("timer thread did not stop in 2 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void onDurable(List<ObjectNode> messages) {
    DdpHandler h = handler;
    if (h != null) {
      h.broadcast(messages);
    } else {
      counters.messagesStored.addAndGet(messages.size());
    }
  }

  private void onDurableChanges(List<ChatStore.Change> changes) {
    DdpHandler h = handler;
    if (h != null) {
      h.broadcastChanges(changes);
    }
  }

  /** Runs {@code task} every {@code period} on {@code scheduler} until it refuses a task. */
  static void repeat(Scheduler scheduler, Duration period, Runnable task) {
    try {
      scheduler.schedule(period, () -> {
        try {
          task.run();
        } finally {
          repeat(scheduler, period, task);
        }
      });
    } catch (RejectedExecutionException e) {
      // the server is stopping: no more runs
    }
  }

  /** A scheduled executor as a {@link Scheduler}. */
  private static Scheduler onThread(GuardedTimer timer) {
    return (delay, task) -> {
      ScheduledFuture<?> f = timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
      Cancellable cancel = () -> f.cancel(false);
      return cancel;
    };
  }
}
