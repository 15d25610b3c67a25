package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link ReconnectionManager} takes the close of its current attempt: the close policy's
 * decision (stop, retry, retry no sooner than a floor, refresh the credentials once), the attempt
 * counter and its limit, and the wait that follows (the server's appointment, else the curve).
 * Reads the counters it is given and returns an {@link Outcome}; it changes no state of the
 * manager's (only {@link RetryTiming}'s random source advances). Used under the manager's lock, so
 * the samples are drawn in the order of the closes.
 */
final class CloseHandling {
  private static final Logger log = LoggerFactory.getLogger(ReconnectionManager.class);

  private final ClosePolicy closePolicy;
  private final RetryTiming timing;
  private final int maxAttempts;
  private final String name;

  CloseHandling(ReconnectPolicy policy, RetryTiming timing, String name) {
    this.closePolicy = policy.closePolicy();
    this.timing = timing;
    this.maxAttempts = policy.maxAttempts();
    this.name = name;
  }

  /**
   * What a close leads to: the attempt counter and the auth-refresh flag after it, the reason the
   * status shows, the next step, and the failure of a broken {@link Backoff} (the step is then
   * {@link NextStep.Stop}) for the reporter to throw, or null.
   */
  record Outcome(
      int attempt, boolean authRefreshUsed, String reason, NextStep next,
      IllegalStateException fault) {
    Outcome {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(next, "next");
    }
  }

  /**
   * Decides the close ({@code code}, {@code reason}) of the current attempt, given the counters
   * before it: {@code attempt}, whether the connection had become {@code stable} (which resets
   * them), and whether the one auth refresh was used.
   */
  Outcome decide(int attempt, boolean stable, boolean authRefreshUsed, int code, String reason) {
    if (stable) {
      attempt = 0;
      authRefreshUsed = false;
    }
    CloseDecision decision = closePolicy.classify(code, reason);
    String description = decision.description();
    switch (decision.action()) {
      case STOP -> {
        return new Outcome(attempt, authRefreshUsed, description, new NextStep.Stop(), null);
      }
      case REFRESH_AUTH -> {
        if (authRefreshUsed) {
          // The refresh did not help: back off as for any retry, keeping an appointment if any.
          return retry(attempt, true, decision);
        }
        Outcome gaveUp = giveUpAfter(attempt + 1, true, description);
        if (gaveUp != null) {
          return gaveUp;
        }
        if (decision.retryAfter().isPresent()) {
          // The immediate retry keeps the server's appointment too.
          Duration d = timing.appointment(decision.retryAfter().get());
          return new Outcome(attempt + 1, true, description,
              new NextStep.Wait(d, /* appointment= */ true, /* refreshCredentials= */ true), null);
        }
        return new Outcome(attempt + 1, true, description,
            new NextStep.DialNow(/* refreshCredentials= */ true), null);
      }
      case RETRY, RETRY_SLOW -> {
        return retry(attempt, authRefreshUsed, decision);
      }
      default -> throw new AssertionError("Unexpected action: " + decision.action());
    }
  }

  /** The stop when {@code attempt} is past maxAttempts ("gave up"), or null to go on. */
  private Outcome giveUpAfter(int attempt, boolean authRefreshUsed, String description) {
    if (maxAttempts > 0 && attempt > maxAttempts) {
      String why = "gave up after " + maxAttempts + " attempts (" + description + ")";
      return new Outcome(maxAttempts, authRefreshUsed, why, new NextStep.Stop(), null);
    }
    return null;
  }

  /**
   * Counts the retry and waits: until the server's appointment if it gave one, else the curve's
   * delay, but at least the decision's floor.
   */
  private Outcome retry(int attempt, boolean authRefreshUsed, CloseDecision decision) {
    String description = decision.description();
    int next = attempt + 1;
    Outcome gaveUp = giveUpAfter(next, authRefreshUsed, description);
    if (gaveUp != null) {
      return gaveUp;
    }
    if (decision.retryAfter().isPresent()) {
      // The counter advanced all the same: if the appointment fails with no new hint, the curve
      // goes on from where it was.
      Duration d = timing.appointment(decision.retryAfter().get());
      return new Outcome(next, authRefreshUsed, description,
          new NextStep.Wait(d, /* appointment= */ true, /* refreshCredentials= */ false), null);
    }
    Duration d;
    try {
      d = timing.curve(next);
    } catch (IllegalStateException e) {
      // Swapping in another curve would hide the bug; waiting for ever would wedge the client.
      log.error("{}: {}; stopping", name, e.getMessage(), e.getCause());
      return new Outcome(next, authRefreshUsed, e.getMessage(), new NextStep.Stop(), e);
    }
    return new Outcome(next, authRefreshUsed, description,
        new NextStep.Wait(timing.atLeast(d, decision.floor()), /* appointment= */ false,
            /* refreshCredentials= */ false), null);
  }
}
