package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 10): a server's {@code too-many-requests} with {@code timeToReset} is an
 * appointment. The login held back was re-sent every 2 s and the rooms behind it went out
 * unauthenticated; the refused history and catch-up were never asked again, so the messages of
 * those rooms were never shown. Now each waits out exactly its {@code timeToReset} (plus a little
 * jitter), nothing goes out behind a refused login, and a refusal for now is never final.
 */
class ServerSaysWhenTest {

  private static ChatHarness harness() {
    return new ChatHarness(b -> b.room("r1").random(new Random(3)));
  }

  @Test
  void aHeldBackLoginIsTriedOnceAtTimeToResetAndNothingGoesOutBeforeIt() {
    try (ChatHarness h = harness()) {
      String id = h.client.sendMessage("r1", "queued");
      h.start();
      h.error(h.expect("login"), "too-many-requests", 7_500L);
      h.advance(Duration.ofMillis(7_499)).expectNothing();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTING);
      h.advance(Duration.ofMillis(800)); // the jitter: at most 750 ms (a tenth, up to 1 s)
      Frame login = h.expect("login");
      h.expectNothing().loggedIn(login);
      assertThat(h.sent()).containsExactlyInAnyOrder("sub r1", "sendMessage r1 queued");
      assertThat(h.recorder.errors).singleElement().asString().contains("retrying in 8 s");
      assertThat(h.client.stats().rateLimited()).isEqualTo(1);
      assertThat(id).isNotEmpty();
    }
  }

  @Test
  void afterAReconnectNothingGoesOutBeforeTheHeldBackLoginGoesThrough() {
    try (ChatHarness h = harness()) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "one", 1000)));
      String id = h.client.sendMessage("r1", "in flight");
      h.expect("sendMessage r1 in flight");
      h.reconnect();
      h.error(h.expect("login"), "too-many-requests", 2_000L);
      h.advance(Duration.ofMillis(1_999)).expectNothing();
      h.advance(Duration.ofMillis(500));
      h.loggedIn(h.expect("login"));
      Frame send = h.expect("sendMessage r1 in flight");
      assertThat(send.params().path(0).path("_id").asText()).isEqualTo(id);
      h.ready(h.expect("sub r1"));
      h.expect("rooms/get");
      h.expectNothing();
    }
  }

  @Test
  void aHeldBackHistoryIsAskedAgainAndTheRoomIsNotCaughtUpUntilThen() {
    try (ChatHarness h = harness()) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.error(h.expect("loadHistory r1"), "too-many-requests", 10_000L);
      h.push("r1", "m3", "live", 3000); // held until the history is in
      assertThat(h.client.isCatchingUp("r1")).isTrue();
      assertThat(h.client.status()).isEqualTo(ChatStatus.syncing(1));
      h.advance(Duration.ofMillis(9_999)).expectNothing();
      h.advance(Duration.ofSeconds(2));
      h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "old", 1000)));
      assertThat(h.recorder.texts()).containsExactly("old", "live");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.recorder.errors).isEmpty();
    }
  }

  @Test
  void aHeldBackCatchUpIsAskedAgainAndItsMessagesAreShown() {
    try (ChatHarness h = new ChatHarness(b -> b.room("r1").limits(ChatLimits.none()))) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "one", 1000)));
      h.reconnect().loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'r1','lm':{'$date':5000}}]}");
      h.error(h.expect("loadMissedMessages r1"), "too-many-requests", 4_000L);
      h.advance(Duration.ofMillis(3_999)).expectNothing();
      h.advance(Duration.ofSeconds(1));
      h.result(h.expect("loadMissedMessages r1"), missed(message("r1", "m2", "two", 5000)));
      assertThat(h.recorder.texts()).containsExactly("one", "two");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }

  @Test
  void aStreamRefusedForNowIsAskedAgainAtTimeToReset() {
    try (ChatHarness h = harness()) {
      h.start().loggedIn(h.expect("login"));
      h.nosub(h.expect("sub r1"), "too-many-requests", 3_000L);
      assertThat(h.client.isCatchingUp("r1")).isTrue();
      h.advance(Duration.ofMillis(2_999)).expectNothing();
      h.advance(Duration.ofMillis(500));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("loadHistory r1"), history());
      assertThat(h.client.joinedRooms()).containsExactly("r1");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }

  @Test
  void aPermanentRefusalOfTheCatchUpLeavesTheRoomAndSaysWhich() {
    try (ChatHarness h = harness()) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.error(h.expect("loadHistory r1"), "error-not-allowed", null);
      assertThat(h.recorder.errors).singleElement().asString()
          .contains("history of room r1 refused");
      assertThat(h.client.isCatchingUp("r1")).isFalse();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      h.advance(Duration.ofMinutes(5));
      assertThat(h.sent()).containsExactly("unsub");
    }
  }

  @Test
  void closingCancelsEveryTimerOfTheClient() {
    try (ChatHarness h = harness()) {
      h.start().error(h.expect("login"), "too-many-requests", 60_000L);
      h.client.close();
      assertThat(h.time.pendingTasks()).isZero();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.STOPPED);
    }
  }
}
