package dev.ddpkit.reconnect.sim;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How long one herd run took on this machine: wall time, the CPU time of the whole process (the
 * simulation thread plus the garbage collector's and the JIT compiler's threads) and of the
 * simulation thread alone. Unlike a {@link HerdResult} it is not a function of the configuration:
 * it is reported beside the figures, never among them. The CPU figures come from the {@link
 * CpuClock} the caller passes; with {@link CpuClock#NONE} only the wall time is reported.
 *
 * @param wall the wall time of the run
 * @param processCpu the CPU time of every thread of the JVM during the run, or {@code null} if
 *     the JVM does not report it
 * @param threadCpu the CPU time of the thread that ran the simulation, or {@code null} if the JVM
 *     does not report it
 */
public record HerdTiming(Duration wall, Duration processCpu, Duration threadCpu) {

  /** Validates the components. */
  public HerdTiming {
    Objects.requireNonNull(wall, "wall");
  }

  /**
   * Starts measuring on the calling thread, reading CPU time from {@code cpu}; {@link
   * Stopwatch#stop()} on the same thread.
   */
  public static Stopwatch start(CpuClock cpu) {
    return new Stopwatch(Objects.requireNonNull(cpu, "cpu"));
  }

  /** Returns the CPU time the process spent, in milliseconds, or -1 if unknown. */
  public long processCpuMillis() {
    return processCpu == null ? -1 : processCpu.toMillis();
  }

  /** Returns the CPU time of the simulation thread, in milliseconds, or -1 if unknown. */
  public long threadCpuMillis() {
    return threadCpu == null ? -1 : threadCpu.toMillis();
  }

  /**
   * Returns one line for the text report, the policy's name padded as in the table: {@code "run
   * time fixed           6.21 s wall,  9.84 s CPU (5.02 s on the simulation thread, the rest GC
   * and JIT)"}; a figure the JVM does not report is left out.
   */
  public String line(String policy) {
    StringBuilder sb =
        new StringBuilder(
            String.format(Locale.ROOT, "run time %-14s %7s wall", policy, seconds(wall)));
    if (processCpu != null) {
      sb.append(String.format(Locale.ROOT, ", %7s CPU", seconds(processCpu)));
      if (threadCpu != null) {
        sb.append(" (")
            .append(seconds(threadCpu))
            .append(" on the simulation thread, the rest GC and JIT)");
      }
    } else if (threadCpu != null) {
      sb.append(", ").append(seconds(threadCpu)).append(" CPU on the simulation thread");
    }
    return sb.toString();
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.2f s", d.toNanos() / 1e9);
  }

  /** A measurement in progress, started by {@link HerdTiming#start(CpuClock)}. */
  public static final class Stopwatch {
    private final CpuClock cpu;
    private final long wallStart = System.nanoTime();
    private final long processStart;
    private final long threadStart;

    private Stopwatch(CpuClock cpu) {
      this.cpu = cpu;
      this.processStart = cpu.processCpuNanos();
      this.threadStart = cpu.threadCpuNanos();
    }

    /** Returns the time since {@link HerdTiming#start(CpuClock)}. */
    public HerdTiming stop() {
      long wall = System.nanoTime() - wallStart;
      long process = cpu.processCpuNanos();
      long thread = cpu.threadCpuNanos();
      return new HerdTiming(
          Duration.ofNanos(wall),
          process < 0 || processStart < 0 ? null : Duration.ofNanos(process - processStart),
          thread < 0 || threadStart < 0 ? null : Duration.ofNanos(thread - threadStart));
    }
  }
}
