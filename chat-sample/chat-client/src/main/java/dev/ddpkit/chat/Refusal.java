package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.DdpMethodException;
import java.time.Duration;
import java.util.concurrent.CompletionException;

/**
 * What a failed call or subscription means for the chat layer: lost with the connection, held back
 * by the server for a while, refused for want of a login, failing for now, or refused for good.
 *
 * @param kind what to do about it
 * @param timeToReset for {@link Kind#HOLD}, how long the server said to wait (zero if it did not)
 * @param message the server's words, for the user
 * @param code the server's error code, or empty if there was none
 */
record Refusal(Kind kind, Duration timeToReset, String message, String code) {
  /** What to do about a failure. */
  enum Kind {
    /** Cut by a lost connection: done again on the next one. */
    LOST,
    /** {@code too-many-requests} or {@code error-too-busy}: wait out {@code timeToReset}. */
    HOLD,
    /** Refused because the connection is not logged in (yet): again after the login. */
    NEEDS_LOGIN,
    /** Failing for now (5xx, an error with no code): again after a backoff. */
    TEMPORARY,
    /** Refused for good (not a member, no such room, bad request). */
    PERMANENT
  }

  /** Without a {@code timeToReset}, a hold waits this long. */
  static final Duration DEFAULT_HOLD = Duration.ofSeconds(1);

  /**
   * Classifies {@code error}; {@code loggedIn} tells whether a {@code not-allowed} can be a stale
   * login (it is, while the client is not logged in) or a real refusal.
   */
  static Refusal of(Throwable error, boolean loggedIn) {
    Throwable t = unwrap(error);
    if (!(t instanceof DdpMethodException e)) {
      return new Refusal(Kind.LOST, Duration.ZERO, String.valueOf(t.getMessage()), "");
    }
    String code = e.error();
    String message = e.getMessage();
    if (DdpMethodException.INVOCATION_FAILED.equals(code)) {
      return new Refusal(Kind.LOST, Duration.ZERO, message, code);
    }
    if (code.contains("too-many-requests") || code.contains("too-busy")) {
      return new Refusal(Kind.HOLD, timeToReset(e.details()), message, code);
    }
    if (!loggedIn && notAllowed(code)) {
      return new Refusal(Kind.NEEDS_LOGIN, Duration.ZERO, message, code);
    }
    if (code.matches("5\\d\\d")) {
      return new Refusal(Kind.TEMPORARY, Duration.ZERO, message, code);
    }
    return new Refusal(Kind.PERMANENT, Duration.ZERO, message, code);
  }

  /**
   * Whether the server said the room is out of reach for good: not a member (while logged in), or
   * no such room.
   */
  boolean roomGone() {
    return kind == Kind.PERMANENT
        && (notAllowed(code) || code.contains("invalid-room") || code.contains("room-not-found"));
  }

  /** A failure that is not worth another try as it is. */
  boolean permanent() {
    return kind == Kind.PERMANENT;
  }

  /**
   * Rocket.Chat's codes for a call refused for want of a login: {@code error-not-allowed}, {@code
   * not-allowed} (a refused stream), {@code error-invalid-user}, 401 and 403.
   */
  static boolean notAllowed(String code) {
    return code.contains("not-allowed")
        || code.equals("error-invalid-user")
        || code.equals("401")
        || code.equals("403");
  }

  private static Duration timeToReset(JsonNode details) {
    JsonNode t = details == null ? null : details.get("timeToReset");
    if (t == null || !t.isNumber() || t.asLong() <= 0) {
      return DEFAULT_HOLD;
    }
    // A hostile hint is bounded: never more than ten minutes.
    return Duration.ofMillis(Math.min(t.asLong(), 600_000));
  }

  static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
