package dev.ddpkit.chat.server;

import dev.ddpkit.chat.protocol.CallLimit;

import dev.ddpkit.chat.protocol.RocketChatNames;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Enforces {@link RateLimits} the way Meteor's {@code DDPRateLimiter} does: each rule has one
 * fixed window for all its keys, which starts when the server starts and starts again at the first
 * call after it ran out; every call a rule matches counts in it (refused ones too), and a call is
 * refused when its key's count passes the rule's allowance, with the time left in the window. When
 * several rules refuse, the longest wait is answered. Time comes from a monotonic millisecond
 * source, so tests run it on virtual time.
 */
final class DdpRateLimiter {
  /** The prefix of the subscriptions the stream rule limits. */
  static final String STREAM_PREFIX = "stream-";

  private final LongSupplier millis;
  private final Rule login;
  private final Rule perMethod;
  private final Rule streams;
  private final Rule sendMessage;

  DdpRateLimiter(RateLimits limits, LongSupplier millis) {
    this.millis = millis;
    long now = millis.getAsLong();
    this.login = Rule.of(limits.login(), now);
    this.perMethod = Rule.of(limits.perMethod(), now);
    this.streams = Rule.of(limits.streamSubscriptions(), now);
    this.sendMessage = Rule.of(limits.sendMessagePerUser(), now);
  }

  /**
   * Counts a method call and decides on it.
   *
   * @param connection the connection's key
   * @param userId the logged-in user's id, or null
   * @return 0 to run it, else the milliseconds until the refusing rule's window ends (>= 1)
   */
  long method(String name, String connection, String userId) {
    long now = millis.getAsLong();
    long wait = 0;
    if (name.equals(RocketChatNames.LOGIN) && userId == null) {
      wait = hit(login, connection, now);
    }
    wait = Math.max(wait, hit(perMethod, connection + " " + name, now));
    if (name.equals(RocketChatNames.SEND_MESSAGE) && userId != null) {
      wait = Math.max(wait, hit(sendMessage, userId, now));
    }
    return wait;
  }

  /**
   * Counts a subscription and decides on it, as {@link #method} does: per connection and stream
   * name.
   *
   * @return 0 to run it, else the milliseconds until the window ends (>= 1)
   */
  long subscription(String name, String connection) {
    if (!name.startsWith(STREAM_PREFIX)) {
      return 0;
    }
    // Rocket.Chat's streamer adds its rule per stream: each stream name has its own allowance.
    return hit(streams, connection + " " + name, millis.getAsLong());
  }

  private static long hit(Rule rule, String key, long now) {
    return rule == null ? 0 : rule.hit(key, now);
  }

  /** A rule's window and its counts per key. */
  private static final class Rule {
    private final int allowed;
    private final long windowMillis;
    private final Map<String, Integer> counts = new HashMap<>();
    private long windowStart;

    private Rule(CallLimit limit, long now) {
      this.allowed = limit.calls();
      this.windowMillis = limit.window().toMillis();
      this.windowStart = now;
    }

    static Rule of(CallLimit limit, long now) {
      return limit == null ? null : new Rule(limit, now);
    }

    /** Counts one call for {@code key}; returns 0 if allowed, else the ms left in the window. */
    synchronized long hit(String key, long now) {
      // Meteor resets once the window is strictly over; ">=" instead keeps timeToReset >= 1 ms.
      if (now - windowStart >= windowMillis) {
        counts.clear();
        windowStart = now;
      }
      int n = counts.merge(key, 1, Integer::sum);
      return n <= allowed ? 0 : windowStart + windowMillis - now;
    }
  }
}
