package dev.ddpkit.bench.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java consumer's process CPU reading: finer than the 10 ms clock tick that the MXBean's
 * process CPU time moves by on Linux, in milliseconds of every thread (at least what this thread
 * ran), and never going back when a thread that ran ends.
 */
class ScheduledTimeTest {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  @Test
  void processCpuIsReadFinerThanAClockTickAndCountsThisThread() {
    double first = JavaConsumer.ScheduledTime.processMillis();
    assumeTrue(first >= 0, "no /proc/self/task/*/schedstat here");
    long threadFirst = THREADS.getCurrentThreadCpuTime();
    double smallestStep = Double.MAX_VALUE;
    double last = first;
    long end = System.nanoTime() + 500_000_000L;
    long spin = 0;
    while (System.nanoTime() < end && (smallestStep >= 5 || last - first < 50)) {
      spin = burn(spin, 100_000);
      double now = JavaConsumer.ScheduledTime.processMillis();
      if (now > last) {
        smallestStep = Math.min(smallestStep, now - last);
        last = now;
      }
    }
    double threadMillis = (THREADS.getCurrentThreadCpuTime() - threadFirst) / 1e6;
    assertThat(spin).isNotZero(); // the loop's work is used, so it is not removed
    assertThat(smallestStep).as("smallest step between readings, ms").isLessThan(5);
    assertThat(last - first).as("process CPU over the loop, ms, against this thread's %.1f",
        threadMillis).isGreaterThanOrEqualTo(threadMillis - 1);
  }

  @Test
  void aThreadThatEndsTakesNothingBackFromTheTotal(@TempDir Path tasks) throws Exception {
    JavaConsumer.ScheduledTime time = new JavaConsumer.ScheduledTime(tasks);
    assertThat(time.millis()).as("no thread listed").isEqualTo(-1);
    thread(tasks, "101", "5000000 200 3");
    thread(tasks, "102", "2000000 100 1");
    assertThat(time.millis()).isEqualTo(7.0);

    thread(tasks, "101", "9000000 200 4"); // ran 4 ms more
    deleteThread(tasks, "102"); // ended: its 2 ms stay counted
    thread(tasks, "103", "1000000 0 1"); // a new one
    assertThat(time.millis()).isEqualTo(12.0);

    Files.writeString(tasks.resolve("101").resolve("schedstat"), "not a number");
    assertThat(time.millis()).as("an unreadable thread counts its last reading").isEqualTo(12.0);

    deleteThread(tasks, "101");
    deleteThread(tasks, "103");
    Files.delete(tasks);
    assertThat(time.millis()).as("a directory that cannot be listed: the last total").isEqualTo(12.0);
  }

  private static void thread(Path tasks, String tid, String schedstat) throws Exception {
    Files.createDirectories(tasks.resolve(tid));
    Files.writeString(tasks.resolve(tid).resolve("schedstat"), schedstat + "\n");
  }

  private static void deleteThread(Path tasks, String tid) throws Exception {
    Files.delete(tasks.resolve(tid).resolve("schedstat"));
    Files.delete(tasks.resolve(tid));
  }

  private static long burn(long spin, int rounds) {
    for (int i = 0; i < rounds; i++) {
      spin += i ^ spin;
    }
    return spin;
  }
}
