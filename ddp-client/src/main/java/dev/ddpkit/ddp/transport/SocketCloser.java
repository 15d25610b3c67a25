package dev.ddpkit.ddp.transport;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes sockets whose close may block, off the caller's thread and within a bound.
 *
 * <p>Closing a TLS socket sends a {@code close_notify} alert, and the JDK's {@link SSLSocket} first
 * takes the connection's write lock. When the connection's writer is stuck in a write because the
 * peer stopped reading (its window and our send buffer full), the close waits as long as that write
 * does: for ever with a half-open peer. On a thread shared by many clients (an event-loop pool
 * thread) that stops other clients' heartbeats and retries. So such a close runs
 * here, on a few daemon threads named {@code ddp-socket-closer-N} that end when idle, and {@code
 * SO_LINGER} set to the bound makes the JDK stop waiting for the lock after it: it then gives up the
 * alert, shuts the TCP output down (which fails the stuck write) and closes.
 *
 * <p>A plain socket's close does not wait for a writer, so {@link #close(Socket)} closes it at once
 * on the caller's thread.
 */
public final class SocketCloser {
  private static final Logger log = LoggerFactory.getLogger(SocketCloser.class);

  /** The default bound: how long a close may wait for a stuck writer before it aborts. */
  public static final Duration DEFAULT_BOUND = Duration.ofSeconds(1);

  private static final int THREADS = 4;
  private static final int QUEUE = 4096;
  private static final Duration IDLE = Duration.ofSeconds(2);
  private static final SocketCloser SHARED = new SocketCloser(DEFAULT_BOUND);

  private final int lingerSeconds;
  private final ThreadPoolExecutor executor;

  private SocketCloser(Duration bound) {
    this.lingerSeconds = (int) Math.max(1, Math.min(60, bound.getSeconds()));
    AtomicInteger ids = new AtomicInteger();
    this.executor = new ThreadPoolExecutor(THREADS, THREADS, IDLE.toMillis(),
        TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
          Thread t = new Thread(r, "ddp-socket-closer-" + ids.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    executor.allowCoreThreadTimeOut(true);
  }

  /** The closer shared by every transport of the JVM, with {@link #DEFAULT_BOUND}. */
  public static SocketCloser shared() {
    return SHARED;
  }

  /**
   * Closes {@code socket} without blocking the caller on a stuck peer: a TLS socket is closed on
   * this closer's threads, with its wait for a stuck writer bounded; any other socket at once.
   *
   * @return completed once the socket is closed (errors are logged at debug, never thrown)
   */
  public CompletableFuture<Void> close(Socket socket) {
    Objects.requireNonNull(socket, "socket");
    if (!(socket instanceof SSLSocket)) {
      closeNow(socket);
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      executor.execute(() -> {
        try {
          bound(socket);
          closeNow(socket);
        } finally {
          done.complete(null);
        }
      });
    } catch (RejectedExecutionException e) {
      // Thousands of stuck closes at once: abort this one (no close_notify) rather than block.
      log.warn("socket closer saturated ({} waiting): aborting a TLS socket", QUEUE);
      abort(socket);
      done.complete(null);
    }
    return done;
  }

  /** SO_LINGER bounds how long an SSLSocket's close waits for the write lock (then aborts). */
  private void bound(Socket socket) {
    try {
      if (!socket.isClosed()) {
        socket.setSoLinger(true, lingerSeconds);
      }
    } catch (SocketException e) {
      log.debug("cannot bound the close", e);
    }
  }

  /** Closes at once: with SO_LINGER 0 the JDK does not wait for the write lock. */
  private static void abort(Socket socket) {
    try {
      if (!socket.isClosed()) {
        socket.setSoLinger(true, 0);
      }
    } catch (SocketException e) {
      log.debug("cannot abort the close", e);
    }
    closeNow(socket);
  }

  private static void closeNow(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      log.debug("error closing socket", e);
    }
  }
}
