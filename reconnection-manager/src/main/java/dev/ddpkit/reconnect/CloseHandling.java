package dev.ddpkit.reconnect;

import dev.ddpkit.reconnect.ReconnectionManager.State;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link ReconnectionManager} takes the close of its current attempt: the close policy's
 * decision (stop, retry, retry no sooner than a floor, refresh the credentials once), the attempt
 * counter and its limit, and the wait that follows (the server's appointment, else the curve).
 * Works on its {@link ManagerCore}'s state, under the core's lock.
 */
final class CloseHandling {
  private static final Logger log = LoggerFactory.getLogger(ReconnectionManager.class);

  private final ManagerCore core;
  private final ClosePolicy closePolicy;
  private final int maxAttempts;
  private final String name;

  CloseHandling(ManagerCore core, ReconnectPolicy policy, String name) {
    this.core = core;
    this.closePolicy = policy.closePolicy();
    this.maxAttempts = policy.maxAttempts();
    this.name = name;
  }

  /**
   * Applies a close of the current attempt. Returns the failure of a broken {@link Backoff} (the
   * manager has then stopped with it as its reason) for the reporter to throw, or null.
   */
  IllegalStateException closedLocked(int code, String reason) {
    if (core.state != State.CONNECTING && core.state != State.CONNECTED) {
      log.debug("{}: closed({}) ignored in state {}", name, code, core.state);
      return null;
    }
    core.timer.cancel();
    if (core.stable) {
      core.attempt = 0;
      core.authRefreshUsed = false;
    }
    core.stable = false;
    core.lastCloseCode = code;
    CloseDecision decision = closePolicy.classify(code, reason);
    core.reason = decision.description();
    switch (decision.action()) {
      case STOP -> core.moveLocked(State.STOPPED);
      case REFRESH_AUTH -> {
        if (core.authRefreshUsed) {
          // The refresh did not help: back off as for any retry, keeping an appointment if any.
          return retryLocked(decision);
        }
        core.authRefreshUsed = true;
        if (!countAttemptLocked()) {
          return null;
        }
        core.outbox.add(core::refreshCredentials);
        if (decision.retryAfter().isPresent()) {
          // The immediate retry keeps the server's appointment too.
          core.waitForAppointmentLocked(core.timing.appointment(decision.retryAfter().get()));
          return null;
        }
        core.delay = Duration.ZERO;
        if (core.isHeldLocked()) {
          core.moveLocked(State.HELD);
        } else {
          core.dialLocked();
        }
      }
      case RETRY, RETRY_SLOW -> {
        return retryLocked(decision);
      }
      default -> throw new AssertionError("Unexpected action: " + decision.action());
    }
    return null;
  }

  /** Counts one more attempt; if that is past maxAttempts, stops (gave up) and returns false. */
  private boolean countAttemptLocked() {
    core.attempt++;
    if (maxAttempts > 0 && core.attempt > maxAttempts) {
      core.attempt = maxAttempts;
      core.reason = "gave up after " + maxAttempts + " attempts (" + core.reason + ")";
      core.moveLocked(State.STOPPED);
      return false;
    }
    return true;
  }

  /**
   * Counts the retry and waits: until the server's appointment if it gave one, else the curve's
   * delay, but at least the decision's floor.
   */
  private IllegalStateException retryLocked(CloseDecision decision) {
    if (!countAttemptLocked()) {
      return null;
    }
    if (decision.retryAfter().isPresent()) {
      // The counter advanced all the same: if the appointment fails with no new hint, the curve
      // goes on from where it was.
      core.waitForAppointmentLocked(core.timing.appointment(decision.retryAfter().get()));
      return null;
    }
    Duration d;
    try {
      d = core.timing.curve(core.attempt);
    } catch (IllegalStateException e) {
      // Swapping in another curve would hide the bug; waiting for ever would wedge the client.
      log.error("{}: {}; stopping", name, e.getMessage(), e.getCause());
      core.reason = e.getMessage();
      core.moveLocked(State.STOPPED);
      return e;
    }
    core.waitLocked(core.timing.atLeast(d, decision.floor()));
    return null;
  }
}
