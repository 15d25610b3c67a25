package dev.ddpkit.chat.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * Counts connection arrivals at the server per fixed interval, from periodic samples of its
 * cumulative counters (accepted connections, 1013 rejections), and the appointments the server
 * handed out (when each rejected client is due back), and draws them as text bars.
 */
public final class ArrivalHistogram {
  private final long bucketMillis;
  private final List<long[]> buckets = new ArrayList<>(); // {accepted, rejected, appointments}
  private boolean anyAppointment;

  /** Creates a histogram with buckets of {@code bucketMillis}. */
  public ArrivalHistogram(long bucketMillis) {
    if (bucketMillis < 1) {
      throw new IllegalArgumentException("bucketMillis must be positive: " + bucketMillis);
    }
    this.bucketMillis = bucketMillis;
  }

  /** Returns the bucket width in milliseconds. */
  public long bucketMillis() {
    return bucketMillis;
  }

  /** Adds arrivals seen at {@code atMillis} (from the histogram's origin, not negative). */
  public synchronized void add(long atMillis, long accepted, long rejected) {
    if (atMillis < 0) {
      throw new IllegalArgumentException("atMillis must not be negative: " + atMillis);
    }
    int index = (int) (atMillis / bucketMillis);
    bucket(index)[0] += accepted;
    bucket(index)[1] += rejected;
  }

  /**
   * Adds an appointment a rejected client was given: the server expects it back at {@code
   * atMillis} (from the histogram's origin, not negative).
   */
  public synchronized void appointment(long atMillis) {
    if (atMillis < 0) {
      throw new IllegalArgumentException("atMillis must not be negative: " + atMillis);
    }
    bucket((int) (atMillis / bucketMillis))[2]++;
    anyAppointment = true;
  }

  /** Returns the number of appointments falling in each bucket. */
  public synchronized long[] appointments() {
    return buckets.stream().mapToLong(b -> b[2]).toArray();
  }

  private long[] bucket(int index) {
    while (buckets.size() <= index) {
      buckets.add(new long[3]);
    }
    return buckets.get(index);
  }

  /** Returns the accepted count of each bucket. */
  public synchronized long[] accepted() {
    return buckets.stream().mapToLong(b -> b[0]).toArray();
  }

  /** Returns the rejected count of each bucket. */
  public synchronized long[] rejected() {
    return buckets.stream().mapToLong(b -> b[1]).toArray();
  }

  /**
   * Draws one line per bucket up to the last non-empty one: time, counts (with a {@code due}
   * column of appointments once there is one), and a bar of {@code #}
   * for accepts and {@code x} for rejections, scaled so the widest bar is {@code width} long.
   */
  public synchronized List<String> render(int width) {
    int last = buckets.size() - 1;
    while (last >= 0 && buckets.get(last)[0] == 0 && buckets.get(last)[1] == 0
        && buckets.get(last)[2] == 0) {
      last--;
    }
    long max = 1;
    for (int i = 0; i <= last; i++) {
      max = Math.max(max, buckets.get(i)[0] + buckets.get(i)[1]);
    }
    List<String> lines = new ArrayList<>();
    for (int i = 0; i <= last; i++) {
      long a = buckets.get(i)[0];
      long r = buckets.get(i)[1];
      int aw = (int) Math.round((double) a * width / max);
      int rw = (int) Math.round((double) r * width / max);
      if (a > 0 && aw == 0) {
        aw = 1;
      }
      if (r > 0 && rw == 0) {
        rw = 1;
      }
      String due = anyAppointment ? String.format("  due %4d", buckets.get(i)[2]) : "";
      lines.add(
          String.format(
              "  +%5.1f s  accepted %4d  rejected %4d%s  %s%s",
              i * bucketMillis / 1000.0, a, r, due, "#".repeat(aw), "x".repeat(rw)));
    }
    return lines;
  }
}
