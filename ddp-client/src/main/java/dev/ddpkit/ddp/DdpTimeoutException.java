package dev.ddpkit.ddp;

/**
 * A call had no result within its {@linkplain CallOptions#withTimeout timeout}. The server may
 * still have run it.
 */
public class DdpTimeoutException extends DdpException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message. */
  public DdpTimeoutException(String message) {
    super(message);
  }
}
