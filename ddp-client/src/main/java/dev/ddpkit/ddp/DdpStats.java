package dev.ddpkit.ddp;

import java.util.Objects;

/**
 * Counters of one {@link DdpClient}, as a snapshot.
 *
 * @param framesIn frames received
 * @param framesOut frames sent
 * @param protocolErrors invalid frames, unknown messages and results for unknown calls
 * @param serverErrors top-level {@code error} messages from the server
 * @param reconnects times the client reached DDP {@code connected} again after a loss
 * @param heartbeatTimeouts connections declared dead by the heartbeat or a health check
 * @param connectTimeouts dials that did not reach {@code connected} in time
 * @param lastProtocolError the last protocol error, empty if none
 */
public record DdpStats(
    long framesIn,
    long framesOut,
    long protocolErrors,
    long serverErrors,
    long reconnects,
    long heartbeatTimeouts,
    long connectTimeouts,
    String lastProtocolError) {
  /** Validates the components. */
  public DdpStats {
    Objects.requireNonNull(lastProtocolError, "lastProtocolError");
  }
}
