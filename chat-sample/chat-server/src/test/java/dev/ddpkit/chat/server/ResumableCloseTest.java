package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.server.Arrivals.Mode;
import org.junit.jupiter.api.Test;

/** Which closes of a connected session keep it for a resume: drops yes, the server's own no. */
class ResumableCloseTest {

  private static Session connected() {
    Session s = new Session(1, null, 0, null);
    s.connected = true;
    s.resumable = true;
    return s;
  }

  @Test
  void aResetThePeersCloseAndAHeartbeatTimeoutAreDrops() {
    assertThat(DdpHandler.resumable(connected(), 1006, false, Mode.OPEN)).as("reset").isTrue();
    assertThat(DdpHandler.resumable(connected(), 1006, true, Mode.OPEN)).as("EOF").isTrue();
    assertThat(DdpHandler.resumable(connected(), 1000, true, Mode.OPEN)).as("peer's close")
        .isTrue();
    Session dead = connected();
    dead.heartbeatDead = true;
    dead.serverClosed = true;
    assertThat(DdpHandler.resumable(dead, 1000, false, Mode.OPEN)).as("heartbeat").isTrue();
  }

  @Test
  void aCloseTheServerMadeIsNot() {
    Session closed = connected();
    closed.serverClosed = true;
    assertThat(DdpHandler.resumable(closed, 1006, true, Mode.OPEN)).isFalse();
    assertThat(DdpHandler.resumable(connected(), 1008, false, Mode.OPEN))
        .as("a policy close sent by the server").isFalse();
    assertThat(DdpHandler.resumable(connected(), 1009, false, Mode.OPEN))
        .as("a frame too big, found by the WebSocket layer").isFalse();
    Session bad = connected();
    bad.protocolClose = true;
    assertThat(DdpHandler.resumable(bad, 1006, true, Mode.OPEN)).isFalse();
  }

  @Test
  void notWhileDrainingOrKilledNorAfterDisconnectOrLogoutNorBeforeConnected() {
    assertThat(DdpHandler.resumable(connected(), 1006, true, Mode.DRAINING)).isFalse();
    assertThat(DdpHandler.resumable(connected(), 1006, true, Mode.KILLED)).isFalse();
    Session left = connected();
    left.resumable = false;
    assertThat(DdpHandler.resumable(left, 1006, true, Mode.OPEN)).isFalse();
    Session fresh = connected();
    fresh.connected = false;
    assertThat(DdpHandler.resumable(fresh, 1006, true, Mode.OPEN)).isFalse();
  }
}
