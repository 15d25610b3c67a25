package dev.ddpkit.chat;

import dev.ddpkit.ddp.Subscription;

/**
 * A stream one login asked for, with the callbacks watching its ready and its end: dropping the
 * join drops them too, so a late answer of a stream the room no longer has is never heard.
 *
 * @param subscription the DDP subscription
 * @param watch the callbacks on it, part of the login that asked
 */
record StreamJoin(Subscription subscription, LoginScope.Watch watch) {

  /** Drops the callbacks and unsubscribes (offline, the DDP client only forgets it). */
  void stop() {
    watch.cancel();
    subscription.stop();
  }

  /** Drops the callbacks of a subscription that already ended. */
  void forget() {
    watch.cancel();
  }
}
