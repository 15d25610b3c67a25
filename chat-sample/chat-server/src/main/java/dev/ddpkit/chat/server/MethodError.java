package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A {@code Meteor.Error} a method or subscription answers with. Carries no stack trace: it is an
 * answer to the peer, not a fault of the server.
 */
final class MethodError extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient Object code;
  private final String reason;
  private final transient ObjectNode details;

  MethodError(Object code, String reason, ObjectNode details) {
    super(reason, null, false, false);
    if (!(code instanceof Integer || code instanceof String)) {
      throw new IllegalArgumentException("code must be an Integer or a String: " + code);
    }
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  MethodError(Object code, String reason) {
    this(code, reason, null);
  }

  /** A validation failure: {@code error-invalid-*} codes. */
  static MethodError invalid(String code, String reason) {
    return new MethodError(code, reason);
  }

  /**
   * Meteor's {@code DDPRateLimiter} answer: {@code too-many-requests} with its message and
   * {@code details.timeToReset} in ms.
   */
  static MethodError tooManyRequests(long timeToResetMillis) {
    ObjectNode details = Frames.object();
    details.put("timeToReset", timeToResetMillis);
    return new MethodError("too-many-requests",
        "Error, too many requests. Please slow down. You must wait "
            + (timeToResetMillis + 999) / 1000 + " seconds before trying again.", details);
  }

  /** The {@code error-not-allowed} answer. */
  static MethodError notAllowed(String reason) {
    return new MethodError("error-not-allowed", reason);
  }

  Object code() {
    return code;
  }

  String reason() {
    return reason;
  }

  /** The error object as DDP carries it in {@code result} and {@code nosub}. */
  ObjectNode toJson() {
    ObjectNode e = Frames.object();
    e.put("isClientSafe", true);
    if (code instanceof Integer) {
      e.put("error", (Integer) code);
    } else {
      e.put("error", (String) code);
    }
    e.put("reason", reason);
    e.put("message", reason + " [" + code + "]");
    e.put("errorType", "Meteor.Error");
    if (details != null) {
      e.set("details", details);
    }
    return e;
  }
}
