package dev.ddpkit.reconnect.sim;

/**
 * One random stream per client, the streams a {@link java.util.SplittableRandom} of the master
 * seed hands out with {@code split()} in client order, kept as two longs in a client's row of a
 * table instead of an object each (a million clients: 16 MB instead of 48 MB and a million objects
 * for the collector), beside the client's other state so that a report touches one cache line.
 *
 * <p>The arithmetic is SplittableRandom's (SplitMix64, Steele, Lea and Flood, OOPSLA 2014): a
 * stream is a seed advanced by its gamma and mixed. {@code ClientRandomsTest} checks draw for draw
 * that these are the JDK's streams, so a JDK that changed its generator would fail there, not in a
 * silently different herd.
 */
final class ClientRandoms {
  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
  private static final double DOUBLE_UNIT = 0x1.0p-53;

  private ClientRandoms() {}

  /**
   * Writes the streams of {@code clients} clients, {@code new SplittableRandom(masterSeed)
   * .split()} in order, into {@code table}: client i's seed at {@code first + i * stride}, its
   * gamma right after it.
   */
  static void split(long masterSeed, int clients, long[] table, int first, int stride) {
    long master = masterSeed;
    for (int i = 0; i < clients; i++) {
      master += GOLDEN_GAMMA;
      table[first + i * stride] = mix64(master);
      master += GOLDEN_GAMMA;
      table[first + i * stride + 1] = mixGamma(master);
    }
  }

  /**
   * The next uniform sample in [0, 1) of the stream at {@code table[at]} (seed) and {@code
   * table[at + 1]} (gamma): the stream's {@code nextDouble()}.
   */
  static double nextDouble(long[] table, int at) {
    long s = table[at] + table[at + 1];
    table[at] = s;
    return (mix64(s) >>> 11) * DOUBLE_UNIT;
  }

  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  private static long mixGamma(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    z = (z ^ (z >>> 33)) | 1L;
    int flips = Long.bitCount(z ^ (z >>> 1));
    return flips < 24 ? z ^ 0xaaaaaaaaaaaaaaaaL : z;
  }
}
