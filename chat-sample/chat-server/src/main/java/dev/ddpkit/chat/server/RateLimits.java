package dev.ddpkit.chat.server;

import dev.ddpkit.chat.protocol.CallLimit;
import dev.ddpkit.chat.protocol.RocketChatLimits;

import dev.ddpkit.chat.protocol.RocketChatNames;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The DDP rate limits a {@link ChatServer} enforces, one rule each, every rule a fixed window as in
 * Meteor's {@code DDPRateLimiter}. {@link #rocketChatDefaults()} are a real Rocket.Chat server's
 * defaults: {@code login} 5 calls per 10 s per connection while not logged in (Meteor's accounts
 * default), any one method 10 calls per 10 s per connection, {@code stream-*} subscriptions 40 per
 * 10 s per connection, and {@code sendMessage} 5 per second per user. Past a limit a method is
 * answered with the error {@code too-many-requests} (with {@code details.timeToReset} in ms) and a
 * subscription with a {@code nosub} carrying the same error. Immutable; {@code with*} return copies.
 */
public final class RateLimits {
  private static final CallLimit LOGIN = RocketChatLimits.LOGIN;
  private static final CallLimit PER_METHOD = RocketChatLimits.PER_METHOD;
  private static final CallLimit STREAMS = RocketChatLimits.STREAM_SUBSCRIPTIONS;
  private static final CallLimit SEND_MESSAGE = RocketChatLimits.SEND_MESSAGE_PER_USER;
  private static final RateLimits NONE = new RateLimits(null, null, null, null);
  private static final RateLimits DEFAULTS =
      new RateLimits(LOGIN, PER_METHOD, STREAMS, SEND_MESSAGE);

  private final CallLimit login;
  private final CallLimit perMethod;
  private final CallLimit streamSubscriptions;
  private final CallLimit sendMessagePerUser;

  private RateLimits(
      CallLimit login, CallLimit perMethod, CallLimit streams, CallLimit sendMessage) {
    this.login = login;
    this.perMethod = perMethod;
    this.streamSubscriptions = streams;
    this.sendMessagePerUser = sendMessage;
  }

  /** Rocket.Chat's default DDP rate limits (the server's default). */
  public static RateLimits rocketChatDefaults() {
    return DEFAULTS;
  }

  /** No rate limit at all: for benchmarks that must push past a real server's limits. */
  public static RateLimits none() {
    return NONE;
  }

  /** {@code login} calls per connection while it is not logged in; null for no limit. */
  public RateLimits withLogin(CallLimit limit) {
    return new RateLimits(limit, perMethod, streamSubscriptions, sendMessagePerUser);
  }

  /** Calls of any one method per connection; null for no limit. */
  public RateLimits withPerMethod(CallLimit limit) {
    return new RateLimits(login, limit, streamSubscriptions, sendMessagePerUser);
  }

  /** Subscriptions to {@code stream-*} per connection; null for no limit. */
  public RateLimits withStreamSubscriptions(CallLimit limit) {
    return new RateLimits(login, perMethod, limit, sendMessagePerUser);
  }

  /** {@code sendMessage} calls per user, whatever the connection; null for no limit. */
  public RateLimits withSendMessagePerUser(CallLimit limit) {
    return new RateLimits(login, perMethod, streamSubscriptions, limit);
  }

  /** The {@code login} limit, or null. */
  public CallLimit login() {
    return login;
  }

  /** The per-method limit, or null. */
  public CallLimit perMethod() {
    return perMethod;
  }

  /** The {@code stream-*} subscription limit, or null. */
  public CallLimit streamSubscriptions() {
    return streamSubscriptions;
  }

  /** The {@code sendMessage} per-user limit, or null. */
  public CallLimit sendMessagePerUser() {
    return sendMessagePerUser;
  }

  /**
   * Parses the {@code serve --rate-limits} value: {@code on} (Rocket.Chat's defaults), {@code off},
   * or rules over the defaults, comma-separated, such as {@code login=5/10s,method=10/10s,
   * stream=40/10s,send=5/1s}; a window is {@code Ns} or {@code Nms}, and {@code RULE=off} lifts one
   * rule.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static RateLimits parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    String s = spec.trim().toLowerCase(Locale.ROOT);
    if (s.equals("on")) {
      return DEFAULTS;
    }
    if (s.equals("off")) {
      return NONE;
    }
    RateLimits r = DEFAULTS;
    for (String part : s.split(",")) {
      int eq = part.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("rate limit rule must be RULE=CALLS/WINDOW: " + part);
      }
      String rule = part.substring(0, eq).trim();
      CallLimit l = parseLimit(part.substring(eq + 1).trim());
      switch (rule) {
        case RocketChatNames.LOGIN -> r = r.withLogin(l);
        case "method" -> r = r.withPerMethod(l);
        case "stream" -> r = r.withStreamSubscriptions(l);
        case "send" -> r = r.withSendMessagePerUser(l);
        default -> throw new IllegalArgumentException(
            "unknown rate limit rule (login, method, stream, send): " + rule);
      }
    }
    return r;
  }

  private static CallLimit parseLimit(String v) {
    if (v.equals("off")) {
      return null;
    }
    int slash = v.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("rate limit must be CALLS/WINDOW such as 5/10s: " + v);
    }
    try {
      int calls = Integer.parseInt(v.substring(0, slash).trim());
      String w = v.substring(slash + 1).trim();
      Duration window = w.endsWith("ms")
          ? Duration.ofMillis(Long.parseLong(w.substring(0, w.length() - 2)))
          : w.endsWith("s") ? Duration.ofSeconds(Long.parseLong(w.substring(0, w.length() - 1)))
          : null;
      if (window == null) {
        throw new IllegalArgumentException("rate limit window must end in s or ms: " + v);
      }
      return new CallLimit(calls, window);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("rate limit must be CALLS/WINDOW such as 5/10s: " + v);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RateLimits r && Objects.equals(login, r.login)
        && Objects.equals(perMethod, r.perMethod)
        && Objects.equals(streamSubscriptions, r.streamSubscriptions)
        && Objects.equals(sendMessagePerUser, r.sendMessagePerUser);
  }

  @Override
  public int hashCode() {
    return Objects.hash(login, perMethod, streamSubscriptions, sendMessagePerUser);
  }

  @Override
  public String toString() {
    return "RateLimits{login=" + off(login) + ", method=" + off(perMethod) + ", stream="
        + off(streamSubscriptions) + ", send=" + off(sendMessagePerUser) + "}";
  }

  private static String off(CallLimit l) {
    return l == null ? "off" : l.toString();
  }
}
