package dev.ddpkit.ddp;

import java.util.concurrent.CompletableFuture;

/**
 * A live DDP subscription. It survives reconnects: the client re-sends it with the same id after
 * each one until {@link #stop()} is called.
 */
public interface Subscription {
  /** Returns the subscription id sent to the server. */
  String id();

  /** Returns the publication name. */
  String name();

  /**
   * Completes when the server first answers {@code ready}; fails with a {@link DdpMethodException}
   * if it answers {@code nosub} with an error, or with a {@link DdpException} if the client closes
   * first.
   */
  CompletableFuture<Void> ready();

  /** Returns whether the server has answered {@code ready} (and the subscription is not stopped). */
  boolean isReady();

  /** Unsubscribes: sends {@code unsub} (now or when connected) and stops re-sending it. */
  void stop();
}
