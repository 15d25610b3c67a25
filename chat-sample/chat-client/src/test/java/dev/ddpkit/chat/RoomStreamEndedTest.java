package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A room stream that ends without the client asking, found through {@code Subscription.ended()}:
 * ended by the server, it is rejoined with backoff and what was missed meanwhile is fetched; refused
 * when revived after a reconnect (no longer a member), the room is left. Both are told to the user
 * through {@code onError}. The test plays Rocket.Chat frame by frame: the embedded ChatServer has no
 * hook to end a stream or remove a member.
 */
class RoomStreamEndedTest {
  private static final String ROOM = "r1";

  /** Joined r1 (its stream in {@code stream[0]}), its history shown. */
  private static ChatHarness joined(Frame[] stream) {
    ChatHarness h = new ChatHarness(b -> b.room(ROOM)
        .backoff(Backoff.fullJitter(Duration.ofMillis(50), Duration.ofMillis(500)))
        .stableAfter(Duration.ofSeconds(1))
        .resendDelay(Duration.ofMillis(100)));
    h.start().loggedIn(h.expect("login"));
    stream[0] = h.expect("sub r1");
    h.ready(stream[0]);
    h.result(h.expect("loadHistory r1"), history(message(ROOM, "m1", "before", 1_000)));
    return h;
  }

  @Test
  void streamEndedByTheServerIsReportedRejoinedAndTheGapFetched() {
    Frame[] stream = new Frame[1];
    try (ChatHarness h = joined(stream)) {
      assertThat(h.client.joinedRooms()).contains(ROOM);
      assertThat(h.recorder.saw("m1")).isTrue();

      h.ended(stream[0]); // the server ends the stream, with no error

      h.ready(h.within(Duration.ofSeconds(15), "sub r1"));
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'r1','lm':{'$date':2000}}]}");
      // What was written while the stream was gone, and one message already shown (deduplicated).
      h.result(h.expect("loadMissedMessages r1"),
          missed(message(ROOM, "m1", "before", 1_000), message(ROOM, "m2", "missed", 2_000)));
      assertThat(h.recorder.saw("m2")).isTrue();
      assertThat(h.recorder.errors).hasSize(1);
      assertThat(h.recorder.errors.get(0)).contains("stream of room r1 ended").contains("rejoining");
      h.advance(Duration.ofSeconds(30)).expectNothing(); // two streams in all: the second stays
      assertThat(h.client.joinedRooms()).containsExactly(ROOM);
      assertThat(h.recorder.ids()).containsExactly("m1", "m2");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }

  @Test
  void streamRefusedWhenRevivedAfterAReconnectLeavesTheRoomAndSaysSo() {
    try (ChatHarness h = joined(new Frame[1])) {
      assertThat(h.client.joinedRooms()).contains(ROOM);

      h.reconnect().loggedIn(h.expect("login"));
      h.nosub(h.expect("sub r1"), "not-allowed", "Not allowed", null); // no longer a member

      assertThat(h.recorder.errors).hasSize(1);
      assertThat(h.recorder.errors.get(0)).contains("left room r1").contains("Not allowed");
      assertThat(h.client.joinedRooms()).isEmpty();
      h.advance(Duration.ofSeconds(30)).expectNothing(); // revived once, not again
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }
}
