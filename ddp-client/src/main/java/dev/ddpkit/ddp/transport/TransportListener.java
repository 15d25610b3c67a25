package dev.ddpkit.ddp.transport;

import java.nio.charset.StandardCharsets;

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
   * One text message arrived as its UTF-8 bytes, {@code utf8[offset, offset + length)}, which the
   * transport has checked are valid UTF-8 (a transport that cannot check calls {@link
   * #onMessage(String)} instead). The array is the listener's from now on: the transport neither
   * reuses nor changes it. The default decodes it and calls {@link #onMessage(String)}; a listener
   * that parses bytes overrides it, and saves the decoding and the string.
   */
  default void onText(byte[] utf8, int offset, int length) {
    onMessage(new String(utf8, offset, length, StandardCharsets.UTF_8));
  }

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
