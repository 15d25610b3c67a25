package dev.ddpkit.chat.server;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counts failed logins per key (a connection, a username) in a sliding window; past
 * {@code maxFailures} in {@code windowMillis}, further attempts are refused until the oldest
 * failure leaves the window. Bounded: the least recently used keys are forgotten first.
 */
final class LoginLimiter {
  private final int maxFailures;
  private final long windowMillis;
  private final int maxKeys;
  private final LinkedHashMap<String, ArrayDeque<Long>> failures;

  LoginLimiter(int maxFailures, long windowMillis, int maxKeys) {
    if (maxFailures < 1 || windowMillis < 1 || maxKeys < 1) {
      throw new IllegalArgumentException("maxFailures, windowMillis and maxKeys must be >= 1");
    }
    this.maxFailures = maxFailures;
    this.windowMillis = windowMillis;
    this.maxKeys = maxKeys;
    this.failures = new LinkedHashMap<>(64, 0.75f, /* accessOrder= */ true);
  }

  /** Returns 0 if an attempt for {@code key} may proceed now, else the milliseconds to wait. */
  synchronized long waitMillis(String key, long nowMillis) {
    ArrayDeque<Long> q = failures.get(key);
    if (q == null) {
      return 0;
    }
    prune(q, nowMillis);
    if (q.isEmpty()) {
      failures.remove(key);
      return 0;
    }
    if (q.size() < maxFailures) {
      return 0;
    }
    return Math.max(1, q.peekFirst() + windowMillis - nowMillis);
  }

  /** Records a failed attempt for {@code key}. */
  synchronized void failed(String key, long nowMillis) {
    ArrayDeque<Long> q = failures.computeIfAbsent(key, k -> new ArrayDeque<>());
    prune(q, nowMillis);
    q.addLast(nowMillis);
    while (q.size() > maxFailures) {
      q.removeFirst();
    }
    if (failures.size() > maxKeys) {
      Iterator<Map.Entry<String, ArrayDeque<Long>>> it = failures.entrySet().iterator();
      it.next();
      it.remove();
    }
  }

  /** Forgets a key (a connection that closed). */
  synchronized void forget(String key) {
    failures.remove(key);
  }

  private void prune(ArrayDeque<Long> q, long nowMillis) {
    while (!q.isEmpty() && q.peekFirst() <= nowMillis - windowMillis) {
      q.removeFirst();
    }
  }
}
