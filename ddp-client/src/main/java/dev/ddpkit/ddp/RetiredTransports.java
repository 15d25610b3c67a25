package dev.ddpkit.ddp;

import dev.ddpkit.ddp.transport.Transport;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transports a client closed and whose threads may still be ending, so that {@link
 * DdpClient#close()} can wait for them. Those already ended are forgotten as new ones come.
 */
final class RetiredTransports {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final String name;
  private final CopyOnWriteArrayList<Transport> retired = new CopyOnWriteArrayList<>();

  RetiredTransports(String name) {
    this.name = name;
  }

  /** Closes {@code t} without waiting and keeps it to await. */
  void retire(Transport t, int code, String reason) {
    try {
      t.close(code, reason);
    } catch (RuntimeException e) {
      log.debug("{}: error closing a transport", name, e);
    }
    add(t);
  }

  /** Keeps {@code t}, closed already, to await. */
  void add(Transport t) {
    retired.removeIf(RetiredTransports::terminated);
    retired.add(t);
  }

  /** Waits for the transports closed so far to release their threads (any thread). */
  boolean awaitAll(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean all = true;
    for (Transport t : retired) {
      Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
      all &= t.awaitTermination(left);
    }
    return all;
  }

  private static boolean terminated(Transport t) {
    try {
      return t.awaitTermination(Duration.ZERO);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
