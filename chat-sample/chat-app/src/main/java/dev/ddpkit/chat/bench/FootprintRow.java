package dev.ddpkit.chat.bench;

/**
 * One measurement of the footprint benchmark: {@code clients} idle clients connected, logged in
 * and subscribed, after full GCs; deltas are against the same JVM before the first client.
 *
 * @param mode how the clients run (see {@link Footprint.Mode})
 * @param clients clients alive
 * @param threads live threads minus the baseline
 * @param heapBytes used heap after GC minus the baseline
 * @param rssBytes resident set size minus the baseline (-1 where /proc is not available)
 */
public record FootprintRow(Footprint.Mode mode, int clients, int threads, long heapBytes,
    long rssBytes) {

  /** Threads per client. */
  public double threadsPerClient() {
    return (double) threads / clients;
  }

  /** Retained heap per client, KiB. */
  public double heapKibPerClient() {
    return heapBytes / 1024.0 / clients;
  }

  /** Resident memory per client, KiB (negative if unknown). */
  public double rssKibPerClient() {
    return rssBytes < 0 ? -1 : rssBytes / 1024.0 / clients;
  }
}
