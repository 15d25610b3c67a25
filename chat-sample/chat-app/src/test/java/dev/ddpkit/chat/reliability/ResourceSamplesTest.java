package dev.ddpkit.chat.reliability;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The long run's leak check: the series it prints and the slope it computes, on made-up samples. */
@Timeout(value = 5, unit = SECONDS)
class ResourceSamplesTest {
  @Test
  void theSlopeIsTheLeastSquaresFitPerHour() {
    List<ResourceSamples.Sample> rising = List.of(
        new ResourceSamples.Sample(0, 100, 10),
        new ResourceSamples.Sample(1, 102, 10),
        new ResourceSamples.Sample(2, 104, 10),
        new ResourceSamples.Sample(3, 106, 10));
    assertThat(ResourceSamples.slopePerHour(rising, ResourceSamples.Sample::heapBytes))
        .isCloseTo(120.0, within(1e-9)); // 2 per minute
    assertThat(ResourceSamples.slopePerHour(rising, ResourceSamples.Sample::threads)).isZero();
    // Noise around a flat line: the fit, not the last minus the first.
    List<ResourceSamples.Sample> noisy = List.of(
        new ResourceSamples.Sample(0, 10, 0),
        new ResourceSamples.Sample(1, 14, 0),
        new ResourceSamples.Sample(2, 10, 0),
        new ResourceSamples.Sample(3, 14, 0));
    assertThat(ResourceSamples.slopePerHour(noisy, ResourceSamples.Sample::heapBytes))
        .isCloseTo(48.0, within(1e-9)); // sxy = 6, sxx = 5: 1.2 per minute
    assertThat(ResourceSamples.slopePerHour(noisy.subList(0, 1),
        ResourceSamples.Sample::heapBytes)).isZero();
  }

  @Test
  void theLinesShowTheSeriesAndTheSlopes() {
    Iterator<Long> heap = List.of(1L << 20, 3L << 20).iterator();
    Iterator<Long> threads = List.of(40L, 46L).iterator();
    ResourceSamples samples = new ResourceSamples(heap::next, threads::next);
    samples.sample(0);
    samples.sample(1);

    assertThat(samples.lines()).containsExactly(
        "heap after full GC, MiB   2 samples (minute:MiB) 0.0:1.0 1.0:3.0",
        "  slope                   +120.00 MiB/h",
        "live threads              2 samples (minute:threads) 0.0:40 1.0:46",
        "  slope                   +360.0 threads/h");
  }

  @Test
  void theSteadyAndTheLateSlopesLeaveOutOutagesAndTheFillingFirstHalf() {
    Iterator<Long> heap = List.of(10L << 20, 20L << 20, 30L << 20, 30L << 20, 30L << 20).iterator();
    Iterator<Long> threads = List.of(100L, 60L, 100L, 100L, 100L).iterator();
    Iterator<Integer> connected = List.of(20, 1, 19, 20, 20).iterator(); // of 20 clients
    ResourceSamples samples = new ResourceSamples(heap::next, threads::next, connected::next);
    for (int minute = 0; minute < 5; minute++) {
      samples.sample(minute);
    }
    List<String> lines = samples.lines(20);
    assertThat(lines).hasSize(6);
    assertThat(lines.get(0)).isEqualTo(samples.lines().get(0));
    // Samples 0, 2, 3, 4 (at least 19 of 20 connected; a blackhole may hold one off): threads
    // flat; the heap still fills from 10 to 30 (least squares: 308.57 MiB/h).
    assertThat(lines.get(4)).isEqualTo(
        "  slope, the 4 of 5 samples with at least 19 of 20 clients connected: +308.57 MiB/h,"
            + " +0.0 threads/h");
    // From minute 2 on: heap flat, threads flat.
    assertThat(lines.get(5)).isEqualTo(
        "  slope, the 3 of those from minute 2.0 on: +0.00 MiB/h, +0.0 threads/h");
  }
}
