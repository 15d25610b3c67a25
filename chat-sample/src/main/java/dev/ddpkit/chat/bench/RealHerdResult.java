package dev.ddpkit.chat.bench;

import dev.ddpkit.reconnect.sim.HerdResult;
import java.util.Objects;

/**
 * The figures of one reconnect wave on real sockets. {@link #herd()} holds them in the shape of
 * the simulation's result (so that {@code HerdReport} can chart them beside the simulation);
 * the rest are what only a real run has.
 *
 * @param herd times (ms after the drop), dials, refusals, 1013s, accepts and buckets; its
 *     horizon is the cap of the run
 * @param peakAcceptsPerSecond the most accepts in any one-second window (sliding by 1 ms)
 * @param peakAcceptsPerWallSecond the most accepts within one wall-clock second, the window the
 *     server's admission control counts in
 * @param loggedIn clients that saw the login answer again (some may lack the subscription)
 * @param serverUpMs when the restarted server listened again, ms after the drop
 * @param peakThreads the most live threads in the JVM during the wave (server included)
 * @param wallMs how long the wave was watched, ms
 */
public record RealHerdResult(
    HerdResult herd,
    int peakAcceptsPerSecond,
    int peakAcceptsPerWallSecond,
    int loggedIn,
    long serverUpMs,
    int peakThreads,
    long wallMs) {

  /** Validates the components. */
  public RealHerdResult {
    Objects.requireNonNull(herd, "herd");
  }

  /** Returns whether every client was back before the cap. */
  public boolean complete() {
    return herd.complete();
  }
}
