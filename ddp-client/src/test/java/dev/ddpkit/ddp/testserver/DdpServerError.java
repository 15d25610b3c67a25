package dev.ddpkit.ddp.testserver;

import java.util.Objects;

/**
 * Thrown by a method or publication handler of the {@link TestDdpServer} to answer with a DDP error
 * ({@code {"error": error, "reason": reason, "errorType": "Meteor.Error"}}).
 */
public class DdpServerError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String error;
  private final String reason;

  /** Creates an error with a code ({@code "403"}, {@code "not-allowed"}) and a reason. */
  public DdpServerError(String error, String reason) {
    super(reason + " [" + error + "]");
    this.error = Objects.requireNonNull(error, "error");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Returns the error code. */
  public String error() {
    return error;
  }

  /** Returns the reason. */
  public String reason() {
    return reason;
  }
}
