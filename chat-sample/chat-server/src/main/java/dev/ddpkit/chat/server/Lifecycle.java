package dev.ddpkit.chat.server;

import java.util.concurrent.CountDownLatch;

/**
 * The one-way life of a {@link ChatServer}: {@code NEW -> STARTING -> RUNNING -> STOPPING ->
 * TERMINATED} (or {@code NEW -> TERMINATED} for one stopped before it started), each move made
 * under this object's monitor, and a wait for whichever thread is making the last one.
 */
final class Lifecycle {
  /** Where the server is in its life. */
  enum State { NEW, STARTING, RUNNING, STOPPING, TERMINATED }

  private final CountDownLatch terminated = new CountDownLatch(1);
  // Guarded by this.
  private State state = State.NEW;

  /**
   * NEW to STARTING.
   *
   * @throws IllegalStateException if the server was started (or stopped) before
   */
  synchronized void beginStart() {
    if (state != State.NEW) {
      throw new IllegalStateException("server can be started once; it is " + state);
    }
    state = State.STARTING;
  }

  /** STARTING to RUNNING. */
  synchronized void started() {
    if (state != State.STARTING) {
      throw new AssertionError("Unexpected state: " + state);
    }
    state = State.RUNNING;
  }

  /**
   * Begins a stop: true for the one caller that moves RUNNING to STOPPING (it must then call
   * {@link #terminated()}); false for a server never started (now TERMINATED) and for every other
   * caller, which first waits until the thread starting or stopping the server is done.
   */
  boolean beginStop() {
    synchronized (this) {
      switch (state) {
        case NEW:
          state = State.TERMINATED;
          terminated.countDown();
          return false;
        case RUNNING:
          state = State.STOPPING;
          return true;
        case STARTING:
        case STOPPING:
        case TERMINATED:
          break;
        default:
          throw new AssertionError("Unexpected state: " + state);
      }
    }
    try {
      terminated.await(); // another thread is starting or stopping it: wait for that
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  /** The last move: a start that failed, or a stop that is done. */
  void terminated() {
    synchronized (this) {
      state = State.TERMINATED;
    }
    terminated.countDown();
  }

  /**
   * Checks that the server is running.
   *
   * @throws IllegalStateException if it is not
   */
  synchronized void requireRunning() {
    if (state != State.RUNNING) {
      throw new IllegalStateException("server is not running: " + state);
    }
  }
}
