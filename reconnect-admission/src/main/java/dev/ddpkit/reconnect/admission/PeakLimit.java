package dev.ddpkit.reconnect.admission;

/**
 * No more than {@code perSecond} connections start in any one second: the start of each admitted
 * dial is now, unless {@code perSecond} started in the last second, in which case it is when the
 * oldest of them is a second old. Starts never go back in time (a dial right behind a held one is
 * held to its start), and they are whole milliseconds after the dial, so that a server timing a
 * hold in milliseconds keeps the bound. Times are the {@link Admission}'s ticker's nanoseconds;
 * not thread-safe (the admission's lock guards it).
 */
final class PeakLimit {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;

  private final long perSecond;
  /** The starts of the last second (and any later ones), oldest first: a ring. */
  private long[] starts = new long[16];
  private int head;
  private int size;
  private long lastStart = Long.MIN_VALUE;

  PeakLimit(int perSecond) {
    if (perSecond < 1) {
      throw new IllegalArgumentException("perSecond must be 1 or more: " + perSecond);
    }
    this.perSecond = perSecond;
  }

  /** Records the start of a dial admitted {@code now} and returns how long it is held, in ms. */
  long holdMillis(long now) {
    while (size > 0 && starts[head] + SECOND <= now) {
      drop();
    }
    long at = Math.max(now, lastStart);
    if (size == perSecond) {
      at = Math.max(at, starts[head] + SECOND);
      drop();
    }
    long holdMillis = -Math.floorDiv(-(at - now), MS);
    lastStart = now + holdMillis * MS;
    add(lastStart);
    return holdMillis;
  }

  private void drop() {
    head = (head + 1) % starts.length;
    size--;
  }

  private void add(long start) {
    if (size == starts.length) {
      long[] grown = new long[(int) Math.min(perSecond, starts.length * 2L)];
      for (int i = 0; i < size; i++) {
        grown[i] = starts[(head + i) % starts.length];
      }
      starts = grown;
      head = 0;
    }
    starts[(head + size) % starts.length] = start;
    size++;
  }
}
