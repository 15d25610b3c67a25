package dev.ddpkit.ddp;

/**
 * Runs on every reconnection (not on the first connection), right after the server answered
 * {@code connected} and before the live subscriptions and unanswered calls are re-sent. A login
 * with a resume token made here as a {@link CallOptions#WAIT wait} call goes out ahead of everything
 * else: the calls a hook makes on the client (on the event loop, while the hook runs) are
 * collected and queued ahead of the unanswered ones once the hooks have returned. Anything else a
 * hook asks of the client (a subscription, a close) is queued behind the reconnection, as from any
 * other listener.
 */
@FunctionalInterface
public interface ReconnectHook {
  /** Called on the client's event loop. */
  void onReconnect(DdpClient client);
}
