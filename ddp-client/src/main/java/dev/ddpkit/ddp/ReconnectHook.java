package dev.ddpkit.ddp;

/**
 * Runs on every reconnection (not on the first connection), right after the server answered
 * {@code connected} and before the live subscriptions and unanswered calls are re-sent. A login
 * with a resume token made here as a {@link CallOptions#WAIT wait} call goes out ahead of everything
 * else.
 */
@FunctionalInterface
public interface ReconnectHook {
  /** Called on the client's event loop. */
  void onReconnect(DdpClient client);
}
