package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When the server resumes the DDP session after a blip, the chat client goes on as if the socket
 * had never dropped: no login, no stream joined again, no catch-up call (the server's replay is
 * the catch-up), every room live at once, and the outbox drained as after any login.
 */
class ResumedSessionIsLiveAtOnceTest {

  @Test
  void everyRoomIsLiveAtOnceWithNoLoginNoRejoinAndNoCatchUp() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general").room("random"))) {
      h.start().loggedIn(h.expect("login"));
      Map<String, Frame> subs = h.expectAll("sub general", "sub random");
      h.ready(subs.get("sub general")).ready(subs.get("sub random"));
      Map<String, Frame> loads = h.expectAll("loadHistory general", "loadHistory random");
      h.result(loads.get("loadHistory general"), history());
      h.result(loads.get("loadHistory random"), history());
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      h.push("general", "m1", "before the blip", 1_000);

      h.drop();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.WAITING);
      assertThat(h.client.joinedRooms()).isEmpty();
      String offline = h.client.sendMessage("random", "written offline");
      Frame connect = h.resume();

      assertThat(connect.json().path("receivedCount").asLong()).isPositive();
      Frame send = h.expect("sendMessage random written offline");
      h.expectNothing(); // no login, no sub, no rooms/get, no loadMissedMessages
      // The replay: what the server queued while the socket was down, in order.
      h.push("general", "m2", "during the blip", 2_000);
      h.result(send, message("random", offline, "written offline", 3_000).toString());
      h.push("random", offline, "written offline", 3_000);

      assertThat(h.client.joinedRooms()).containsExactlyInAnyOrder("general", "random");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.status().resumed()).isTrue();
      assertThat(h.client.outboxSize()).isZero();
      assertThat(h.recorder.ids()).containsExactly("m1", "m2", offline);
      assertThat(h.recorder.duplicates()).isZero();
      ChatClient.Stats st = h.client.stats();
      assertThat(st.logins()).isEqualTo(1);
      assertThat(st.catchUps()).isZero();
      assertThat(st.resumes()).isEqualTo(1);
      assertThat(h.recorder.errors).isEmpty();
      h.expectNothing();
    }
  }

  @Test
  void aNewSessionAfterTheBlipRecoversTheUsualWay() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general"))) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      h.result(h.expect("loadHistory general"), history());
      h.push("general", "m1", "before the blip", 1_000);

      h.reconnect(); // the server answers with a new session id

      h.loggedIn(h.expect("login"));
      Frame sub = h.expect("sub general");
      h.expectNothing(); // the kept stream was dropped before the login, not sent again
      h.ready(sub);
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'general','lm':{'$date':2000}}]}");
      h.result(h.expect("loadMissedMessages general"),
          ChatHarness.missed(message("general", "m2", "during the blip", 2_000)));

      assertThat(h.recorder.ids()).containsExactly("m1", "m2");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.status().resumed()).isFalse();
      assertThat(h.client.stats().logins()).isEqualTo(2);
      assertThat(h.client.stats().resumes()).isZero();
    }
  }
}
