package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link ReconnectionManager} does after a close, as a value: {@link CloseHandling} decides
 * it, and {@link ManagerCore} alone applies it, under its lock. Nothing else changes the
 * manager's state. The three records below are all there is.
 */
interface NextStep {
  /** Stops for good (the close policy said so, the attempts ran out, or the backoff broke). */
  record Stop() implements NextStep {}

  /**
   * Dials at once (or holds, if the network is lost or the app suspended), after asking for fresh
   * credentials if {@code refreshCredentials}.
   */
  record DialNow(boolean refreshCredentials) implements NextStep {}

  /**
   * Waits {@code delay} before the next dial (or holds, if the network is lost or the app
   * suspended). With {@code appointment}, the delay ends at the server's appointment, which a
   * network coming back or an app resuming does not bring forward. Asks for fresh credentials
   * first if {@code refreshCredentials}.
   */
  record Wait(Duration delay, boolean appointment, boolean refreshCredentials)
      implements NextStep {
    /** Validates the delay. */
    public Wait {
      Objects.requireNonNull(delay, "delay");
    }
  }
}
