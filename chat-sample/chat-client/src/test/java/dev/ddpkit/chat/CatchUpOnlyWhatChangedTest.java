package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * After a reconnect one {@code rooms/get} since the oldest catch-up point says which rooms changed;
 * only those are fetched, from server times, never from the device clock.
 */
class CatchUpOnlyWhatChangedTest {

  private static ChatHarness joined() {
    ChatHarness h = new ChatHarness(b -> b.rooms(java.util.List.of("a", "b", "c"))
        .catchUpOverlap(Duration.ZERO));
    h.start().loggedIn(h.expect("login"));
    Frame sa = h.expect("sub a");
    Frame sb = h.expect("sub b");
    Frame sc = h.expect("sub c");
    h.ready(sa).ready(sb).ready(sc);
    h.result(h.expect("loadHistory a"), history(message("a", "a1", "a1", 1000)));
    h.result(h.expect("loadHistory b"), history(message("b", "b1", "b1", 2000)));
    h.result(h.expect("loadHistory c"), history());
    return h;
  }

  /** Reconnects; the streams go most recently active first: b (2 s), a (1 s), c (empty). */
  private static void rejoin(ChatHarness h) {
    h.reconnect().loggedIn(h.expect("login"));
    Frame sb = h.expect("sub b");
    Frame sa = h.expect("sub a");
    Frame sc = h.expect("sub c");
    h.expectNothing(); // rooms/get waits until every stream of the burst is ready
    h.ready(sa).ready(sb).ready(sc);
  }

  @Test
  void onlyTheRoomsThatChangedAreFetched() {
    try (ChatHarness h = joined()) {
      rejoin(h);
      Frame roomsGet = h.expect("rooms/get");
      // The oldest point: room c was empty when its history loaded, so the epoch.
      assertThat(roomsGet.params().path(0).path("$date").asLong()).isZero();
      h.expectNothing();
      h.result(roomsGet, "{'update':[{'_id':'a','lm':{'$date':1000}},"
          + "{'_id':'b','lm':{'$date':9000}}],'remove':[]}");
      Frame missedB = h.expect("loadMissedMessages b");
      assertThat(missedB.params().path(1).path("$date").asLong()).isEqualTo(2000);
      h.expectNothing();
      assertThat(h.client.status()).isEqualTo(ChatStatus.syncing(1));
      h.result(missedB, missed(message("b", "b1", "b1", 2000), message("b", "b2", "b2", 9000)));
      assertThat(h.recorder.texts()).containsExactly("a1", "b1", "b2");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.stats().catchUps()).isEqualTo(1);
    }
  }

  @Test
  void whereTheServerLacksRoomsGetEveryRoomIsFetched() {
    try (ChatHarness h = joined()) {
      rejoin(h);
      h.error(h.expect("rooms/get"), "404", null);
      assertThat(h.sent()).containsExactly(
          "loadMissedMessages a", "loadMissedMessages b", "loadMissedMessages c");
      assertThat(h.recorder.errors).isEmpty();
    }
  }

  @Test
  void theCatchUpPointIsTheNewestServerTimeSeenNotTheDeviceClock() {
    try (ChatHarness h = joined()) {
      h.push("a", "a2", "a2", 1500); // the server's clock; the device's reads 2030
      rejoin(h);
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'a','lm':{'$date':1600}}]}");
      Frame m = h.expect("loadMissedMessages a");
      assertThat(m.params().path(1).path("$date").asLong()).isEqualTo(1500);
    }
  }

  @Test
  void aRoomJoinedWithoutHistoryTakesItsPointFromTheServerNotTheDeviceClock() {
    try (ChatHarness h = new ChatHarness(b -> b.room("a").historyLimit(0)
        .catchUpOverlap(Duration.ZERO))) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub a"));
      Frame first = h.expect("rooms/get");
      assertThat(h.client.isCatchingUp("a")).isTrue();
      h.result(first, "{'update':[{'_id':'a','lm':{'$date':1000}}],'remove':[]}");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.recorder.messages).isEmpty();

      h.reconnect().loggedIn(h.expect("login"));
      h.ready(h.expect("sub a"));
      Frame again = h.expect("rooms/get");
      assertThat(again.params().path(0).path("$date").asLong()).isEqualTo(1000);
      h.result(again, "{'update':[{'_id':'a','lm':{'$date':4000}}],'remove':[]}");
      Frame m = h.expect("loadMissedMessages a");
      assertThat(m.params().path(1).path("$date").asLong()).isEqualTo(1000);
      h.result(m, missed(message("a", "x", "while away", 4000)));
      assertThat(h.recorder.texts()).containsExactly("while away");
    }
  }

  @Test
  void aRoomWithNoHistoryYetLoadsItsHistoryWhereTheServerLacksRoomsGet() {
    try (ChatHarness h = new ChatHarness(b -> b.room("a").historyLimit(0))) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub a"));
      h.error(h.expect("rooms/get"), "404", null);
      Frame hist = h.expect("loadHistory a");
      assertThat(hist.params().path(2).asInt()).isEqualTo(50);
      h.result(hist, history(message("a", "x", "before", 1000)));
      assertThat(h.recorder.texts()).containsExactly("before");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }
}
