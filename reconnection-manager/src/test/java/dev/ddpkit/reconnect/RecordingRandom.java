package dev.ddpkit.reconnect;

import java.util.Random;

/**
 * A source of samples for the manager that remembers the last one it gave, so tests can recompute:
 * a {@link Random} (the builders' one randomness type) whose {@link #nextDouble()} is recorded.
 */
final class RecordingRandom extends Random {
  private static final long serialVersionUID = 1L;
  private final Random random;
  private final double constant;
  private double last = Double.NaN;
  private int drawn;

  private RecordingRandom(Random random, double constant) {
    this.random = random;
    this.constant = constant;
  }

  /** Always {@code value}. */
  static RecordingRandom constant(double value) {
    return new RecordingRandom(null, value);
  }

  /** A seeded pseudo-random sequence. */
  static RecordingRandom seeded(long seed) {
    return new RecordingRandom(new Random(seed), Double.NaN);
  }

  @Override
  public synchronized double nextDouble() {
    last = random == null ? constant : random.nextDouble();
    drawn++;
    return last;
  }

  /** The last sample given out. */
  synchronized double last() {
    return last;
  }

  /** How many samples were given out. */
  synchronized int drawn() {
    return drawn;
  }
}
