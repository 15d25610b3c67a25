package dev.ddpkit.reconnect;

/** WebSocket close codes that reconnection cares about (RFC 6455 and the IANA registry). */
public final class CloseCodes {
  private CloseCodes() {}

  /** Normal closure. Meteor servers also send it on drain and heartbeat timeout. */
  public static final int NORMAL = 1000;
  /** The peer is going away (server shutdown, page navigation). */
  public static final int GOING_AWAY = 1001;
  /** Protocol error. */
  public static final int PROTOCOL_ERROR = 1002;
  /** Unacceptable data type. */
  public static final int UNSUPPORTED_DATA = 1003;
  /** No close frame: the connection dropped or could not be made. Never sent on the wire. */
  public static final int ABNORMAL = 1006;
  /** Policy violation. */
  public static final int POLICY_VIOLATION = 1008;
  /** Message too big. */
  public static final int TOO_BIG = 1009;
  /** The server hit an unexpected condition. */
  public static final int INTERNAL_ERROR = 1011;
  /** The server is restarting. */
  public static final int SERVICE_RESTART = 1012;
  /** Try again later: the server is overloaded. */
  public static final int TRY_AGAIN_LATER = 1013;
  /** TLS handshake failure. Never sent on the wire. */
  public static final int TLS_HANDSHAKE = 1015;
  /** Rocket.Chat's streamer closes an idle connection with 4000 "TIMEOUT". */
  public static final int ROCKETCHAT_TIMEOUT = 4000;
  /** Application code used here for "credentials refused, refresh them". */
  public static final int UNAUTHORIZED = 4401;
  /** Application code for "forbidden": do not retry. */
  public static final int FORBIDDEN = 4403;
}
