package dev.ddpkit.ddp.testserver;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Works around a lost wake-up in Java-WebSocket's server (seen with 1.6.0): frames queued on a
 * connection can sit in its out-queue, unsent, until the next frame is queued on it.
 *
 * <p>The selector thread's {@code WebSocketServer.doWrite} drains {@code outQueue} and then sets
 * the key's interest to {@code OP_READ}. A frame that another thread (a worker answering a message,
 * a test) queues after the drain saw the queue empty but before that {@code interestOps} call has
 * its {@code OP_READ | OP_WRITE} from {@code onWriteDemand} overwritten: nothing writes it until
 * the connection queues another frame. The window is a few instructions wide, so it takes a loaded
 * machine (the selector thread descheduled inside it) to hit: a reply the client waits for, and
 * nothing more on that connection, means a hang until the test times out.
 *
 * <p>This guard runs one thread that, every {@link #PERIOD}, looks for connections with queued
 * frames and no write interest, and sets it again (what {@code onWriteDemand} does): a lost frame
 * goes out within a period instead of never. A spurious re-arm (a frame queued, its own demand
 * not yet made) costs one extra selector round.
 */
final class LostWriteGuard implements AutoCloseable {
  static final Duration PERIOD = Duration.ofMillis(20);
  private static final Logger log = LoggerFactory.getLogger(LostWriteGuard.class);

  private final Supplier<? extends Collection<? extends WebSocket>> sockets;
  private final Runnable onRearm;
  private final AtomicLong rearmed = new AtomicLong();
  private final String threadName;
  private final Thread thread;
  private final ScheduledThreadPoolExecutor timer;

  /**
   * Starts the guard on a daemon thread named {@code threadName}, watching the connections {@code
   * sockets} returns (it must be safe to iterate from another thread); {@code onRearm} runs on
   * each re-arm.
   */
  LostWriteGuard(
      String threadName,
      Supplier<? extends Collection<? extends WebSocket>> sockets,
      Runnable onRearm) {
    this.sockets = sockets;
    this.onRearm = onRearm;
    this.threadName = threadName;
    Thread[] made = new Thread[1];
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      made[0] = t;
      return t;
    });
    timer.prestartCoreThread(); // made now, so that thread() can be joined
    this.thread = made[0];
    long period = PERIOD.toNanos();
    timer.scheduleWithFixedDelay(this::scan, period, period, TimeUnit.NANOSECONDS);
  }

  /** Returns how many times a connection's lost write interest was set again. */
  long rearmed() {
    return rearmed.get();
  }

  /** Returns the guard's thread, for joining. */
  Thread thread() {
    return thread;
  }

  /** Stops the thread; does not wait for it. */
  @Override
  public void close() {
    timer.shutdownNow();
  }

  private void scan() {
    for (WebSocket socket : sockets.get()) {
      if (rearmIfLost(socket)) {
        rearmed.incrementAndGet();
        log.debug("{}: frames queued on {} had no write interest; set it again", threadName,
            socket);
        onRearm.run();
      }
    }
  }

  /**
   * Sets {@code OP_WRITE} again on a connection that has frames queued and no write interest;
   * returns whether it did.
   */
  static boolean rearmIfLost(WebSocket socket) {
    if (!(socket instanceof WebSocketImpl impl) || !impl.hasBufferedData()) {
      return false;
    }
    SelectionKey key = impl.getSelectionKey();
    if (key == null || !key.isValid()) {
      return false;
    }
    try {
      if ((key.interestOps() & SelectionKey.OP_WRITE) != 0) {
        return false;
      }
      key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
      key.selector().wakeup();
      return true;
    } catch (CancelledKeyException e) {
      return false; // closed meanwhile: the library drops its queue
    }
  }
}
