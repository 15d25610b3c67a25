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
 * Regression (review): a rejoin refused once with a retryable error ({@code too-many-requests})
 * left the catch-up begun by that join pending in the room's timeline, so after the next, successful
 * rejoin every live message of the room was held back for good.
 */
class RejoinAfterRefusalKeepsShowingMessagesTest {

  @Test
  void liveMessagesAreShownAfterARejoinThatWasRefusedOnce() {
    try (ChatHarness h = new ChatHarness(b -> b.room("r1").resendDelay(Duration.ofMillis(50))
        .backoff(Backoff.fixed(Duration.ofMillis(100))))) {
      h.start().loggedIn(h.expect("login"));
      Frame stream = h.expect("sub r1");
      h.ready(stream);
      h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "text m1", 1_000)));
      assertThat(h.recorder.saw("m1")).isTrue();

      h.ended(stream); // the server ends the stream: rejoin #1 is refused, #2 works
      h.nosub(h.within(Duration.ofSeconds(10), "sub r1"), "too-many-requests", "busy, try again",
          null);
      h.ready(h.within(Duration.ofSeconds(10), "sub r1"));
      assertThat(h.client.joinedRooms()).contains("r1");
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'r1','lm':{'$date':2000}}]}");
      h.result(h.expect("loadMissedMessages r1"), missed(message("r1", "m2", "text m2", 2_000)));
      assertThat(h.recorder.saw("m2")).isTrue();
      h.push("r1", "m3", "text m3", 3_000);

      assertThat(h.recorder.saw("m3")).isTrue();
      assertThat(h.recorder.ids()).containsExactly("m1", "m2", "m3");
    }
  }
}
