package dev.ddpkit.chat.cli;

import dev.ddpkit.reconnect.sim.CpuClock;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;

/**
 * The JVM's CPU clocks for the {@code herd} command's run time: the process's CPU time from the
 * {@code com.sun.management} extension and the calling thread's from {@link ThreadMXBean}. It lives
 * here, in the command-line module, because the library modules run on Android, which has neither.
 */
public final class JvmCpuClock implements CpuClock {
  /** The one instance. */
  public static final JvmCpuClock INSTANCE = new JvmCpuClock();

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

  private JvmCpuClock() {}

  @Override
  public long processCpuNanos() {
    // The com.sun.management extension is in every OpenJDK build; a runtime without the
    // jdk.management module lacks it, and the run time is then reported without it.
    try {
      if (OS instanceof com.sun.management.OperatingSystemMXBean sun) {
        return sun.getProcessCpuTime();
      }
    } catch (LinkageError e) {
      return -1;
    }
    return -1;
  }

  @Override
  public long threadCpuNanos() {
    return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
  }
}
