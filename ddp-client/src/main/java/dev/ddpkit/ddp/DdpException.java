package dev.ddpkit.ddp;

/** Base of the exceptions the DDP client completes futures with or throws. */
public class DdpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message. */
  public DdpException(String message) {
    super(message);
  }

  /** Creates an exception with a message and a cause. */
  public DdpException(String message, Throwable cause) {
    super(message, cause);
  }
}
