package dev.ddpkit.chat.protocol;

import java.time.Duration;

/**
 * A real Rocket.Chat server's default DDP rate limits, written once for both sides: the server
 * enforces them ({@code dev.ddpkit.chat.server.RateLimits}), the client budgets for them ({@code
 * dev.ddpkit.chat.ChatLimits}). Past one, Rocket.Chat answers {@code too-many-requests} with
 * {@code details.timeToReset} in ms.
 */
public final class RocketChatLimits {
  /** {@code login}: 5 calls per 10 s per connection while not logged in (Meteor's accounts). */
  public static final CallLimit LOGIN = new CallLimit(5, Duration.ofSeconds(10));

  /** Any one method: 10 calls per 10 s per connection. */
  public static final CallLimit PER_METHOD = new CallLimit(10, Duration.ofSeconds(10));

  /** {@code stream-*} subscriptions: 40 per 10 s per connection. */
  public static final CallLimit STREAM_SUBSCRIPTIONS = new CallLimit(40, Duration.ofSeconds(10));

  /** {@code sendMessage}: 5 per second per user. */
  public static final CallLimit SEND_MESSAGE_PER_USER = new CallLimit(5, Duration.ofSeconds(1));

  private RocketChatLimits() {}
}
