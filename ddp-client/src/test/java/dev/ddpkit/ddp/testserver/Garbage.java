package dev.ddpkit.ddp.testserver;

/** Kinds of bad frames {@link TestDdpServer#sendGarbage} can send, to test a client's defences. */
public enum Garbage {
  /** Text that is not JSON. */
  NOT_JSON,
  /** JSON that is not an object ({@code [1,2,3]}). */
  NOT_AN_OBJECT,
  /** An object without {@code msg}. */
  NO_MSG,
  /** An object with an unknown {@code msg}. */
  UNKNOWN_MSG,
  /** A known message with fields of the wrong types ({@code added} with a numeric id). */
  WRONG_TYPES,
  /** A {@code result} for a method id the client never used. */
  UNKNOWN_METHOD_ID,
  /** A binary frame (DDP is text only). */
  BINARY_FRAME,
  /** A valid {@code added} message of about 2 MiB. */
  HUGE_FRAME
}
