package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.Objects;

/**
 * An error the server returned for a method call or a subscription ({@code nosub} with an error),
 * or {@code invocation-failed} when a {@code noRetry} call was cut by a reconnect. The {@code
 * error} code may be a number (Rocket.Chat's 403) or a string ({@code "not-allowed"}).
 */
public class DdpMethodException extends DdpException {
  private static final long serialVersionUID = 1L;

  /** The error code Meteor uses when a noRetry call was interrupted by a reconnect. */
  public static final String INVOCATION_FAILED = "invocation-failed";

  private final String error;
  private final String reason;
  private final transient JsonNode details;

  /**
   * Creates an exception.
   *
   * @param error the error code as text ("403", "not-allowed")
   * @param reason the reason, may be empty
   * @param details the details, or {@link MissingNode} if none
   */
  public DdpMethodException(String error, String reason, JsonNode details) {
    super(reason == null || reason.isEmpty() ? error : reason + " [" + error + "]");
    this.error = Objects.requireNonNull(error, "error");
    this.reason = reason == null ? "" : reason;
    this.details = details == null ? MissingNode.getInstance() : details;
  }

  /** Returns the error code as text. */
  public String error() {
    return error;
  }

  /** Returns the reason, possibly empty. */
  public String reason() {
    return reason;
  }

  /** Returns the details, or a missing node. */
  public JsonNode details() {
    return details;
  }
}
