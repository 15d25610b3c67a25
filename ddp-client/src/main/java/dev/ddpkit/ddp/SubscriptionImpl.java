package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A subscription handle. Flags are written on the event loop and read from any thread. */
final class SubscriptionImpl implements Subscription {
  private final String id;
  private final String name;
  final ArrayNode params;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private final Consumer<SubscriptionImpl> stopper;
  private volatile boolean isReady;
  /** Ready, and no connection lost since (cleared on a loss, set again by the resync's ready). */
  private volatile boolean current;
  private volatile boolean stopped;
  /** Sent in the current server session (event loop only). */
  private boolean sent;

  SubscriptionImpl(String id, String name, ArrayNode params, Consumer<SubscriptionImpl> stopper) {
    this.id = id;
    this.name = name;
    this.params = params;
    this.stopper = stopper;
  }
  /** Whether it was sent on the current connection (event loop only). */
  boolean isSent() {
    return sent;
  }

  /** Sent on the current connection (event loop only). */
  void markSent() {
    sent = true;
  }

  /** To be sent again on the next connection (event loop only). */
  void markUnsent() {
    sent = false;
  }


  @Override
  public String id() {
    return id;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public CompletableFuture<Void> ready() {
    return ready;
  }

  @Override
  public CompletableFuture<Void> ended() {
    return ended;
  }

  @Override
  public boolean isReady() {
    return isReady && !stopped;
  }

  @Override
  public boolean isCurrent() {
    return current && !stopped;
  }

  @Override
  public void stop() {
    stopper.accept(this);
  }

  boolean stopped() {
    return stopped;
  }

  /** Marks the subscription ready; completes the future the first time. */
  void markReady() {
    if (!stopped) {
      isReady = true;
      current = true;
      ready.complete(null);
    }
  }

  /** The session resumed: a subscription that was ready shows current data again. */
  void markCurrentIfReady() {
    if (isReady && !stopped) {
      current = true;
    }
  }

  /** The connection was lost: the data shown for it is what it was until the next resync. */
  void markStale() {
    current = false;
  }

  /**
   * Marks it stopped for a reason the application did not ask for: fails the ready future if it had
   * not completed, and the ended future with {@code cause}.
   */
  void markStopped(RuntimeException cause) {
    stopped = true;
    ready.completeExceptionally(cause);
    ended.completeExceptionally(cause);
  }

  /** Marks it stopped by {@link #stop()}: fails the ready future if need be, ends it normally. */
  void markUnsubscribed(RuntimeException ifNotReady) {
    stopped = true;
    ready.completeExceptionally(ifNotReady);
    ended.complete(null);
  }

  @Override
  public String toString() {
    // No params: they may carry a token.
    return "Subscription{" + name + " id=" + id + (isReady() ? " ready" : "")
        + (isReady() && !isCurrent() ? " stale" : "")
        + (stopped ? " stopped" : "") + "}";
  }
}
