package dev.ddpkit.reconnect.sim;

import static com.google.common.collect.ImmutableList.toImmutableList;

import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Which curve for my deployment? Runs one herd scenario (N, C, D, hints, planned) for a family of
 * backoff curves, the presets over a grid of base and cap, and keeps the <em>Pareto front</em>:
 * the curves that no other curve beats on all three of time to all back, peak arrivals per C and
 * dials per client. The RFC curve's place is reported against it. Pure: same scenario, same
 * sweep.
 *
 * <p>The grid is small on purpose (a sweep at 10,000 clients takes seconds): bases 250 ms, 1 s
 * and 3 s, caps 10 s and 60 s, for rfc, full jitter and proportional, plus fixed 1 s and 5 s and
 * Meteor's preset.
 */
public final class HerdSweep {
  static final List<Duration> BASES =
      List.of(Duration.ofMillis(250), Duration.ofSeconds(1), Duration.ofSeconds(3));
  static final List<Duration> CAPS = List.of(Duration.ofSeconds(10), Duration.ofSeconds(60));
  static final List<Duration> FIXED = List.of(Duration.ofSeconds(1), Duration.ofSeconds(5));
  /** The RFC preset, {@link Backoff#rfc()}: 1 s doubling to 60 s. */
  static final Curve RFC_PRESET =
      new Curve("rfc", Duration.ofSeconds(1), Duration.ofSeconds(60), Backoff.rfc());

  private HerdSweep() {}

  /**
   * One curve of the family.
   *
   * @param family the preset's command-line name
   * @param base its base delay
   * @param cap its cap, or {@code null} for a curve that has none (fixed, meteor)
   * @param backoff the curve
   */
  public record Curve(String family, Duration base, Duration cap, Backoff backoff) {
    /** Validates the components. */
    public Curve {
      Objects.requireNonNull(family, "family");
      Objects.requireNonNull(base, "base");
      Objects.requireNonNull(backoff, "backoff");
    }

    /** Returns {@code "full-jitter 250 ms/10 s"}, {@code "fixed 5 s"}. */
    public String label() {
      return family + " " + duration(base) + (cap == null ? "" : "/" + duration(cap));
    }
  }

  /**
   * One curve's figures.
   *
   * @param curve the curve
   * @param result its herd run
   */
  public record Point(Curve curve, HerdResult result) {
    /** Validates the components. */
    public Point {
      Objects.requireNonNull(curve, "curve");
      Objects.requireNonNull(result, "result");
    }

    /** Time to all back in ms; {@link Long#MAX_VALUE} if not all were back by the horizon. */
    public long allBackMs() {
      return result.complete() ? result.maxMs().getAsLong() : Long.MAX_VALUE;
    }

    /** The most dials the server had to answer in one second, per unit of capacity. */
    public double peakPerC() {
      return (double) result.peakPerSecond() / result.config().capacity();
    }

    /** Dials per client, refused ones included: what a client pays. */
    public double dialsPerClient() {
      return result.attemptsPerClient();
    }

    /** Whether this point is at least as good on all three figures and better on one. */
    public boolean dominates(Point o) {
      boolean noWorse =
          allBackMs() <= o.allBackMs()
              && result.peakPerSecond() <= o.result.peakPerSecond()
              && result.dials() <= o.result.dials();
      boolean better =
          allBackMs() < o.allBackMs()
              || result.peakPerSecond() < o.result.peakPerSecond()
              || result.dials() < o.result.dials();
      return noWorse && better;
    }
  }

  /**
   * A sweep's outcome.
   *
   * @param scenario the scenario every curve ran (its policy is not used)
   * @param points every curve's point, in grid order
   * @param front the points no other point dominates, fastest first
   * @param rfc the RFC preset's point
   */
  public record Result(HerdConfig scenario, List<Point> points, List<Point> front, Point rfc) {
    /** Validates and copies the components. */
    public Result {
      Objects.requireNonNull(scenario, "scenario");
      points = List.copyOf(points);
      front = List.copyOf(front);
      Objects.requireNonNull(rfc, "rfc");
    }

    /** The points that dominate the RFC preset's, fastest first; empty if it is on the front. */
    public List<Point> beatingRfc() {
      return front.stream().filter(p -> p.dominates(rfc)).collect(toImmutableList());
    }
  }

  /** Returns the curves of the sweep, in order; the RFC preset is among them. */
  public static List<Curve> curves() {
    List<Curve> curves = new ArrayList<>();
    grid(curves, "rfc", Backoff::rfc);
    grid(curves, "full-jitter", Backoff::fullJitter);
    grid(curves, "proportional", (base, cap) -> Backoff.proportional(base, cap, 0.25));
    for (Duration d : FIXED) {
      curves.add(new Curve("fixed", d, null, Backoff.fixed(d)));
    }
    curves.add(new Curve("meteor", Duration.ofSeconds(1), Duration.ofMinutes(5), Backoff.meteor()));
    return List.copyOf(curves);
  }

  private static void grid(
      List<Curve> out, String family, BiFunction<Duration, Duration, Backoff> make) {
    for (Duration base : BASES) {
      for (Duration cap : CAPS) {
        boolean preset =
            family.equals("rfc") && base.equals(RFC_PRESET.base()) && cap.equals(RFC_PRESET.cap());
        if (preset) {
          out.add(RFC_PRESET);
        } else {
          out.add(new Curve(family, base, cap, make.apply(base, cap)));
        }
      }
    }
  }

  /**
   * Runs {@code scenario} for every curve of {@link #curves()}, the curves in parallel on up to
   * {@code threads} threads ({@code herd-sweep-N}, stopped before this returns): each run has its
   * own virtual clock, so the result does not depend on how many.
   */
  public static Result run(HerdConfig scenario, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be 1 or more: " + threads);
    }
    List<Curve> curves = curves();
    AtomicInteger named = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(threads, curves.size()),
            task -> {
              Thread t = new Thread(task, "herd-sweep-" + named.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<HerdResult>> runs = new ArrayList<>();
      for (Curve c : curves) {
        runs.add(pool.submit(() -> HerdSimulation.run(scenario, c.backoff())));
      }
      List<Point> points = new ArrayList<>();
      Point rfc = null;
      for (int i = 0; i < curves.size(); i++) {
        Point p = new Point(curves.get(i), get(runs.get(i)));
        points.add(p);
        if (p.curve() == RFC_PRESET) {
          rfc = p;
        }
      }
      return new Result(scenario, points, front(points), rfc);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Runs the sweep on as many threads as there are processors. */
  public static Result run(HerdConfig scenario) {
    return run(scenario, Runtime.getRuntime().availableProcessors());
  }

  private static HerdResult get(Future<HerdResult> run) {
    try {
      return run.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("sweep interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a sweep run failed: " + e.getCause(), e.getCause());
    }
  }

  /** The points no other point dominates, fastest first (then fewest dials, then gentlest). */
  static List<Point> front(List<Point> points) {
    List<Point> front = new ArrayList<>();
    for (Point p : points) {
      if (points.stream().noneMatch(o -> o.dominates(p))) {
        front.add(p);
      }
    }
    front.sort(
        Comparator.comparingLong(Point::allBackMs)
            .thenComparingLong(p -> p.result().dials())
            .thenComparingInt(p -> p.result().peakPerSecond()));
    return front;
  }

  static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms % 60_000 == 0 && ms >= 120_000) {
      return ms / 60_000 + " min";
    }
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
  }
}
