package dev.ddpkit.chat;

import dev.ddpkit.chat.protocol.CallLimit;
import dev.ddpkit.chat.protocol.RocketChatLimits;
import dev.ddpkit.chat.protocol.RocketChatNames;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The call budgets a {@link ChatClient} keeps to, so that a reconnect does not trip the server's
 * rate limits in the first place. {@link #rocketChatDefaults()} are a real Rocket.Chat server's
 * defaults: {@code login} 5 calls per 10 s per connection, any one method 10 per 10 s per
 * connection, {@code stream-*} subscriptions 40 per 10 s per connection, {@code sendMessage} 5 per
 * second per user. A server with other limits is one {@code with*} call away. Immutable.
 *
 * <p>Each budget is a sliding window: a call goes out only if fewer than {@code calls} went out in
 * the last {@code window} plus {@link #margin()} (which absorbs network jitter between the client's
 * count and the server's). When a budget is spent the work waits, in order; see {@link
 * ChatClient#focus(String)}.
 */
public final class ChatLimits {
  private static final CallLimit LOGIN = RocketChatLimits.LOGIN;
  private static final CallLimit PER_METHOD = RocketChatLimits.PER_METHOD;
  private static final CallLimit STREAMS = RocketChatLimits.STREAM_SUBSCRIPTIONS;
  private static final CallLimit SEND_MESSAGE = RocketChatLimits.SEND_MESSAGE_PER_USER;
  private static final Duration MARGIN = Duration.ofMillis(250);
  private static final ChatLimits DEFAULTS =
      new ChatLimits(LOGIN, PER_METHOD, STREAMS, Map.of(RocketChatNames.SEND_MESSAGE, SEND_MESSAGE),
          MARGIN);
  private static final ChatLimits NONE = new ChatLimits(null, null, null, Map.of(), Duration.ZERO);

  private final CallLimit login;
  private final CallLimit perMethod;
  private final CallLimit streams;
  private final Map<String, CallLimit> methods;
  private final Duration margin;

  private ChatLimits(
      CallLimit login,
      CallLimit perMethod,
      CallLimit streams,
      Map<String, CallLimit> methods,
      Duration margin) {
    this.login = login;
    this.perMethod = perMethod;
    this.streams = streams;
    this.methods = Map.copyOf(methods);
    this.margin = margin;
  }

  /** Rocket.Chat's default DDP rate limits (the client's default). */
  public static ChatLimits rocketChatDefaults() {
    return DEFAULTS;
  }

  /** No budget at all: every call goes out at once (for servers without limits). */
  public static ChatLimits none() {
    return NONE;
  }

  /** {@code login} calls per connection; null for no limit. */
  public ChatLimits withLogin(CallLimit limit) {
    return new ChatLimits(limit, perMethod, streams, methods, margin);
  }

  /** Calls of any one method per connection (unless set per method); null for no limit. */
  public ChatLimits withPerMethod(CallLimit limit) {
    return new ChatLimits(login, limit, streams, methods, margin);
  }

  /** {@code stream-*} subscriptions per connection; null for no limit. */
  public ChatLimits withStreams(CallLimit limit) {
    return new ChatLimits(login, perMethod, limit, methods, margin);
  }

  /**
   * One method's own limit, instead of the per-method one ({@code sendMessage} has 5 per second by
   * default); null to fall back to the per-method limit.
   */
  public ChatLimits withMethod(String method, CallLimit limit) {
    Objects.requireNonNull(method, "method");
    if (method.trim().isEmpty() || method.equals(RocketChatNames.LOGIN)) {
      throw new IllegalArgumentException("method must be a method name other than login: " + method);
    }
    Map<String, CallLimit> m = new LinkedHashMap<>(methods);
    if (limit == null) {
      m.remove(method);
    } else {
      m.put(method, limit);
    }
    return new ChatLimits(login, perMethod, streams, m, margin);
  }

  /** Extra time added to every window (default 250 ms), for network jitter. */
  public ChatLimits withMargin(Duration margin) {
    if (margin == null || margin.isNegative()) {
      throw new IllegalArgumentException("margin must not be negative: " + margin);
    }
    return new ChatLimits(login, perMethod, streams, methods, margin);
  }

  /** Returns the {@code login} limit, if any. */
  public Optional<CallLimit> login() {
    return Optional.ofNullable(login);
  }

  /** Returns the {@code stream-*} subscription limit, if any. */
  public Optional<CallLimit> streams() {
    return Optional.ofNullable(streams);
  }

  /** Returns the limit that applies to {@code method} (its own, else the per-method one). */
  public Optional<CallLimit> method(String method) {
    if (method.equals(RocketChatNames.LOGIN)) {
      return login();
    }
    CallLimit own = methods.get(method);
    return Optional.ofNullable(own != null ? own : perMethod);
  }

  /** Returns the margin added to every window. */
  public Duration margin() {
    return margin;
  }

  @Override
  public String toString() {
    return "ChatLimits{login=" + login + ", perMethod=" + perMethod + ", streams=" + streams
        + ", methods=" + methods + ", margin=" + margin.toMillis() + "ms}";
  }
}
