package dev.ddpkit.reconnect;

/** A handle to a scheduled task. */
@FunctionalInterface
public interface Cancellable {
  /** Cancels the task if it has not run yet; a no-op otherwise. Never interrupts a running task. */
  void cancel();
}
