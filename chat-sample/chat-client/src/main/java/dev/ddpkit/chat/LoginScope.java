package dev.ddpkit.chat;

import dev.ddpkit.reconnect.Cancellable;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * What one login started, the way ddp-client's {@code Connection} is what one socket started: the
 * login call, then that login's stream joins and catch-ups. Each is watched through a {@link
 * Watch}, whose callbacks run (on the client's loop) unless the watch was cancelled or the login
 * ended first. A login lives from the moment it is sent until it is over: the client signed out
 * or closed, or its connection gone without a resume (a resumed session keeps it). Closing it
 * drops every callback still due, so no part compares tokens to learn whether an answer is stale.
 */
final class LoginScope {
  private boolean closed;

  /** Ends the login: no callback of it runs any more. */
  void close() {
    closed = true;
  }

  /** Whether the login is still the session's. */
  boolean isOpen() {
    return !closed;
  }

  /** A new watch of this login, with no callback yet. */
  Watch watch() {
    return new Watch();
  }

  /** A watch of one stage: {@code then} runs when it completes, unless cancelled first. */
  <T> Watch watch(CompletionStage<T> stage, BiConsumer<? super T, ? super Throwable> then) {
    return watch().on(stage, then);
  }

  /**
   * The callbacks of one thing a login started (a call, a subscription): cancelled when that
   * thing is dropped, and with the whole login.
   */
  final class Watch implements Cancellable {
    private boolean cancelled;

    /** Adds a callback: {@code then} runs when {@code stage} completes, if still active. */
    <T> Watch on(CompletionStage<T> stage, BiConsumer<? super T, ? super Throwable> then) {
      stage.whenComplete((v, e) -> {
        if (isActive()) {
          then.accept(v, e);
        }
      });
      return this;
    }

    /** Whether the callbacks still run: neither this watch nor its login is over. */
    boolean isActive() {
      return !cancelled && !closed;
    }

    /** Drops the callbacks still due. */
    @Override
    public void cancel() {
      cancelled = true;
    }
  }
}
