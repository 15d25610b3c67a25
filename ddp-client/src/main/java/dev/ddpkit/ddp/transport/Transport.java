package dev.ddpkit.ddp.transport;

import java.time.Duration;

/**
 * One connection attempt to a DDP server, as the client sees it: a text channel that can be closed.
 * A transport is used once: the client opens a new one for every attempt.
 */
public interface Transport {
  /**
   * Sends one text frame. Frames sent before the transport opened or after it closed are dropped
   * (the client re-sends what matters after the next connect).
   */
  void send(String text);

  /**
   * Closes the connection from this side, with a closing handshake if the transport is open, and
   * releases its socket promptly even if the peer never answers. The client does not wait for
   * {@link TransportListener#onClose} after calling this, and ignores it if it comes.
   *
   * @param code the close code to send (1000 for a normal close)
   * @param reason a short reason, may be empty
   */
  void close(int code, String reason);

  /**
   * Waits until the transport's own threads, if any, have ended after {@link #close}. The default
   * has no threads and returns {@code true} at once.
   *
   * @return whether every thread ended within {@code timeout}
   */
  default boolean awaitTermination(Duration timeout) throws InterruptedException {
    return true;
  }
}
