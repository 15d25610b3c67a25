package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A device whose clock runs ahead of the server's still fetches what it missed: the catch-up after a
 * reconnect starts from the server's time stamps, never from the device's own clock. With the
 * device's clock as the start, {@code loadMissedMessages} asked for messages newer than a time the
 * server had not reached yet, and what was written while the device was away was never shown.
 *
 * <p>The test plays an honest server: its time is the harness's virtual clock, the device's is 5
 * minutes ahead, and {@code rooms/get} and {@code loadMissedMessages} answer from what was stored
 * after the time they are given.
 */
class ClockSkewCatchUpTest {
  private final List<ObjectNode> stored = new ArrayList<>();

  @ParameterizedTest(name = "room had messages before the join: {0}")
  @ValueSource(booleans = {false, true})
  void aClockAheadOfTheServerLosesNothingWrittenWhileAway(boolean roomHadMessages) {
    try (ChatHarness h = ChatHarness.withClockAhead(Duration.ofMinutes(5), b -> b.room("general"))) {
      List<String> expected = new ArrayList<>();
      h.advance(Duration.ofSeconds(10));
      if (roomHadMessages) {
        expected.add(store(h, "before", "before alice joined"));
      }
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      h.result(h.expect("loadHistory general"),
          history(stored.toArray(ObjectNode[]::new)));
      assertThat(h.client.joinedRooms()).contains("general");
      assertThat(h.recorder.ids()).containsExactlyElementsOf(expected);
      assertThat(h.recorder.lastState()).isEqualTo(ChatStatus.State.CONNECTED);

      h.drop();
      assertThat(h.client.status().state()).isNotEqualTo(ChatStatus.State.CONNECTED);
      h.advance(Duration.ofMillis(300));
      expected.add(store(h, "m1", "written while alice was away 1"));
      h.advance(Duration.ofMillis(300));
      expected.add(store(h, "m2", "written while alice was away 2"));

      h.advance(Duration.ofMillis(400)).accept();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      Frame roomsGet = h.expect("rooms/get");
      h.result(roomsGet, roomsUpdatedSince(roomsGet.params().path(0).path("$date").asLong()));
      Frame catchUp = h.expect("loadMissedMessages general");
      long since = catchUp.params().path(1).path("$date").asLong();
      h.result(catchUp, missed(storedAfter(since).toArray(ObjectNode[]::new)));

      assertThat(h.recorder.saw("m2")).isTrue();
      assertThat(h.recorder.ids()).containsExactlyElementsOf(expected);
      assertThat(h.recorder.duplicates()).isZero();
    }
  }

  /** Bob's message, stamped with the server's time. */
  private String store(ChatHarness h, String id, String text) {
    stored.add(message("general", id, text, h.clock.millis()));
    return id;
  }

  private List<ObjectNode> storedAfter(long since) {
    return stored.stream().filter(m -> m.path("ts").path("$date").asLong() > since).toList();
  }

  private String roomsUpdatedSince(long since) {
    List<ObjectNode> after = storedAfter(since);
    if (after.isEmpty()) {
      return "{'update':[],'remove':[]}";
    }
    long lm = after.get(after.size() - 1).path("ts").path("$date").asLong();
    return "{'update':[{'_id':'general','lm':{'$date':" + lm + "}}],'remove':[]}";
  }
}
