package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import dev.ddpkit.chat.protocol.CallLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rocket.Chat's default limits are the client's budgets: after the login, the streams, the
 * histories and the outbox go out within them, waiting in order when spent, the room in focus
 * first, then by recent activity.
 */
class BudgetsTest {

  private static List<String> rooms(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("r" + i);
    }
    return out;
  }

  @Test
  void fifteenHistoriesGoTenPerWindowAndEveryRoomCatchesUp() {
    try (ChatHarness h = new ChatHarness(b -> b.rooms(rooms(15)))) {
      h.start().loggedIn(h.expect("login"));
      List<Frame> subs = new ArrayList<>();
      for (int i = 0; i < 15; i++) {
        subs.add(h.expect("sub r" + i));
      }
      subs.forEach(h::ready);
      List<Frame> first = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        first.add(h.expect("loadHistory r" + i));
      }
      h.expectNothing();
      first.forEach(f -> h.result(f, history()));
      assertThat(h.client.status()).isEqualTo(ChatStatus.syncing(5));
      h.advance(Duration.ofSeconds(10)).expectNothing(); // the window plus its 250 ms margin
      h.advance(Duration.ofMillis(250));
      for (int i = 10; i < 15; i++) {
        h.result(h.expect("loadHistory r" + i), history());
      }
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.stats().rateLimited()).isZero();
    }
  }

  @Test
  void fiftyStreamsGoFortyPerWindow() {
    try (ChatHarness h = new ChatHarness(b -> b.rooms(rooms(50)).historyLimit(0))) {
      h.start().loggedIn(h.expect("login"));
      assertThat(h.sent()).hasSize(40);
      h.advance(Duration.ofMillis(10_249)).expectNothing();
      h.advance(Duration.ofMillis(1));
      assertThat(h.sent()).hasSize(10).allMatch(s -> s.startsWith("sub r"));
    }
  }

  @Test
  void eachBurstOfStreamsIsSettledByOneRoomsGet() {
    try (ChatHarness h = new ChatHarness(b -> b.rooms(rooms(50)).historyLimit(0))) {
      h.start().loggedIn(h.expect("login"));
      List<Frame> first = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        first.add(h.expect("sub r" + i));
      }
      first.forEach(h::ready);
      h.result(h.expect("rooms/get"), "{'update':[],'remove':[]}");
      assertThat(h.client.status()).isEqualTo(ChatStatus.syncing(10));
      h.advance(Duration.ofMillis(10_250));
      List<Frame> second = new ArrayList<>();
      for (int i = 40; i < 50; i++) {
        second.add(h.expect("sub r" + i));
      }
      second.forEach(h::ready);
      h.result(h.expect("rooms/get"), "{'update':[],'remove':[]}");
      h.expectNothing();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }

  @Test
  void theRoomInFocusGoesFirstThenTheMostRecentlyActive() {
    ChatLimits one = ChatLimits.rocketChatDefaults().withPerMethod(new CallLimit(1,
        Duration.ofSeconds(10)));
    try (ChatHarness h = new ChatHarness(b -> b.rooms(rooms(3)).limits(one))) {
      h.start().loggedIn(h.expect("login"));
      Frame s0 = h.expect("sub r0");
      Frame s1 = h.expect("sub r1");
      Frame s2 = h.expect("sub r2");
      h.client.focus("r2");
      h.ready(s0).ready(s1).ready(s2);
      h.result(h.expect("loadHistory r0"), history(message("r0", "a", "a", 1000)));
      h.expectNothing();
      h.advance(Duration.ofMillis(10_250));
      h.result(h.expect("loadHistory r2"), history(message("r2", "c", "c", 3000)));
      h.advance(Duration.ofMillis(10_250));
      h.result(h.expect("loadHistory r1"), history());
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }

  @Test
  void sendsGoFivePerSecondInTheOrderWritten() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0))) {
      for (int i = 0; i < 7; i++) {
        h.client.sendMessage("r1", "m" + i);
      }
      h.start().loggedIn(h.expect("login"));
      assertThat(h.sent()).containsExactly(
          "sendMessage r1 m0", "sendMessage r1 m1", "sendMessage r1 m2", "sendMessage r1 m3",
          "sendMessage r1 m4");
      assertThat(h.client.status().text()).isEqualTo("connected, 7 waiting");
      h.advance(Duration.ofMillis(1_250));
      assertThat(h.sent()).containsExactly("sendMessage r1 m5", "sendMessage r1 m6");
    }
  }
}
