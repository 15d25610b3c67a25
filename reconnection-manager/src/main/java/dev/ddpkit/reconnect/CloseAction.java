package dev.ddpkit.reconnect;

/** What to do after a connection closed, as decided by a {@link ClosePolicy}. */
public enum CloseAction {
  /** Reconnect after the normal backoff delay. */
  RETRY,
  /**
   * Reconnect, but not before a floor (the server said it is overloaded: 1013), unless the server
   * gave a {@code retry-after} appointment, which then decides.
   */
  RETRY_SLOW,
  /**
   * The credentials were refused (4401): refresh them and retry once at once; if it happens again
   * before the connection was stable, fall back to the normal backoff.
   */
  REFRESH_AUTH,
  /** Do not reconnect: retrying cannot help (1008 policy violation, 1003 unacceptable data). */
  STOP
}
