package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.Objects;

/**
 * The verdict of a {@link ClosePolicy} on one close: the action, the floor under the next delay
 * ({@link Duration#ZERO} for none) and a short description for status lines and logs.
 */
public record CloseDecision(CloseAction action, Duration floor, String description) {
  /** Validates the components. */
  public CloseDecision {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(floor, "floor");
    Objects.requireNonNull(description, "description");
    if (floor.isNegative()) {
      throw new IllegalArgumentException("floor must not be negative: " + floor);
    }
  }
}
