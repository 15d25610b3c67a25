package dev.ddpkit.ddp;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one client's tasks one at a time, in submission order, each to completion, on a delegate
 * executor: by default the JVM's {@linkplain LoopPool shared pool}, or an executor the user gave
 * (for tests, {@code Runnable::run}). A task is always queued, never run inside the caller: a task
 * submitted from a running task runs after it (and after every task queued before), so no code of
 * the client is ever re-entered by a listener that calls the client.
 *
 * <p><b>Sharing the pool fairly.</b> On the shared pool a drain runs at most {@link #BATCH} tasks
 * while another client's drain waits for a thread, then puts itself at the back of the pool's
 * queue: a client with a long backlog takes its turn with the others instead of holding a thread
 * until its queue is empty. When no other drain waits it goes on (handing the thread back would
 * only wake another pool thread to take the same drain up).
 *
 * <p><b>A listener that blocks</b> holds one pool thread for as long as it blocks, and its own
 * client's later tasks wait behind it (that is the order guarantee). The other clients go on on
 * the pool's other threads ({@link LoopPool#SIZE}, at least 2); only as many blocking listeners
 * at once as the pool has threads stall everyone. Listeners must therefore return quickly; an
 * application whose listeners block gives the client an executor of its own.
 *
 * <p><b>A bounded backlog.</b> A frame submitted with {@link #executeInbound} when more than {@link
 * #MAX_QUEUED} tasks wait makes the socket's reader wait until the loop is down to half that: a
 * server that sends faster than the application handles (or a listener that blocks) is held back
 * by TCP, not buffered in the heap without limit. Only a socket's own thread ever waits: never a
 * pool thread (it would hold a thread other clients need) and never the loop itself.
 *
 * <p>A task that throws is logged; the loop goes on. A task {@link #execute} accepted always runs:
 * if the delegate rejects the loop, the caller that found it rejected runs the queued tasks
 * itself.
 */
final class EventLoop {
  private static final Logger log = LoggerFactory.getLogger(EventLoop.class);

  /** Past this many queued tasks, a frame's submitter waits (see the class comment). */
  static final int MAX_QUEUED = 1024;

  /** On the shared pool, a drain runs at most this many tasks before it lets others run. */
  static final int BATCH = 64;

  private final String name;
  private final Executor delegate;
  /**
   * Whether another loop's drain waits for a thread of this loop's pool (read every BATCH); never,
   * on an executor of the user's.
   */
  private final BooleanSupplier othersWaiting;
  private final Object lock = new Object();
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>(); // guarded by lock
  private boolean scheduled; // guarded by lock: a drain is submitted or running
  private boolean shutdown; // guarded by lock
  private int backlogWaiters; // guarded by lock: readers waiting for the backlog to shrink
  private int waiters; // guarded by lock: callers of awaitTermination
  private Thread runner; // guarded by lock: the thread running a drain, if any
  private volatile boolean warnedRejected; // one warning per loop, then debug

  private EventLoop(String name, Executor delegate, BooleanSupplier othersWaiting) {
    this.name = name;
    this.delegate = delegate;
    this.othersWaiting = othersWaiting;
  }

  /**
   * A loop on the JVM's shared pool (the default): after {@link #BATCH} tasks it hands its thread
   * back if another loop's drain waits for one, and goes on otherwise.
   */
  static EventLoop shared(String name) {
    return pooled(name, LoopPool.shared(), LoopPool::hasWaitingDrains);
  }

  /** A loop that shares {@code pool} with others, handing it back after {@link #BATCH} tasks. */
  static EventLoop pooled(String name, Executor pool) {
    return pooled(name, pool, () -> true); // whether others wait is not known: always
  }

  /**
   * A loop that shares {@code pool} with others, handing it back after {@link #BATCH} tasks when
   * {@code othersWaiting} says a drain of another loop waits for a thread of it.
   */
  static EventLoop pooled(String name, Executor pool, BooleanSupplier othersWaiting) {
    return new EventLoop(name, pool, othersWaiting);
  }

  /** A loop on an executor the user owns (not shut down by {@link #shutdown()}). */
  static EventLoop on(String name, Executor executor) {
    return new EventLoop(name, executor, () -> false);
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
   * #execute}, but past {@link #MAX_QUEUED} queued tasks the caller waits for the loop to catch up
   * (see the class comment). The caller must hold no lock that a task may need.
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
      if (scheduled) {
        if (inbound && queue.size() > MAX_QUEUED && mayWait()) {
          awaitBacklog();
        }
        return true;
      }
      scheduled = true;
    }
    dispatch();
    return true;
  }

  /** A reader may wait for the backlog; the loop itself or a pool thread never does. */
  private boolean mayWait() {
    return runner != Thread.currentThread() && !LoopPool.onPoolThread();
  }

  /** Hands a drain to the delegate ({@code scheduled} is already set). */
  private void dispatch() {
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
  }

  /**
   * Waits (the lock's monitor released while waiting) until the queue is down to half of {@link
   * #MAX_QUEUED}, the loop is shut down, or its drain died of an Error.
   */
  private void awaitBacklog() {
    log.debug("{}: {} tasks queued; the socket's reader waits for the loop", name, queue.size());
    backlogWaiters++;
    try {
      while (queue.size() > MAX_QUEUED / 2 && scheduled && !shutdown) {
        lock.wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop waiting; the task still runs in its turn
    } finally {
      backlogWaiters--;
    }
  }

  /** Returns whether the calling thread is running this loop's tasks. */
  boolean inLoop() {
    synchronized (lock) {
      return runner == Thread.currentThread();
    }
  }

  /**
   * Runs the queued tasks, taking them from the queue a batch at a time (one lock per batch, not
   * per task: the socket's reader contends for it with every frame it queues).
   */
  private void drain() {
    synchronized (lock) {
      runner = Thread.currentThread();
    }
    Runnable[] batch = null;
    int ran = 0;
    while (true) {
      int n;
      synchronized (lock) {
        int queued = queue.size();
        if (queued == 0) {
          scheduled = false;
          runner = null;
          if (waiters > 0 || backlogWaiters > 0) {
            lock.notifyAll(); // awaitTermination, or a reader that waited on the backlog
          }
          return;
        }
        if (ran > 0 && ran % BATCH == 0 && othersWaiting.getAsBoolean()) {
          runner = null; // still scheduled: no other drain starts meanwhile
          break;
        }
        n = Math.min(queued, BATCH - ran % BATCH);
        if (batch == null || batch.length < n) {
          batch = new Runnable[n]; // a drain of one task (a quiet client's frame) makes one slot
        }
        for (int i = 0; i < n; i++) {
          batch[i] = queue.poll();
        }
        if (backlogWaiters > 0 && queue.size() <= MAX_QUEUED / 2) {
          // Only once the backlog is down to what the reader waits for: waking it at every task
          // cost both threads a wake-up per frame, for a reader that went back to waiting.
          lock.notifyAll();
        }
      }
      for (int i = 0; i < n; i++) {
        Runnable task = batch[i];
        batch[i] = null;
        ran++;
        try {
          task.run();
        } catch (VirtualMachineError e) {
          synchronized (lock) {
            for (int j = n - 1; j > i; j--) {
              queue.addFirst(batch[j]); // the rest of the batch stays queued, in order
            }
            scheduled = false;
            runner = null;
            lock.notifyAll();
          }
          throw e;
        } catch (RuntimeException | Error e) {
          log.error("{}: task failed", name, e);
        }
      }
    }
    dispatch(); // at the back of the pool's queue: the other clients' drains go first
  }

  /**
   * Queues {@code last} as the last task and stops accepting tasks, in one step: those accepted
   * before still run, then {@code last}, then nothing. A reader waiting on the backlog stops
   * waiting. Returns whether this call closed the loop ({@code false}: it was closed already, and
   * {@code last} is dropped). The loop's shutdown is the client's one "closed" fact: {@link
   * #isShutdown()}.
   */
  boolean close(Runnable last) {
    synchronized (lock) {
      if (shutdown) {
        return false;
      }
      queue.add(last);
      shutdown = true;
      lock.notifyAll();
      if (scheduled) {
        return true;
      }
      scheduled = true;
    }
    dispatch();
    return true;
  }

  /** Stops accepting tasks; those accepted still run. For a loop no client closes (tests). */
  void shutdown() {
    synchronized (lock) {
      shutdown = true;
      lock.notifyAll();
    }
  }

  /** Whether the loop was closed: it accepts no more tasks. Any thread. */
  boolean isShutdown() {
    synchronized (lock) {
      return shutdown;
    }
  }

  /**
   * Waits until the loop is shut down and has run every task it accepted. Returns at once when
   * called from the loop itself (its last task is the caller).
   *
   * @return whether the loop was done in time
   */
  boolean awaitTermination(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      if (runner == Thread.currentThread()) {
        return shutdown;
      }
      waiters++;
      try {
        while (!(shutdown && !scheduled)) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        }
        return true;
      } finally {
        waiters--;
      }
    }
  }
}
