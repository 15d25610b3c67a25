package dev.ddpkit.ddp;

import java.util.Objects;

/**
 * Options of one method call. Immutable; start from {@link #DEFAULT} and use the withers.
 *
 * @param waitForResult a "wait" call: later calls are held until this one has its result (login)
 * @param noRetry if the connection is lost before a result, fail with {@code invocation-failed}
 *     instead of re-sending the call after the reconnect
 * @param randomSeed the DDP {@code randomSeed} to send, or {@code null} for none
 */
public record CallOptions(boolean waitForResult, boolean noRetry, String randomSeed) {
  /** No wait, retried after a reconnect, no random seed. */
  public static final CallOptions DEFAULT = new CallOptions(false, false, null);

  /** A wait call, the usual shape of a login. */
  public static final CallOptions WAIT = DEFAULT.withWait(true);

  /** Returns a copy with {@code waitForResult} set. */
  public CallOptions withWait(boolean wait) {
    return new CallOptions(wait, noRetry, randomSeed);
  }

  /** Returns a copy with {@code noRetry} set. */
  public CallOptions withNoRetry(boolean noRetry) {
    return new CallOptions(waitForResult, noRetry, randomSeed);
  }

  /** Returns a copy with the given random seed. */
  public CallOptions withRandomSeed(String randomSeed) {
    return new CallOptions(waitForResult, noRetry, Objects.requireNonNull(randomSeed, "randomSeed"));
  }
}
