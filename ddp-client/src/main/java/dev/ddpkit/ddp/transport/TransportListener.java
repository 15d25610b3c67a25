package dev.ddpkit.ddp.transport;

/**
 * Receives the events of one {@link Transport}. May be called on any thread (the client hands each
 * event over to its event loop); events of one transport arrive in order.
 */
public interface TransportListener {
  /** The connection is open: frames can be sent. */
  void onOpen();

  /** One text frame arrived. */
  void onMessage(String text);

  /**
   * The connection closed or could not be made.
   *
   * @param code the close code (1006 when the connection dropped or never opened)
   * @param reason the close reason, possibly empty
   * @param remote whether the peer closed it
   */
  void onClose(int code, String reason, boolean remote);

  /**
   * An error occurred; {@link #onClose} follows if it ended the connection. A {@link
   * dev.ddpkit.ddp.protocol.DdpProtocolException} (bad input the transport dropped, such as a binary
   * frame) is counted by the client as a protocol error.
   */
  void onError(Throwable error);
}
