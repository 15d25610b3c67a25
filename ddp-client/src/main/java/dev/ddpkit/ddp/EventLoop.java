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
 * submitted while another runs is queued and run right after it on the same thread), or, in
 * {@linkplain #direct direct} mode, the submitting thread itself.
 *
 * <p><b>Direct mode.</b> No executor: the thread that submits a task while the loop is idle runs it
 * at once, and every task queued meanwhile by other threads, before it returns. A frame from the
 * socket is then handled on the socket's reader thread with no hand-off. So that a thread that
 * happened to start draining (the shared scheduler's, on a timer) is not kept busy by a stream of
 * frames, a frame submitted with {@link #executeInbound} while another thread drains waits until
 * that thread has run it: the reader reads the next frame only then, so at most one frame per
 * socket is ever queued behind another thread's drain (and TCP, not an unbounded queue, holds the
 * rest).
 *
 * <p><b>A bounded backlog.</b> On a thread of its own or an executor, a frame submitted with {@link
 * #executeInbound} when more than {@link #MAX_QUEUED} tasks wait makes the socket's reader wait
 * until the loop is down to half that: a server that sends faster than the application handles
 * (or a listener that blocks) is held back by TCP, not buffered in the heap without limit.
 *
 * <p>A task that throws is logged; the loop goes on. A task {@link #execute} accepted always runs:
 * the own thread is shut down only once the queue is empty after {@link #shutdown()}, and if the
 * delegate rejects the loop, the caller that found it rejected runs the queued tasks itself.
 */
final class EventLoop {
  private static final Logger log = LoggerFactory.getLogger(EventLoop.class);

  /** Past this many queued tasks, a frame's submitter waits (see the class comment). */
  static final int MAX_QUEUED = 1024;

  private final String name;
  private final Executor delegate;
  private final ThreadPoolExecutor owned;
  private final ThreadGroup group;
  private final boolean direct;
  private final Object lock = new Object();
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>(); // guarded by lock
  private boolean scheduled; // guarded by lock
  private boolean shutdown; // guarded by lock
  private long accepted; // guarded by lock: tasks accepted so far (direct mode)
  private long finished; // guarded by lock: tasks run so far (direct mode)
  private int waiters; // guarded by lock: inbound submitters waiting for their task (direct mode)
  private volatile Thread runner;
  private volatile boolean warnedRejected; // one warning per loop, then debug
  private Thread[] made; // the own thread, once the executor made it

  private EventLoop(
      String name, Executor delegate, ThreadPoolExecutor owned, ThreadGroup group, boolean direct) {
    this.name = name;
    this.delegate = delegate;
    this.owned = owned;
    this.group = group;
    this.direct = direct;
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
    EventLoop loop = new EventLoop(name, executor, executor, group, false);
    loop.made = made;
    return loop;
  }

  /** A loop on an executor the user owns (not shut down by {@link #shutdown()}). */
  static EventLoop on(String name, Executor executor) {
    return new EventLoop(name, executor, null, null, false);
  }

  /**
   * A loop with no thread of its own that runs its tasks on the threads that submit them (see the
   * class comment).
   */
  static EventLoop direct(String name) {
    return new EventLoop(name, Runnable::run, null, null, true);
  }

  /** Returns whether this loop runs its tasks on the submitting threads. */
  boolean isDirect() {
    return direct;
  }

  /**
   * Queues a task; returns {@code false} (and drops it) after {@link #shutdown()}. A task accepted
   * ({@code true}) runs, even if the delegate rejects the loop.
   */
  boolean execute(Runnable task) {
    return submit(task, /* inbound= */ false);
  }

  /**
   * Queues a task that carries input from the socket, for the socket's thread to call: as {@link
   * #execute}, but in direct mode, if another thread is draining the loop, waits until that thread
   * has run this task (see the class comment). Never waits when called on the loop itself. The
   * caller must hold no lock that a task may need.
   */
  boolean executeInbound(Runnable task) {
    return submit(task, /* inbound= */ true);
  }

  private boolean submit(Runnable task, boolean inbound) {
    synchronized (lock) {
      if (shutdown) {
        return false;
      }
      queue.add(task);
      long seq = ++accepted;
      if (scheduled) {
        if (inbound && !inLoop()) {
          if (direct) {
            awaitRun(seq);
          } else if (queue.size() > MAX_QUEUED) {
            awaitBacklog();
          }
        }
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

  /** Waits (holding the lock's monitor, released while waiting) until task {@code seq} has run. */
  private void awaitRun(long seq) {
    waiters++;
    try {
      while (finished < seq && scheduled) { // not scheduled: the drainer died of an Error
        lock.wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop waiting; the task still runs in its turn
    } finally {
      waiters--;
    }
  }

  /**
   * Waits (the lock's monitor released while waiting) until the queue is down to half of {@link
   * #MAX_QUEUED}, the loop is shut down, or its drain died of an Error.
   */
  private void awaitBacklog() {
    log.debug("{}: {} tasks queued; the socket's reader waits for the loop", name, queue.size());
    waiters++;
    try {
      while (queue.size() > MAX_QUEUED / 2 && scheduled && !shutdown) {
        lock.wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop waiting; the task still runs in its turn
    } finally {
      waiters--;
    }
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
    boolean ran = false;
    try {
      while (true) {
        Runnable task;
        synchronized (lock) {
          if (ran) {
            finished++;
            if (waiters > 0) {
              lock.notifyAll();
            }
          }
          ran = true;
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
            finished++;
            scheduled = false;
            stopOwned = shutdown;
            lock.notifyAll();
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
      lock.notifyAll(); // a reader waiting on the backlog stops waiting
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
