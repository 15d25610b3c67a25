package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * "Connected" used to show as soon as the resume login succeeded after a reconnect, over a
 * timeline still missing what was sent while offline. Now the status is "catching up" until the
 * missed messages are shown, and a failed catch-up is said and does not leave it stuck.
 *
 * <p>Alice goes offline while Bob writes two messages; the test (playing the server) holds her
 * {@code loadMissedMessages} answer until it chooses to give it.
 */
class ConnectedOnlyOnceCaughtUpTest {

  @Test
  void catchingUpIsShownUntilTheMissedMessagesAreShownThenConnected() {
    Offline o = new Offline();
    try (ChatHarness h = o.aliceOfflineWhileBobWrites()) {
      Frame catchUp = o.backUntilTheCatchUp(h);
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.SYNCING);
      assertThat(h.client.status().text()).isEqualTo("catching up (1 room)");
      assertThat(h.client.isCatchingUp("general")).isTrue();
      h.push("general", "live", "while alice catches up", 4_000);
      assertThat(h.client.status().state()).as("held: still catching up")
          .isEqualTo(ChatStatus.State.SYNCING);
      assertThat(o.log).as("nothing missed is shown yet").doesNotContain("message missed1");

      h.result(catchUp, missed(message("general", "missed1", "missed 1", 2_000),
          message("general", "missed2", "missed 2", 3_000)));

      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.isCatchingUp("general")).isFalse();
      assertThat(o.sinceReconnect())
          .as("the missed messages, then the live one held behind them, then connected")
          .containsSubsequence("status SYNCING", "message missed1", "message missed2",
              "message live", "status CONNECTED")
          .containsOnlyOnce("status CONNECTED")
          .endsWith("status CONNECTED");
      assertThat(o.log).noneMatch(e -> e.startsWith("error"));
    }
  }

  @Test
  void aFailedCatchUpIsSaidAndTheStatusMovesOnToConnected() {
    Offline o = new Offline();
    try (ChatHarness h = o.aliceOfflineWhileBobWrites()) {
      Frame catchUp = o.backUntilTheCatchUp(h);
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.SYNCING);
      h.error(catchUp, "error-test-hook", "catch-up refused by the test hook", null);

      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.isCatchingUp("general")).isFalse();
      assertThat(o.sinceReconnect())
          .as("the user is told before \"connected\" stands over the gap")
          .containsSubsequence("status SYNCING",
              "error catch-up of room general failed: catch-up refused by the test hook"
                  + " [error-test-hook]",
              "status CONNECTED")
          .endsWith("status CONNECTED");
    }
  }

  /** What one scenario holds: Alice's event log (in listener order) and where she went offline. */
  private static final class Offline {
    final List<String> log = new CopyOnWriteArrayList<>();
    int lostAt;

    /** Alice joins general and catches up; then her connection drops (Bob writes meanwhile). */
    ChatHarness aliceOfflineWhileBobWrites() {
      ChatHarness h = new ChatHarness(b -> b.room("general").listener(recorder())
          // No "stable again" status change after the reconnect: it would refresh the status line
          // and hide a missed update when the revived stream becomes current.
          .stableAfter(Duration.ofMinutes(1)));
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      h.result(h.expect("loadHistory general"), history(message("general", "m0", "hi", 1_000)));
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(log).as("the first connection catches up too: its history")
          .startsWith("status CONNECTING", "status SYNCING")
          .endsWith("status CONNECTED");
      h.drop();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.WAITING);
      lostAt = log.size();
      return h;
    }

    /** Alice is back: logged in, her stream ready, her catch-up asked and not answered yet. */
    Frame backUntilTheCatchUp(ChatHarness h) {
      h.advance(Duration.ofSeconds(1)).accept();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'general','lm':{'$date':3000}}]}");
      return h.expect("loadMissedMessages general");
    }

    ChatListener recorder() {
      return new ChatListener() {
        @Override
        public void onMessage(ChatMessage message) {
          log.add("message " + message.id());
        }

        @Override
        public void onStatus(ChatStatus status) {
          log.add("status " + status.state());
        }

        @Override
        public void onError(String message) {
          log.add("error " + message);
        }
      };
    }

    List<String> sinceReconnect() {
      return new ArrayList<>(log.subList(lostAt, log.size()));
    }
  }
}
