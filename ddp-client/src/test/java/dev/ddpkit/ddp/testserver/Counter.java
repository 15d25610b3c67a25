package dev.ddpkit.ddp.testserver;

/** The events a {@link TestDdpServer} counts; read them with {@link TestDdpServer#count}. */
public enum Counter {
  /** Listening sockets opened: 1 after start, +1 per {@link TestDdpServer#up()}. */
  STARTS,
  /** WebSocket handshakes accepted. */
  OPENED,
  /** WebSocket handshakes rejected while {@link TestDdpServer#refuse(boolean) refusing}. */
  REFUSED,
  /** Connections closed, whoever closed them. */
  CLOSED,
  /** DDP {@code connected} sent (one per successful DDP handshake). */
  SESSIONS,
  /** DDP {@code failed} sent (version negotiation). */
  VERSION_FAILED,
  /** Frames received and recorded. */
  FRAMES_RECEIVED,
  /** Frames sent (replies and test frames). */
  FRAMES_SENT,
  /** Sends that failed because the connection was already closed. */
  SEND_FAILED,
  /** DDP {@code ping}s answered with a {@code pong}. */
  PINGS_ANSWERED,
  /** DDP {@code method}s received. */
  METHODS,
  /** DDP {@code sub}s received. */
  SUBS,
  /** DDP {@code unsub}s received. */
  UNSUBS,
  /** DDP {@code error} messages sent for bad client frames. */
  ERRORS_SENT,
  /** Bytes read and thrown away, or written nowhere, while blackholed. */
  BLACKHOLED_BYTES,
  /** Frames not recorded because the recorder queue was full. */
  RECORDER_OVERFLOW,
  /**
   * Connections whose queued frames the library's selector had stopped writing (a lost wake-up
   * under load) and that {@link LostWriteGuard} set writing again.
   */
  WRITES_REARMED
}
