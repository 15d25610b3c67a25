package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (review): after a reconnect, the resume login answered with a transient error ({@code
 * too-many-requests}) let the re-sent {@code sendMessage} calls and the revived room stream go out
 * unauthenticated; their {@code not-allowed} refusals were taken as final, so the user's message
 * was rejected and the room left. Since issue 10 nothing goes out behind a refused login: the
 * message is re-sent with its id and the room rejoined once the login goes through, and what was
 * missed is fetched then.
 *
 * <p>The test plays Rocket.Chat: the first resume login is throttled; every frame the client sends
 * while it is not logged in is asserted to be a login (a real server would refuse the others).
 */
class ThrottledResumeLoginLosesNothingTest {
  private static final String ROOM = "r1";

  private static ChatHarness joined() {
    ChatHarness h = new ChatHarness(b -> b.room(ROOM)
        .backoff(Backoff.fixed(Duration.ofMillis(100))).resendDelay(Duration.ofMillis(50)));
    h.start().loggedIn(h.expect("login"));
    h.ready(h.expect("sub r1"));
    h.result(h.expect("loadHistory r1"), history());
    assertThat(h.client.joinedRooms()).contains(ROOM);
    assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    h.push(ROOM, "before", "before the drop", 1_000);
    assertThat(h.recorder.saw("before")).isTrue();
    return h;
  }

  /** Reconnects; the resume login is throttled; nothing else goes out until it goes through. */
  private static void throttledReconnect(ChatHarness h) {
    h.reconnect();
    Frame first = h.expect("login");
    assertThat(first.params().path(0).has("resume")).isTrue();
    h.error(first, "too-many-requests", "Too many requests; try again in 1 second", null);
    h.expectNothing(); // nothing unauthenticated: no send, no stream, no catch-up
    h.loggedIn(h.within(Duration.ofSeconds(5), "login"));
  }

  @Test
  void refusalsBeforeTheLoginGoesThroughAreRetriedAndNothingIsLost() {
    try (ChatHarness h = joined()) {
      String lost = h.client.sendMessage(ROOM, "sent as the connection drops");
      h.expect("sendMessage r1 sent as the connection drops"); // lost with the connection

      throttledReconnect(h); // meanwhile bob wrote "missed"
      Map<String, Frame> after = h.expectAll("sub r1", "sendMessage r1 sent as the connection drops");
      Frame resend = after.get("sendMessage r1 sent as the connection drops");
      assertThat(resend.params().path(0).path("_id").asText()).as("re-sent with its id")
          .isEqualTo(lost);
      h.ready(after.get("sub r1"));
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'r1','lm':{'$date':3000}}]}");
      h.result(h.expect("loadMissedMessages r1"),
          missed(message(ROOM, "before", "before the drop", 1_000),
              message(ROOM, "missed", "written while alice was away", 3_000)));
      h.result(resend, null).push(ROOM, lost, "sent as the connection drops", 4_000);
      String next = h.client.sendMessage(ROOM, "sent after the reconnect");
      h.result(h.expect("sendMessage r1 sent after the reconnect"), null)
          .push(ROOM, next, "sent after the reconnect", 5_000);
      h.push(ROOM, "live", "live again", 6_000);

      assertThat(h.recorder.sent).containsExactly(lost, next);
      assertThat(h.recorder.errors).noneMatch(e -> e.contains("rejected") || e.contains("left room"));
      assertThat(h.client.joinedRooms()).containsExactly(ROOM);
      assertThat(h.client.outboxSize()).isZero();
      assertThat(h.recorder.duplicates()).isZero();
      assertThat(h.recorder.ids()).containsExactly("before", "missed", lost, next, "live");
    }
  }

  @Test
  void aCatchUpRefusedBeforeTheLoginGoesThroughRunsAgainAfterIt() {
    try (ChatHarness h = joined()) {
      throttledReconnect(h); // meanwhile bob wrote "missed"; no catch-up went out before the login
      h.ready(h.expect("sub r1"));
      h.push(ROOM, "live", "live again", 4_000); // held until the catch-up is in
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'r1','lm':{'$date':4000}}]}");
      h.result(h.expect("loadMissedMessages r1"),
          missed(message(ROOM, "missed", "written while alice was away", 3_000),
              message(ROOM, "live", "live again", 4_000)));

      assertThat(h.recorder.saw("missed") && h.recorder.saw("live")).isTrue();
      assertThat(h.recorder.errors).noneMatch(e -> e.contains("catch-up"));
      assertThat(h.recorder.duplicates()).isZero();
      assertThat(h.recorder.ids()).containsExactly("before", "missed", "live");
    }
  }
}
