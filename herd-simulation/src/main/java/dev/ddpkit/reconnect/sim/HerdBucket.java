package dev.ddpkit.reconnect.sim;

/**
 * The dials that reached the server during one histogram bucket.
 *
 * @param startMs the start of the bucket, in milliseconds after the drop
 * @param refused dials refused while the server was down (1006)
 * @param rejected dials closed with 1013 (over capacity)
 * @param accepted dials admitted
 */
public record HerdBucket(long startMs, int refused, int rejected, int accepted) {
  /** Validates the counts. */
  public HerdBucket {
    if (startMs < 0 || refused < 0 || rejected < 0 || accepted < 0) {
      throw new IllegalArgumentException("negative bucket value: " + startMs);
    }
  }

  /** Returns every dial of the bucket: refused, rejected and accepted. */
  public int total() {
    return refused + rejected + accepted;
  }
}
