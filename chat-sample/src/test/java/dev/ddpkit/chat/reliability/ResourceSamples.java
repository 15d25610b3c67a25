package dev.ddpkit.chat.reliability;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The heap after a full GC and the live thread count, sampled at a fixed period during a long run:
 * a leak shows as a slope. {@link #lines()} prints the series and the least-squares slope of each
 * per hour, for the chaos report.
 */
final class ResourceSamples {
  /** One sample: minutes since the start, heap used after a full GC (bytes), live threads. */
  record Sample(double minutes, long heapBytes, int threads) {}

  private final List<Sample> samples = new ArrayList<>();
  private final LongSupplier heapAfterGc;
  private final LongSupplier threads;

  /** Samples this JVM: {@code MemoryMXBean.gc()} then the heap used, and the thread count. */
  ResourceSamples() {
    this(() -> {
      ManagementFactory.getMemoryMXBean().gc();
      return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }, () -> ManagementFactory.getThreadMXBean().getThreadCount());
  }

  ResourceSamples(LongSupplier heapAfterGc, LongSupplier threads) {
    this.heapAfterGc = heapAfterGc;
    this.threads = threads;
  }

  /** Takes one sample at {@code minutes} into the run and returns it. */
  synchronized Sample sample(double minutes) {
    Sample s = new Sample(minutes, heapAfterGc.getAsLong(), (int) threads.getAsLong());
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
}
