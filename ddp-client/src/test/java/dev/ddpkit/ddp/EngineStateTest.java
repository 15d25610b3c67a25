package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.EngineState.CLOSED;
import static dev.ddpkit.ddp.EngineState.CONNECTED;
import static dev.ddpkit.ddp.EngineState.DIALING;
import static dev.ddpkit.ddp.EngineState.FAILED;
import static dev.ddpkit.ddp.EngineState.HANDSHAKE;
import static dev.ddpkit.ddp.EngineState.IDLE;
import static dev.ddpkit.ddp.EngineState.RESYNCING;
import static dev.ddpkit.ddp.EngineState.WAITING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine's transition table: the moves it makes, and every other move refused loudly. */
class EngineStateTest {

  @Test
  void theTableHasTheMovesTheEngineMakesAndNoOther() {
    List<String> moves = new ArrayList<>();
    for (EngineState from : EngineState.values()) {
      for (EngineState to : from.next()) {
        moves.add(from + "->" + to);
      }
    }
    assertThat(moves).containsExactlyInAnyOrder(
        "IDLE->WAITING", "IDLE->FAILED", "IDLE->CLOSED",
        "WAITING->DIALING", "WAITING->FAILED", "WAITING->CLOSED",
        "DIALING->DIALING", "DIALING->HANDSHAKE", "DIALING->CONNECTED", "DIALING->RESYNCING",
        "DIALING->WAITING", "DIALING->FAILED", "DIALING->CLOSED",
        "HANDSHAKE->DIALING", "HANDSHAKE->CONNECTED", "HANDSHAKE->RESYNCING",
        "HANDSHAKE->WAITING", "HANDSHAKE->FAILED", "HANDSHAKE->CLOSED",
        "CONNECTED->WAITING", "CONNECTED->FAILED", "CONNECTED->CLOSED",
        "RESYNCING->CONNECTED", "RESYNCING->WAITING", "RESYNCING->FAILED", "RESYNCING->CLOSED",
        "FAILED->WAITING", "FAILED->CLOSED");
  }

  @Test
  void anIllegalMoveThrowsNamingIt() {
    HANDSHAKE.checkMove(DIALING); // a version negotiation
    DIALING.checkMove(CONNECTED); // connected before the open was seen
    assertThatThrownBy(() -> CLOSED.checkMove(WAITING))
        .isInstanceOf(IllegalStateException.class).hasMessage("illegal move CLOSED -> WAITING");
    assertThatThrownBy(() -> WAITING.checkMove(WAITING))
        .isInstanceOf(IllegalStateException.class).hasMessage("illegal move WAITING -> WAITING");
    assertThatThrownBy(() -> CONNECTED.checkMove(RESYNCING))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> IDLE.checkMove(CONNECTED)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> FAILED.checkMove(FAILED)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void everyStateWithASocketCanLoseItAndEveryStateButClosedCanGiveUpOrClose() {
    for (EngineState s : EngineState.values()) {
      if (s.hasConnection()) {
        assertThat(s.next()).as(s + " loses its socket").contains(WAITING);
      }
      if (s != CLOSED) {
        assertThat(s.next()).as(s + " closes").contains(CLOSED);
        assertThat(s.next()).as(s + " gives up").contains(s == FAILED ? CLOSED : FAILED);
      }
    }
    assertThat(CLOSED.next()).as("final").isEmpty();
  }
}
