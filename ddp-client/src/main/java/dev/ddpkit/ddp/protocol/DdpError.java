package dev.ddpkit.ddp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.Objects;

/**
 * The error object of a {@code result} or {@code nosub} message.
 *
 * @param error the error code as text ("403", "not-allowed")
 * @param reason the reason, possibly empty
 * @param details the details, or {@link MissingNode} if none
 */
public record DdpError(String error, String reason, JsonNode details) {
  /** Validates the components. */
  public DdpError {
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(reason, "reason");
    details = details == null ? MissingNode.getInstance() : details;
  }
}
