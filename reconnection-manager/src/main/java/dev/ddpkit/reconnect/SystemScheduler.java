package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM-wide real-time scheduler: one daemon thread named {@code ddpkit-reconnect}, created
 * lazily, shared by every manager, and ended after {@link #KEEP_ALIVE} with nothing scheduled.
 */
final class SystemScheduler implements Scheduler {
  // Before INSTANCE: the constructor reads it.
  /** How long the thread stays alive with nothing scheduled. */
  static final Duration KEEP_ALIVE = Duration.ofSeconds(2);

  static final SystemScheduler INSTANCE = new SystemScheduler();
  private static final Logger log = LoggerFactory.getLogger(SystemScheduler.class);

  private final ScheduledThreadPoolExecutor executor;

  private SystemScheduler() {
    executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "ddpkit-reconnect");
              t.setDaemon(true);
              return t;
            });
    // Cancelled reconnect timers must not pile up in the queue until their deadline.
    executor.setRemoveOnCancelPolicy(true);
    // With nothing scheduled the thread ends after a short idle time (a new one starts with the
    // next task), so a JVM whose connections are all up, or a test, is left without it. A worker
    // never times out while a task is queued, however far its deadline.
    executor.setKeepAliveTime(KEEP_ALIVE.toNanos(), TimeUnit.NANOSECONDS);
    executor.allowCoreThreadTimeOut(true);
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    // Saturate: a delay past ~292 years means "never", not an ArithmeticException.
    long nanos = VirtualScheduler.plusSaturated(0, delay);
    var future =
        executor.schedule(
            () -> {
              try {
                task.run();
              } catch (RuntimeException | Error e) {
                // The one shared thread must survive whatever a task does.
                log.error("Scheduled task failed", e);
              }
            },
            nanos,
            TimeUnit.NANOSECONDS);
    return () -> future.cancel(/* mayInterruptIfRunning= */ false);
  }
}
