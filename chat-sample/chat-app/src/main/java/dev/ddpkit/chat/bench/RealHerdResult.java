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
 * @param dropNoticedP50Ms when half of the clients had noticed the drop, ms after it (-1: fewer)
 * @param dropNoticedMaxMs when the last client had noticed the drop, ms after it (-1: not all did)
 * @param serverUpMs when the restarted server listened again, ms after the drop
 * @param peakThreads the most live threads in the JVM during the wave (server included)
 * @param wallMs how long the wave was watched, ms
 * @param synDrops SYNs the kernel dropped on full listen queues during the wave (machine-wide
 *     {@code ListenDrops}; -1 if unknown): each is a dial its TCP retried 1 s or more later
 */
public record RealHerdResult(
    HerdResult herd,
    int peakAcceptsPerSecond,
    int peakAcceptsPerWallSecond,
    int loggedIn,
    long dropNoticedP50Ms,
    long dropNoticedMaxMs,
    long serverUpMs,
    int peakThreads,
    long wallMs,
    long synDrops) {

  /** Validates the components. */
  public RealHerdResult {
    Objects.requireNonNull(herd, "herd");
  }

  /** Returns whether every client was back before the cap. */
  public boolean complete() {
    return herd.complete();
  }
}
