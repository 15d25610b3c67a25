package dev.ddpkit.reconnect;

/** A monotonic source of time in nanoseconds, injectable so tests and simulations run on virtual time. */
@FunctionalInterface
public interface Ticker {
  /** Returns the current time in nanoseconds from an arbitrary fixed origin. */
  long read();

  /** Returns a ticker backed by {@link System#nanoTime()}. */
  static Ticker systemTicker() {
    return System::nanoTime;
  }
}
