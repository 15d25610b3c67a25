package dev.ddpkit.chat;

/** Thrown when a message is written while the bounded outbox is full. */
public final class OutboxFullException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception for an outbox of {@code capacity} messages. */
  public OutboxFullException(int capacity) {
    super("outbox full: " + capacity + " messages wait for an acknowledgement");
  }
}
