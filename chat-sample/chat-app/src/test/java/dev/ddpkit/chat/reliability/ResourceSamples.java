package dev.ddpkit.chat.reliability;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The heap after a full GC and the live thread count, sampled at a fixed period during a long run:
 * a leak shows as a slope. {@link #lines()} prints the series and the least-squares slope of each
 * per hour, for the chaos report.
 */
final class ResourceSamples {
  /**
   * One sample: minutes since the start, heap used after a full GC (bytes), live threads, and how
   * many clients were connected then (-1: not known).
   */
  record Sample(double minutes, long heapBytes, int threads, int connected) {
    Sample(double minutes, long heapBytes, int threads) {
      this(minutes, heapBytes, threads, -1);
    }
  }

  private final List<Sample> samples = new ArrayList<>();
  private final LongSupplier heapAfterGc;
  private final LongSupplier threads;
  private final IntSupplier connected;

  /**
   * Samples this JVM: {@code MemoryMXBean.gc()} then the heap used, and the thread count; {@code
   * connected} counts the clients connected at the time.
   */
  ResourceSamples(IntSupplier connected) {
    this(() -> {
      ManagementFactory.getMemoryMXBean().gc();
      return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }, () -> ManagementFactory.getThreadMXBean().getThreadCount(), connected);
  }

  ResourceSamples(LongSupplier heapAfterGc, LongSupplier threads) {
    this(heapAfterGc, threads, () -> -1);
  }

  ResourceSamples(LongSupplier heapAfterGc, LongSupplier threads, IntSupplier connected) {
    this.heapAfterGc = heapAfterGc;
    this.threads = threads;
    this.connected = connected;
  }

  /** Takes one sample at {@code minutes} into the run and returns it. */
  synchronized Sample sample(double minutes) {
    long heap = heapAfterGc.getAsLong(); // the full GC first: the counts that follow are current
    Sample s = new Sample(minutes, heap, (int) threads.getAsLong(), connected.getAsInt());
    samples.add(s);
    return s;
  }

  /** The samples so far, oldest first. */
  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  /**
   * The least-squares slope of {@code value} over the samples' minutes, per hour; 0 with fewer
   * than two samples.
   */
  static double slopePerHour(List<Sample> series, ToDoubleFunction<Sample> value) {
    int n = series.size();
    if (n < 2) {
      return 0;
    }
    double mx = series.stream().mapToDouble(Sample::minutes).average().orElse(0);
    double my = series.stream().mapToDouble(value).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    for (Sample s : series) {
      double dx = s.minutes() - mx;
      sxy += dx * (value.applyAsDouble(s) - my);
      sxx += dx * dx;
    }
    return sxx == 0 ? 0 : sxy / sxx * 60;
  }

  /** The series and its slopes, for the report. */
  List<String> lines() {
    List<Sample> series = samples();
    List<String> out = new ArrayList<>();
    StringBuilder heap = new StringBuilder();
    StringBuilder thr = new StringBuilder();
    for (Sample s : series) {
      heap.append(String.format(" %.1f:%.1f", s.minutes(), s.heapBytes() / 1048576.0));
      thr.append(String.format(" %.1f:%d", s.minutes(), s.threads()));
    }
    out.add(String.format("heap after full GC, MiB   %d samples (minute:MiB)%s", series.size(),
        heap));
    out.add(String.format("  slope                   %+.2f MiB/h",
        slopePerHour(series, s -> s.heapBytes() / 1048576.0)));
    out.add(String.format("live threads              %d samples (minute:threads)%s",
        series.size(), thr));
    out.add(String.format("  slope                   %+.1f threads/h",
        slopePerHour(series, Sample::threads)));
    return out;
  }

  /**
   * The first {@code top} rows of this JVM's class histogram of live objects (a full GC first), as
   * {@code jcmd GC.class_histogram} prints them; one line saying why if it cannot be had.
   */
  static List<String> histogram(int top) {
    try {
      Object text = ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
          new Object[] {new String[0]}, new String[] {String[].class.getName()});
      List<String> rows = String.valueOf(text).lines().limit(top + 2L).toList();
      List<String> out = new ArrayList<>();
      out.add("live objects at the end (class histogram, first " + top + " rows):");
      rows.forEach(r -> out.add("  " + r));
      return out;
    } catch (JMException | RuntimeException e) {
      return List.of("live objects at the end: no class histogram (" + e + ")");
    }
  }

  /**
   * {@link #lines()}, then the slopes where a leak is not hidden by the run's own phases: over the
   * samples taken while at least 95 % of the {@code clients} were connected (an outage closes every
   * socket, and its threads, for a while; a blackhole holds a few clients off at almost any
   * moment, so "all" would keep almost no sample), and over those of them in the second half of
   * the run (the first half also fills caches up to their bounds, such as each client's window of
   * recent message ids).
   */
  List<String> lines(int clients) {
    List<String> out = lines();
    List<Sample> series = samples();
    int enough = (int) Math.ceil(clients * 0.95);
    List<Sample> steady = series.stream().filter(s -> s.connected() >= enough).toList();
    out.add(String.format("  slope, the %d of %d samples with at least %d of %d clients connected:"
            + " %+.2f MiB/h, %+.1f threads/h", steady.size(), series.size(), enough, clients,
        slopePerHour(steady, s -> s.heapBytes() / 1048576.0),
        slopePerHour(steady, Sample::threads)));
    double half = series.isEmpty() ? 0 : series.get(series.size() - 1).minutes() / 2;
    List<Sample> late = steady.stream().filter(s -> s.minutes() >= half).toList();
    out.add(String.format("  slope, the %d of those from minute %.1f on: %+.2f MiB/h,"
            + " %+.1f threads/h", late.size(), half,
        slopePerHour(late, s -> s.heapBytes() / 1048576.0), slopePerHour(late, Sample::threads)));
    return out;
  }
}
