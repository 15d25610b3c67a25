package dev.ddpkit.chat.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatMessage;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OrderCheckTest {
  private static ChatMessage m(String id, String rid, String user, long seq, long ts) {
    return new ChatMessage(id, rid, user, OrderCheck.text(user, seq, "1.0 s"),
        Instant.ofEpochMilli(ts));
  }

  @Test
  void messagesInOrderCountNothing() {
    OrderCheck check = new OrderCheck();
    check.shown(m("a", "r1", "u1", 1, 10));
    check.shown(m("b", "r1", "u2", 1, 11));
    check.shown(m("c", "r1", "u1", 2, 12));
    check.shown(m("d", "r2", "u1", 3, 5)); // another room has its own clock
    assertThat(check.tsBackwards()).isZero();
    assertThat(check.senderBackwards()).isZero();
  }

  @Test
  void aTimeStampGoingBackInARoomIsCountedOnce() {
    OrderCheck check = new OrderCheck();
    check.shown(m("a", "r1", "u1", 1, 10));
    check.shown(m("b", "r1", "u2", 1, 30));
    check.shown(m("c", "r1", "u3", 1, 20)); // older than b
    check.shown(m("d", "r1", "u4", 1, 25)); // still older than b
    check.shown(m("e", "r1", "u5", 1, 31));
    assertThat(check.tsBackwards()).isEqualTo(2);
  }

  @Test
  void aSendersEarlierMessageAfterItsLaterOneIsCounted() {
    OrderCheck check = new OrderCheck();
    check.shown(m("a", "r1", "u1", 2, 10));
    check.shown(m("b", "r1", "u1", 1, 11)); // written first, shown second, later stamp
    check.shown(m("c", "r1", "u1", 3, 12));
    assertThat(check.senderBackwards()).isEqualTo(1);
    assertThat(check.tsBackwards()).isZero();
  }
}
