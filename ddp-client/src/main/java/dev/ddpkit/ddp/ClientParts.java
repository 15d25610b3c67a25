package dev.ddpkit.ddp;

import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.WebSocketTransportFactory;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

/**
 * The parts a {@link DdpClient} is made of, wired from its builder's settings: its own
 * reconnection manager (on the client's scheduler and randomness, never shared), its event loop, its
 * transport and its engine.
 */
record ClientParts(
    String name, ReconnectionManager manager, EventLoop loop, ClientEngine engine,
    LoopTimers timers, CountDownLatch shutdownDone) {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  static ClientParts wire(DdpClientBuilder b, Random jitter) {
    String name = b.name != null ? b.name : "ddp-client-" + COUNTER.incrementAndGet();
    Ticker ticker = b.tickerOrDefault();
    EventLoop loop = b.executor != null ? EventLoop.on(name, b.executor) : EventLoop.shared(name);
    ReconnectionManager.Builder mb =
        ReconnectionManager.builder()
            .policy(b.reconnectPolicy())
            .scheduler(managerTime(b))
            // Its connector and listeners on the client's loop, in order with the client's work
            // (ClientStatus); once the loop is closed, on the thread that made the change.
            .executor(task -> {
              if (!loop.execute(task)) {
                task.run();
              }
            })
            .credentialsRefresher(b.credentialsRefresher)
            .name(name);
    if (jitter != null) {
      mb.random(jitter);
    } else if (b.jitter != null) {
      DoubleSupplier legacy = b.jitter;
      mb.random(new Random() {
        private static final long serialVersionUID = 1L;

        @Override
        public double nextDouble() {
          return legacy.getAsDouble();
        }
      });
    }
    ReconnectionManager manager = mb.build();
    TransportFactory transports =
        b.transportFactory != null
            ? b.transportFactory
            : new WebSocketTransportFactory(
                b.sslContext, b.maxFrameBytes, b.connectTimeout, name);
    ClientEngine engine =
        new ClientEngine(
            new EngineConfig(name, b.url, b.scheduler, ticker, b.wallClock(),
                b.heartbeatInterval, b.heartbeatTimeout, b.connectTimeout, b.resyncTimeout,
                b.maxQueuedCalls, b.maxFrameBytes, b.strictProtocol, b.sessionResumption),
            manager, transports, loop, b.mapper, b.statusListeners);
    engine.listeners.connection.addAll(b.connectionListeners);
    return new ClientParts(name, manager, loop, engine,
        new LoopTimers(b.scheduler, loop::execute, loop::isShutdown), new CountDownLatch(1));
  }

  /**
   * The scheduler the manager reads its time from: the client's, or, with the deprecated {@link
   * DdpClientBuilder#ticker} set, the client's timers on that ticker's time.
   */
  private static Scheduler managerTime(DdpClientBuilder b) {
    Scheduler scheduler = b.scheduler;
    Ticker ticker = b.ticker;
    if (ticker == null || ticker == scheduler) {
      return scheduler;
    }
    return new Scheduler() {
      @Override
      public Cancellable schedule(Duration delay, Runnable task) {
        return scheduler.schedule(delay, task);
      }

      @Override
      public long nanoTime() {
        return ticker.read();
      }

      @Override
      public Instant wallTime() {
        return scheduler.wallTime();
      }
    };
  }

  /**
   * Waits until the shutdown has run on the loop ({@link #shutdownDone}), the loop's own thread has
   * ended and the socket threads too; returns whether all did within {@code timeout}.
   *
   * @throws IllegalStateException if called on the loop, which it would wait for
   */
  boolean awaitTermination(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    if (loop.inLoop() || LoopPool.onPoolThread()) {
      // On a thread of the shared pool, the shutdown may need this very thread.
      throw new IllegalStateException(
          "awaitTermination called on an event loop's thread, which it would wait for");
    }
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    return shutdownDone.await(left(deadline), TimeUnit.NANOSECONDS)
        && loop.awaitTermination(Duration.ofNanos(left(deadline)))
        && engine.awaitTransports(Duration.ofNanos(left(deadline)));
  }

  private static long left(long deadline) {
    return Math.max(1, deadline - System.nanoTime());
  }
}
