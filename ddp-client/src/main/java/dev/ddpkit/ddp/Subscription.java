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

  /**
   * Completes when the subscription has ended for good, whatever the reason; until then it survives
   * reconnects. It completes normally once {@link #stop()} has taken effect. It fails with a {@link
   * DdpMethodException} when the server refuses the subscription or ends it with an error ({@code
   * nosub} with an error, including when a subscription revived after a reconnect is refused), and
   * with a {@link DdpException} when the server ends it without an error ({@code nosub} after
   * {@code ready}) or with a malformed error (a protocol error: only this subscription ends, the
   * connection stays), when the client is closed, or when it fails for good. Unlike {@link #ready()},
   * which only covers the first {@code ready}, this is how an application learns that a live
   * subscription is gone. Completed on the client's event loop: dependent actions must not block.
   */
  CompletableFuture<Void> ended();

  /**
   * Returns whether the server has answered {@code ready} (and the subscription is not stopped). It
   * stays {@code true} across reconnects, while the data shown may be stale: see {@link
   * #isCurrent()}.
   */
  boolean isReady();

  /**
   * Returns whether the local collections show this subscription's current data: it is ready, not
   * stopped, and no connection was lost since its last {@code ready} was applied. Unlike {@link
   * #isReady()}, this turns {@code false} as soon as the connection is lost, and {@code true} again
   * only when the resynchronisation after the reconnect has replaced the collections with the
   * server's data (see {@link DdpClient#isResyncing()}). Safe to call from any thread.
   *
   * <p>The default, for implementations that predate it, is {@link #isReady()}.
   */
  default boolean isCurrent() {
    return isReady();
  }

  /**
   * Unsubscribes: sends {@code unsub} (now or when connected) and stops re-sending it; {@link
   * #ended()} then completes normally. Called on the client's event loop (from a listener) it
   * takes effect before the call returns: stopped in {@link ConnectionListener#onConnected(boolean,
   * boolean)}, a subscription is not sent again by the reconnect under way.
   */
  void stop();
}
