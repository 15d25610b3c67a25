package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Messages written while the server is down wait in the outbox and arrive once, in order. The test
 * plays the server: it stores what it is sent and pushes it on the room's stream.
 */
class OfflineMessagesArriveOnceTest {

  @Test
  void messagesWrittenWhileOfflineArriveOnce() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general"))) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      h.result(h.expect("loadHistory general"), history());
      assertThat(h.client.joinedRooms()).contains("general");
      String first = h.client.sendMessage("general", "before");
      store(h, h.expect("sendMessage general before"), 1_000);

      h.drop();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.WAITING);
      String m1 = h.client.sendMessage("general", "offline 1");
      String m2 = h.client.sendMessage("general", "offline 2");
      String m3 = h.client.sendMessage("general", "offline 3");
      assertThat(h.client.outboxSize()).isEqualTo(3);
      assertThat(h.recorder.sent).containsExactly(first);
      h.advance(Duration.ofSeconds(1)).accept(); // the server is back

      h.loggedIn(h.expect("login"));
      List<Frame> sent = new ArrayList<>();
      Frame sub = null;
      for (Frame f; (f = h.nextOrNull()) != null; ) {
        if (f.summary().equals("sub general")) {
          sub = f;
        } else {
          sent.add(f);
        }
      }
      assertThat(sent).extracting(Frame::summary).as("each once, in the order written")
          .containsExactly("sendMessage general offline 1", "sendMessage general offline 2",
              "sendMessage general offline 3");
      assertThat(sent).extracting(f -> f.params().path(0).path("_id").asText())
          .containsExactly(m1, m2, m3);
      long ts = 2_000;
      for (Frame f : sent) {
        store(h, f, ts += 1_000);
      }
      h.ready(sub);
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'general','lm':{'$date':5000}}]}");
      h.result(h.expect("loadMissedMessages general"), missed(
          message("general", m1, "offline 1", 3_000), message("general", m2, "offline 2", 4_000),
          message("general", m3, "offline 3", 5_000)));

      assertThat(h.client.outboxSize()).isZero();
      assertThat(h.recorder.sent).containsExactlyInAnyOrder(first, m1, m2, m3);
      assertThat(h.recorder.ids()).containsExactly(first, m1, m2, m3);
      assertThat(h.recorder.texts()).containsExactly("before", "offline 1", "offline 2", "offline 3");
      assertThat(h.recorder.duplicates()).isZero();
      assertThat(h.recorder.statuses).extracting(ChatStatus::state)
          .contains(ChatStatus.State.WAITING)
          .endsWith(ChatStatus.State.CONNECTED);
      assertThat(h.recorder.errors).isEmpty();
      h.expectNothing();
    }
  }

  @Test
  void aClientStartedWhileTheServerIsDownLogsInAndSendsWhenItComesUp() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general"))) {
      h.client.start();
      h.refuse(); // the server is down
      String id = h.client.sendMessage("general", "written before the first connection");
      assertThat(h.recorder.lastState()).isEqualTo(ChatStatus.State.WAITING);
      assertThat(h.client.loggedIn()).isNotDone();

      h.advance(Duration.ofSeconds(1)).accept(); // the server is up
      h.loggedIn(h.expect("login"));
      Map<String, Frame> after =
          h.expectAll("sub general", "sendMessage general written before the first connection");
      store(h, after.get("sendMessage general written before the first connection"), 1_000);
      h.ready(after.get("sub general"));
      h.result(h.expect("loadHistory general"),
          history(message("general", id, "written before the first connection", 1_000)));

      assertThat(h.recorder.sent).contains(id);
      assertThat(h.recorder.saw(id)).isTrue();
      assertThat(h.client.loggedIn()).isCompleted();
      assertThat(h.recorder.ids()).containsExactly(id);
      assertThat(h.client.joinedRooms()).containsExactly("general");
      assertThat(h.recorder.errors).isEmpty();
      h.expectNothing(); // sent once
    }
  }

  /** The server stores a sent message: it answers the call and pushes it on the stream. */
  private static void store(ChatHarness h, Frame send, long ts) {
    String id = send.params().path(0).path("_id").asText();
    String text = send.params().path(0).path("msg").asText();
    h.result(send, message("general", id, text, ts).toString());
    h.push("general", id, text, ts);
  }
}
