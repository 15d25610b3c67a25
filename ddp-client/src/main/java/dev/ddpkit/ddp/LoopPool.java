package dev.ddpkit.ddp;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one small pool per JVM on which every client's {@link EventLoop} runs by default: {@link
 * #SIZE} daemon threads named {@code ddpkit-loop-N}, started when first needed and ended after
 * {@link #IDLE} without work. So a connected client costs the socket's two threads only, however
 * many clients there are.
 *
 * <p>The pool runs loops' drains, never raw tasks: a loop has at most one drain submitted at a
 * time, so the pool's queue holds at most one entry per client, and a drain hands its thread back
 * after {@link EventLoop#BATCH} tasks when another client's drain is queued, so that a busy client
 * does not keep others waiting.
 *
 * <p>The threads live in a thread group of their own under the JVM's root group, not in the group
 * of whichever thread happened to start them (a socket's reader, say, whose group is awaited when
 * that socket closes).
 */
final class LoopPool {
  /** The pool's size: at least 2, else the machine's processors. */
  static final int SIZE = Math.max(2, Runtime.getRuntime().availableProcessors());

  /** A thread with nothing to run for this long ends; the next task starts a new one. */
  static final Duration IDLE = Duration.ofSeconds(30);

  /** The prefix of the pool threads' names. */
  static final String THREAD_PREFIX = "ddpkit-loop-";

  private LoopPool() {}

  /** The shared pool; created on first use. */
  static Executor shared() {
    return Holder.POOL;
  }

  /**
   * Returns whether a loop's drain is queued, waiting for a pool thread (a cheap read of the
   * queue's count): a long drain hands its thread back only then ({@link EventLoop}).
   */
  static boolean hasWaitingDrains() {
    return !Holder.POOL.getQueue().isEmpty();
  }

  /** Returns whether the calling thread is one of the pool's. */
  static boolean onPoolThread() {
    return Thread.currentThread() instanceof LoopThread;
  }

  /** A pool thread: a type of its own so that {@link #onPoolThread()} needs no name matching. */
  private static final class LoopThread extends Thread {
    LoopThread(ThreadGroup group, Runnable r, String name) {
      super(group, r, name);
      setDaemon(true);
      // Not the loader of whichever thread started it: a pool thread outlives its starter.
      setContextClassLoader(LoopPool.class.getClassLoader());
    }
  }

  private static final class Holder {
    static final ThreadPoolExecutor POOL = create();

    private static ThreadPoolExecutor create() {
      ThreadGroup root = Thread.currentThread().getThreadGroup();
      while (root.getParent() != null) {
        root = root.getParent();
      }
      ThreadGroup group = new ThreadGroup(root, "ddpkit-loop");
      AtomicInteger ids = new AtomicInteger();
      // Unbounded in type only: each client queues at most one drain (see the class comment).
      ThreadPoolExecutor pool = new ThreadPoolExecutor(SIZE, SIZE, IDLE.toMillis(),
          TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
          r -> new LoopThread(group, r, THREAD_PREFIX + ids.incrementAndGet()));
      pool.allowCoreThreadTimeOut(true);
      return pool;
    }
  }
}
