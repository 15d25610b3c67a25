package dev.ddpkit.ddp;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of one method call. Immutable; start from {@link #DEFAULT} and use the withers.
 *
 * @param waitForResult a "wait" call: later calls are held until this one has its result (login)
 * @param noRetry if the connection is lost before a result, fail with {@code invocation-failed}
 *     instead of re-sending the call after the reconnect
 * @param randomSeed the DDP {@code randomSeed} to send, or {@code null} for none
 * @param timeout how long the call may wait for its result, from the moment it is made (queued
 *     offline included), or {@code null} for no limit
 */
public record CallOptions(
    boolean waitForResult, boolean noRetry, String randomSeed, Duration timeout) {
  /** No wait, retried after a reconnect, no random seed, no timeout. */
  public static final CallOptions DEFAULT = new CallOptions(false, false, null, null);

  /** A wait call, the usual shape of a login. */
  public static final CallOptions WAIT = DEFAULT.withWait(true);

  /**
   * Validates the components.
   *
   * @throws IllegalArgumentException if {@code timeout} is zero or negative
   */
  public CallOptions {
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
  }

  /** Returns a copy with {@code waitForResult} set. */
  public CallOptions withWait(boolean wait) {
    return new CallOptions(wait, noRetry, randomSeed, timeout);
  }

  /** Returns a copy with {@code noRetry} set. */
  public CallOptions withNoRetry(boolean noRetry) {
    return new CallOptions(waitForResult, noRetry, randomSeed, timeout);
  }

  /** Returns a copy with the given random seed. */
  public CallOptions withRandomSeed(String randomSeed) {
    return new CallOptions(
        waitForResult, noRetry, Objects.requireNonNull(randomSeed, "randomSeed"), timeout);
  }

  /**
   * Returns a copy with a timeout: if the call has no result this long after it was made, its
   * future fails with a {@link DdpTimeoutException}, it is taken out of the queue (never sent, or
   * never sent again after a reconnect) and a result that comes later is ignored. The server may
   * still have run it.
   *
   * @throws IllegalArgumentException if {@code timeout} is zero or negative
   */
  public CallOptions withTimeout(Duration timeout) {
    return new CallOptions(
        waitForResult, noRetry, randomSeed, Objects.requireNonNull(timeout, "timeout"));
  }
}
