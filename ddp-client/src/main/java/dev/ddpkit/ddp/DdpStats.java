package dev.ddpkit.ddp;

import java.util.Objects;

/**
 * Counters of one {@link DdpClient}, as a snapshot.
 *
 * @param framesIn frames received
 * @param framesOut frames sent
 * @param protocolErrors invalid frames, unknown messages and results for unknown calls, whether
 *     the frame was dropped and the connection kept or the connection dropped
 * @param serverErrors top-level {@code error} messages from the server
 * @param reconnects times the client reached DDP {@code connected} again after a loss
 * @param heartbeatTimeouts connections declared dead by the heartbeat or a health check
 * @param connectTimeouts dials that did not reach {@code connected} in time
 * @param lastProtocolError the last protocol error, empty if none
 * @param deviations frames that bent the spec in a well-known way and were read as what they mean
 *     (an {@code updated} with {@code id}, a method error without {@code msg}); not protocol
 *     errors
 * @param protocolDrops connections the client dropped for a protocol error (a frame over the size
 *     limit, a {@code connected} in the middle of a session, any invalid frame in strict mode)
 * @param resumes reconnects that resumed the session (DDP session resumption): counted in {@code
 *     reconnects} too
 */
public record DdpStats(
    long framesIn,
    long framesOut,
    long protocolErrors,
    long serverErrors,
    long reconnects,
    long heartbeatTimeouts,
    long connectTimeouts,
    String lastProtocolError,
    long deviations,
    long protocolDrops,
    long resumes) {
  /** Validates the components. */
  public DdpStats {
    Objects.requireNonNull(lastProtocolError, "lastProtocolError");
  }

  /** Counters of a client that resumed no session. */
  public DdpStats(long framesIn, long framesOut, long protocolErrors, long serverErrors,
      long reconnects, long heartbeatTimeouts, long connectTimeouts, String lastProtocolError,
      long deviations, long protocolDrops) {
    this(framesIn, framesOut, protocolErrors, serverErrors, reconnects, heartbeatTimeouts,
        connectTimeouts, lastProtocolError, deviations, protocolDrops, 0);
  }
}
