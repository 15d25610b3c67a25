package dev.ddpkit.reconnect.sim;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The figures of one herd run. Times are milliseconds after the drop; a time that was not reached
 * before the horizon is empty. Everything here is a pure function of the {@link HerdConfig}: the
 * same configuration (and seed) gives an equal result.
 *
 * @param config the scenario that was run
 * @param clientsBack how many clients were connected again when the run stopped
 * @param p50Ms when half of the clients were back
 * @param p99Ms when 99 % of the clients were back
 * @param maxMs when the last client was back
 * @param dials connection attempts after the drop, by every client
 * @param refused dials refused while the server was down (1006)
 * @param rejected dials closed with 1013 (over capacity)
 * @param accepted dials admitted (equals {@code clientsBack})
 * @param peakPerSecond the most dials the server had to answer (accepted plus 1013) in any window
 *     of one second (windows slide by 1 ms)
 * @param peakPerSecondDown the most dials refused in any one second while the server was down
 * @param peakAcceptedPerSecond the most dials admitted in any window of one second (windows slide
 *     by 1 ms), or -1 where it was not measured
 * @param buckets the dials per bucket, from t=0 to the bucket of the last dial
 */
public record HerdResult(
    HerdConfig config,
    int clientsBack,
    OptionalLong p50Ms,
    OptionalLong p99Ms,
    OptionalLong maxMs,
    long dials,
    long refused,
    long rejected,
    long accepted,
    int peakPerSecond,
    int peakPerSecondDown,
    int peakAcceptedPerSecond,
    List<HerdBucket> buckets) {

  /** Validates and copies the components. */
  public HerdResult {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(p50Ms, "p50Ms");
    Objects.requireNonNull(p99Ms, "p99Ms");
    Objects.requireNonNull(maxMs, "maxMs");
    buckets = List.copyOf(buckets);
  }

  /** A result whose peak of admissions per second was not measured (-1). */
  public HerdResult(
      HerdConfig config,
      int clientsBack,
      OptionalLong p50Ms,
      OptionalLong p99Ms,
      OptionalLong maxMs,
      long dials,
      long refused,
      long rejected,
      long accepted,
      int peakPerSecond,
      int peakPerSecondDown,
      List<HerdBucket> buckets) {
    this(
        config, clientsBack, p50Ms, p99Ms, maxMs, dials, refused, rejected, accepted,
        peakPerSecond, peakPerSecondDown, -1, buckets);
  }

  /**
   * Returns the dials the server answered (admitted or 1013) per client: the dials that reached
   * it once it was up. Without the 1006 refusals of the downtime, which no hint can prevent.
   */
  public double answeredPerClient() {
    return (double) (accepted + rejected) / config.clients();
  }

  /** Returns whether every client was back before the horizon. */
  public boolean complete() {
    return clientsBack == config.clients();
  }

  /** Returns the policy's command-line name. */
  public String policyName() {
    return config.policy().cliName();
  }

  /** Returns the dials per client (1.0 at best: each client dials once and is admitted). */
  public double attemptsPerClient() {
    return (double) dials / config.clients();
  }

  /** Returns the physical limit {@code D + N/C} in milliseconds (see {@link HerdConfig#limitMillis()}). */
  public long limitMs() {
    return config.limitMillis();
  }
}
