package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.ReconnectStatus;
import java.time.Instant;

/** Maps the reconnection manager's state and the DDP handshake to Meteor's {@code status()}. */
final class StatusMapping {
  private StatusMapping() {}

  /**
   * Computes the status.
   *
   * @param m the manager's snapshot
   * @param retryTime the wall-clock time of the next attempt when waiting, else {@code null}
   * @param ddpConnected whether DDP {@code connected} was received on the current connection
   * @param closedByUser whether {@link DdpClient#close()} was called
   * @param failure the reason of a failure for good found by the client itself, or {@code null}
   */
  static DdpStatus map(
      ReconnectStatus m, Instant retryTime, boolean ddpConnected, boolean closedByUser,
      String failure) {
    if (closedByUser) {
      return new DdpStatus(DdpStatus.State.OFFLINE, m.attempt(), null, "closed by client");
    }
    if (failure != null) {
      return new DdpStatus(DdpStatus.State.FAILED, m.attempt(), null, failure);
    }
    DdpStatus.State state =
        switch (m.state()) {
          case IDLE, CONNECTING -> DdpStatus.State.CONNECTING;
          // The socket may be open while the DDP handshake is still under way.
          case CONNECTED -> ddpConnected ? DdpStatus.State.CONNECTED : DdpStatus.State.CONNECTING;
          case WAITING -> DdpStatus.State.WAITING;
          case HELD -> DdpStatus.State.OFFLINE;
          case STOPPED -> DdpStatus.State.FAILED;
        };
    Instant retry = state == DdpStatus.State.WAITING ? retryTime : null;
    String reason = state == DdpStatus.State.CONNECTED ? "" : m.reason();
    return new DdpStatus(state, m.attempt(), retry, reason);
  }
}
