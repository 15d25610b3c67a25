package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The verdict of a {@link ClosePolicy} on one close: the action, the floor under the next delay when
 * the server gave no hint ({@link Duration#ZERO} for none), the server's {@code retry-after}
 * appointment if it gave one, and a short description for status lines and logs.
 *
 * @param action what to do
 * @param floor the least delay before the next dial when there is no appointment (5 s for 1013)
 * @param retryAfter the server's appointment, already capped to {@link
 *     ClosePolicy#MAX_RETRY_AFTER}: when present, the next dial is made then (plus a small spread),
 *     whatever the curve and the floor say; empty for none, and always empty for {@link
 *     CloseAction#STOP}
 * @param description a short description of the close
 */
public record CloseDecision(
    CloseAction action, Duration floor, Optional<Duration> retryAfter, String description) {
  /** Validates the components. */
  public CloseDecision {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(floor, "floor");
    Objects.requireNonNull(retryAfter, "retryAfter");
    Objects.requireNonNull(description, "description");
    if (floor.isNegative()) {
      throw new IllegalArgumentException("floor must not be negative: " + floor);
    }
    if (retryAfter.isPresent() && retryAfter.get().isNegative()) {
      throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter.get());
    }
  }

  /** A decision with no appointment from the server. */
  public CloseDecision(CloseAction action, Duration floor, String description) {
    this(action, floor, Optional.empty(), description);
  }
}
