package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The client's basic conversation with a Rocket.Chat server, as transcripts on virtual time. */
class LoginJoinSendTranscriptTest {

  @Test
  void logsInThenJoinsThenLoadsHistoryThenIsConnected() {
    try (ChatHarness h = new ChatHarness(b -> b.room("r1"))) {
      h.start();
      Frame login = h.expect("login");
      assertThat(login.params().path(0).path("password").path("algorithm").asText())
          .isEqualTo("sha-256");
      h.expectNothing().loggedIn(login);
      Frame sub = h.expect("sub r1");
      h.expectNothing().ready(sub);
      Frame hist = h.expect("loadHistory r1");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.SYNCING);
      h.result(hist, history(message("r1", "m2", "two", 2000), message("r1", "m1", "one", 1000)));

      assertThat(h.recorder.texts()).containsExactly("one", "two");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.joinedRooms()).containsExactly("r1");
      assertThat(h.client.isCatchingUp("r1")).isFalse();
      h.push("r1", "m3", "three", 3000).push("r1", "m3", "three", 3000);
      assertThat(h.recorder.texts()).containsExactly("one", "two", "three");
    }
  }

  @Test
  void aMessageWrittenOfflineGoesOutAfterTheLoginAndIsReportedSent() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0))) {
      String id = h.client.sendMessage("r1", "hello");
      h.start();
      Frame login = h.expect("login");
      h.expectNothing().loggedIn(login);
      Frame send = h.expect("sendMessage r1 hello");
      assertThat(send.params().path(0).path("_id").asText()).isEqualTo(id);
      assertThat(h.client.outboxSize()).isEqualTo(1);
      h.result(send, "{'_id':'" + id + "','rid':'r1','msg':'hello'}");
      assertThat(h.recorder.sent).containsExactly(id);
      assertThat(h.client.outboxSize()).isZero();
      assertThat(h.client.flush()).isCompleted();
    }
  }

  @Test
  void afterAReconnectTheRoomIsCaughtUpFromTheNewestMessageShown() {
    try (ChatHarness h = new ChatHarness(b -> b.room("r1").catchUpOverlap(Duration.ZERO))) {
      h.start();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "one", 1000)));

      h.reconnect();
      h.loggedIn(h.expect("login"));
      Frame sub = h.expect("sub r1");
      h.ready(sub);
      Frame roomsGet = h.expect("rooms/get");
      assertThat(roomsGet.params().path(0).path("$date").asLong()).isEqualTo(1000);
      h.result(roomsGet, "{'update':[{'_id':'r1','lm':{'$date':2000}}],'remove':[]}");
      Frame catchUp = h.expect("loadMissedMessages r1");
      assertThat(catchUp.params().path(1).path("$date").asLong()).isEqualTo(1000);
      h.result(catchUp, missed(message("r1", "m1", "one", 1000), message("r1", "m2", "two", 2000)));
      assertThat(h.recorder.texts()).containsExactly("one", "two");
      assertThat(h.recorder.duplicates()).isZero();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }
}
