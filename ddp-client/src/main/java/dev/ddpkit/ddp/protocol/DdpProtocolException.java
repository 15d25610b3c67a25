package dev.ddpkit.ddp.protocol;

/**
 * A frame from the server that is not valid DDP: not JSON, not an object, or a field of the wrong
 * type. The message names the problem and never quotes the frame (it may carry tokens).
 */
public class DdpProtocolException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message. */
  public DdpProtocolException(String message) {
    super(message);
  }
}
