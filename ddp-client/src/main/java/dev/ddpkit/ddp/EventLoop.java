package dev.ddpkit.ddp;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the client's tasks one at a time, in submission order, on a delegate executor: the client's
 * own named daemon thread, or an executor the user gave (for tests, {@code Runnable::run}: a task
 * submitted while another runs is queued and run right after it on the same thread).
 *
 * <p>A task that throws is logged; the loop goes on. A task {@link #execute} accepted always runs:
 * the own thread is shut down only once the queue is empty after {@link #shutdown()}, and if the
 * delegate rejects the loop, the caller that found it rejected runs the queued tasks itself.
 */
final class EventLoop {
  private static final Logger log = LoggerFactory.getLogger(EventLoop.class);

  private final String name;
  private final Executor delegate;
  private final ThreadPoolExecutor owned;
  private final ThreadGroup group;
  private final Object lock = new Object();
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>(); // guarded by lock
  private boolean scheduled; // guarded by lock
  private boolean shutdown; // guarded by lock
  private volatile Thread runner;
  private volatile boolean warnedRejected; // one warning per loop, then debug
  private Thread[] made; // the own thread, once the executor made it

  private EventLoop(String name, Executor delegate, ThreadPoolExecutor owned, ThreadGroup group) {
    this.name = name;
    this.delegate = delegate;
    this.owned = owned;
    this.group = group;
  }

  /**
   * A loop on its own daemon thread named {@code name}, started by the first task. The thread lives
   * in a thread group of the same name, so that the threads it starts (Java-WebSocket's) can be
   * found and awaited at shutdown.
   */
  static EventLoop ownThread(String name) {
    ThreadGroup group = new ThreadGroup(name);
    Thread[] made = new Thread[1];
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(group, r, name);
              t.setDaemon(true);
              synchronized (made) {
                made[0] = t;
              }
              return t;
            });
    EventLoop loop = new EventLoop(name, executor, executor, group);
    loop.made = made;
    return loop;
  }

  /** A loop on an executor the user owns (not shut down by {@link #shutdown()}). */
  static EventLoop on(String name, Executor executor) {
    return new EventLoop(name, executor, null, null);
  }

  /**
   * Queues a task; returns {@code false} (and drops it) after {@link #shutdown()}. A task accepted
   * ({@code true}) runs, even if the delegate rejects the loop.
   */
  boolean execute(Runnable task) {
    synchronized (lock) {
      if (shutdown) {
        return false;
      }
      queue.add(task);
      if (scheduled) {
        return true;
      }
      scheduled = true;
    }
    try {
      delegate.execute(this::drain);
    } catch (RejectedExecutionException e) {
      // Other threads may have queued tasks behind ours (they saw scheduled == true) and were
      // told they were accepted: run them all here rather than drop them. Still one at a time:
      // scheduled stays true until this drain empties the queue.
      String caller = Thread.currentThread().getName();
      if (warnedRejected) {
        log.debug("{}: the executor rejected the event loop; running its tasks on {}", name,
            caller);
      } else {
        warnedRejected = true;
        log.warn("{}: the executor rejected the event loop ({}); running its tasks on {}", name,
            e.getMessage(), caller);
      }
      drain();
    }
    return true;
  }

  /** Runs the task now if called on the loop, else queues it. */
  void run(Runnable task) {
    if (inLoop()) {
      task.run();
    } else {
      execute(task);
    }
  }

  /** Returns whether the calling thread is running this loop's tasks. */
  boolean inLoop() {
    return runner == Thread.currentThread();
  }

  private void drain() {
    Thread previous = runner;
    runner = Thread.currentThread();
    boolean stopOwned = false;
    try {
      while (true) {
        Runnable task;
        synchronized (lock) {
          task = queue.poll();
          if (task == null) {
            scheduled = false;
            stopOwned = shutdown; // nothing can be queued any more: the deferred shutdown
            return;
          }
        }
        try {
          task.run();
        } catch (VirtualMachineError e) {
          synchronized (lock) {
            scheduled = false;
            stopOwned = shutdown;
          }
          throw e;
        } catch (RuntimeException | Error e) {
          log.error("{}: task failed", name, e);
        }
      }
    } finally {
      runner = previous;
      if (stopOwned) {
        stopOwned();
      }
    }
  }

  /**
   * Stops accepting tasks; those accepted still run. The own thread is shut down now if the loop
   * is idle, else by the drain once it has emptied the queue (shutting the executor down at once
   * would make it reject a drain that another thread is about to schedule for tasks it queued).
   */
  void shutdown() {
    boolean idle;
    synchronized (lock) {
      shutdown = true;
      idle = !scheduled;
    }
    if (idle) {
      stopOwned();
    }
  }

  private void stopOwned() {
    if (owned != null) {
      owned.shutdown();
    }
  }

  /**
   * Waits for the own thread and for the Java-WebSocket threads started from it to end.
   *
   * @return whether all ended in time
   */
  boolean awaitTermination(Duration timeout) throws InterruptedException {
    if (owned == null) {
      return true;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    if (!owned.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      return false;
    }
    // The executor reports termination from its thread just before that thread ends.
    Thread own;
    synchronized (made) {
      own = made[0];
    }
    if (own != null && own != Thread.currentThread()) {
      own.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (own.isAlive()) {
        return false;
      }
    }
    Thread[] threads = new Thread[group.activeCount() + 8];
    int n = group.enumerate(threads, /* recurse= */ true);
    boolean all = true;
    for (int i = 0; i < n; i++) {
      Thread t = threads[i];
      // Only the socket threads (named by WebSocketTransportFactory after the client, or still
      // carrying the library's name): a shared scheduler thread may have been started from this
      // group too, and lives on.
      String tn = t.getName();
      if (t != Thread.currentThread()
          && (tn.startsWith("WebSocket") || tn.startsWith(name + "-ws-"))) {
        long left = deadline - System.nanoTime();
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        all &= !t.isAlive();
      }
    }
    return all;
  }
}
