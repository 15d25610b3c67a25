package dev.ddpkit.chat.server;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The server's timer thread, on which an {@link Error} in a task is reported to {@link
 * FatalErrors}: a plain scheduled executor keeps a task's error in its future, which nobody reads,
 * and silently stops a periodic task (the heartbeat, the write kick) for good.
 */
final class GuardedTimer extends ScheduledThreadPoolExecutor {
  private final FatalErrors fatalErrors;

  GuardedTimer(String threadName, FatalErrors fatalErrors) {
    super(1, r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      t.setUncaughtExceptionHandler(fatalErrors.uncaught());
      return t;
    });
    this.fatalErrors = fatalErrors;
  }

  @Override
  protected void afterExecute(Runnable task, Throwable thrown) {
    super.afterExecute(task, thrown);
    Throwable error = thrown;
    if (error == null && task instanceof Future<?> f && f.isDone()) {
      try {
        f.get(); // a periodic task is done only if it threw (or was cancelled)
      } catch (ExecutionException e) {
        error = e.getCause();
      } catch (CancellationException e) {
        // cancelled: not an error
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Error e) {
        error = e; // out of memory for the ExecutionException itself: that is the fatal error
      }
    }
    if (error != null) {
      fatalErrors.reportIfFatal(error);
    }
  }
}
