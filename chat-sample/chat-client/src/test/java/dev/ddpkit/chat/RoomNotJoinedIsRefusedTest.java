package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Asking for the stream of a room one is not a member of is refused, and the user is told. */
class RoomNotJoinedIsRefusedTest {
  @Test
  void aRoomYouAreNotInIsRefused() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general").room("secret"))) {
      h.start().loggedIn(h.expect("login"));
      Map<String, Frame> subs = h.expectAll("sub general", "sub secret");
      h.ready(subs.get("sub general"));
      h.nosub(subs.get("sub secret"), "not-allowed", "Not allowed", null); // as ChatServer says
      h.result(h.expect("loadHistory general"), history());

      assertThat(h.recorder.errors).singleElement().asString()
          .startsWith("cannot join room secret:")
          .contains("Not allowed");
      assertThat(h.client.joinedRooms()).containsExactly("general");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);

      // Writing there is refused for good, not retried.
      String id = h.client.sendMessage("secret", "let me in");
      h.error(h.expect("sendMessage secret let me in"), "error-not-allowed", "Not allowed", null);
      assertThat(h.recorder.errors).hasSize(2);
      assertThat(h.recorder.errors.get(1)).contains(id).contains("rejected");
      assertThat(h.client.outboxSize()).isZero();
      h.advance(Duration.ofSeconds(30)).expectNothing(); // sent once, never again
    }
  }
}
