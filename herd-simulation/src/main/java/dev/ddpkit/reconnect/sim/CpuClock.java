package dev.ddpkit.reconnect.sim;

/**
 * Where a herd run's CPU time comes from. The library reads no CPU clock of its own: the JVM's
 * management beans ({@code java.lang.management}, {@code com.sun.management}) are not on Android,
 * so the command line that has them (chat-sample's {@code herd}) passes a clock built on them, and
 * everyone else gets {@link #NONE}.
 */
public interface CpuClock {
  /** Reports no CPU time: a run is then timed by the wall clock alone. */
  CpuClock NONE =
      new CpuClock() {
        @Override
        public long processCpuNanos() {
          return -1;
        }

        @Override
        public long threadCpuNanos() {
          return -1;
        }
      };

  /** Returns the CPU time every thread of this process has spent, in nanoseconds, or -1. */
  long processCpuNanos();

  /** Returns the CPU time the calling thread has spent, in nanoseconds, or -1. */
  long threadCpuNanos();
}
