package dev.ddpkit.chat.server;

import dev.ddpkit.chat.protocol.RocketChatNames;

/**
 * Which generation of Rocket.Chat the embedded server acts as, for the catch-up methods a client
 * can rely on: so that tests and users can check a client's fallbacks against each.
 */
public enum Compatibility {
  /** Today's server: both {@code messages/get} and {@code loadMissedMessages}. */
  CURRENT,
  /** A server from before {@code messages/get}: it answers that method with a 404. */
  BEFORE_MESSAGES_GET,
  /** Rocket.Chat 9: {@code loadMissedMessages} is removed and answered with a 404. */
  ROCKET_CHAT_9;

  /** Whether a method exists on a server of this generation. */
  boolean has(String method) {
    switch (this) {
      case CURRENT:
        return true;
      case BEFORE_MESSAGES_GET:
        return !method.equals(MessagesGet.METHOD);
      case ROCKET_CHAT_9:
        return !method.equals(RocketChatNames.LOAD_MISSED_MESSAGES);
      default:
        throw new AssertionError("Unexpected compatibility: " + this);
    }
  }

  /** Parses {@code current}, {@code older} or {@code rc9} (the {@code serve --act-as} values). */
  public static Compatibility parse(String s) {
    switch (s) {
      case "current":
        return CURRENT;
      case "older":
        return BEFORE_MESSAGES_GET;
      case "rc9":
        return ROCKET_CHAT_9;
      default:
        throw new IllegalArgumentException(
            "--act-as must be current, older (no messages/get) or rc9 (no loadMissedMessages): "
                + s);
    }
  }
}
