package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server stores a message but its acknowledgement is lost, then the connection drops: the
 * client sends the message again with the same id (which the server ignores as a second copy:
 * Rocket.Chat answers it with no result field), and nobody sees it twice.
 */
class LostAcknowledgementDoesNotDuplicateTest {
  @Test
  void aLostAcknowledgementDoesNotDuplicate() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general"))) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      h.result(h.expect("loadHistory general"), history());
      assertThat(h.client.joinedRooms()).contains("general");

      String id = h.client.sendMessage("general", "only once");
      Frame first = h.expect("sendMessage general only once"); // stored; its answer is lost
      h.push("general", id, "only once", 2_000); // the stream shows it (bob sees it too)
      assertThat(h.recorder.sent).as("no acknowledgement yet").isEmpty();
      assertThat(h.client.outboxSize()).isEqualTo(1);

      h.reconnect().loggedIn(h.expect("login"));
      Map<String, Frame> after = h.expectAll("sub general", "sendMessage general only once");
      Frame again = after.get("sendMessage general only once");
      assertThat(again.params().path(0).path("_id").asText()).as("the same id, so stored once")
          .isEqualTo(first.params().path(0).path("_id").asText()).isEqualTo(id);
      h.result(again, null); // Rocket.Chat's answer to an _id it already has: delivered
      assertThat(h.recorder.sent).contains(id);
      assertThat(h.client.outboxSize()).isZero();
      h.ready(after.get("sub general"));
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'general','lm':{'$date':2000}}]}");
      h.result(h.expect("loadMissedMessages general"),
          missed(message("general", id, "only once", 2_000)));
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);

      h.push("general", "after", "after", 3_000); // bob writes
      assertThat(h.recorder.ids()).containsExactly(id, "after");
      assertThat(h.recorder.sent).containsExactly(id);
      assertThat(h.recorder.duplicates()).isZero();
      h.expectNothing();
    }
  }
}
