package dev.ddpkit.ddp.ejson;

/**
 * Malformed EJSON ({@code $date} that is not a number, bad base64, {@code $InfNaN} other than 1, -1
 * or 0, an unknown {@code $type}), or a Java value that has no EJSON form. The message names the
 * problem and, when decoding, the JSON path where it was found.
 */
public class EjsonException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message. */
  public EjsonException(String message) {
    super(message);
  }

  /** Creates an exception with a message and a cause. */
  public EjsonException(String message, Throwable cause) {
    super(message, cause);
  }
}
