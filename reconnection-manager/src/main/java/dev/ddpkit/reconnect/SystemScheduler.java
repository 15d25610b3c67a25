package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The JVM-wide real-time scheduler: one daemon thread, created lazily, shared by every manager. */
final class SystemScheduler implements Scheduler {
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
