package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoomTimelineTest {
  private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");

  private static ChatMessage msg(String id, long seconds) {
    return new ChatMessage(id, "general", "alice", "text " + id, T0.plusSeconds(seconds));
  }

  private static List<String> ids(List<ChatMessage> ms) {
    return ms.stream().map(ChatMessage::id).toList();
  }

  @Test
  void liveMessagesAreShownOnceEach() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    assertThat(ids(t.offerLive(msg("a", 1)))).containsExactly("a");
    assertThat(t.offerLive(msg("a", 1))).isEmpty();
    assertThat(ids(t.offerLive(msg("b", 2)))).containsExactly("b");
    assertThat(t.lastSeen()).contains(T0.plusSeconds(2));
  }

  @Test
  void catchUpMergesHeldAndFetchedInTimestampOrderWithoutDuplicates() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    t.offerLive(msg("a", 1));
    RoomTimeline.CatchUp c = t.beginCatchUp();
    // Live traffic after the re-subscription, while the missed messages are being fetched.
    assertThat(t.offerLive(msg("e", 5))).isEmpty();
    assertThat(t.offerLive(msg("d", 4))).isEmpty();
    assertThat(t.heldCount()).isEqualTo(2);
    // The fetch overlaps: it returns "a" (already shown) and "d" (also held), newest first.
    List<ChatMessage> shown = t.completeCatchUp(c, List.of(msg("d", 4), msg("c", 3), msg("b", 2), msg("a", 1)));
    assertThat(ids(shown)).containsExactly("b", "c", "d", "e");
    assertThat(t.catchingUp()).isFalse();
    assertThat(t.offerLive(msg("e", 5))).isEmpty();
  }

  @Test
  void overlappingCatchUpsReleaseOnlyWhenTheLastEnds() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    RoomTimeline.CatchUp first = t.beginCatchUp();
    RoomTimeline.CatchUp second = t.beginCatchUp();
    assertThat(t.completeCatchUp(first, List.of(msg("b", 2)))).isEmpty();
    assertThat(t.offerLive(msg("c", 3))).isEmpty();
    assertThat(ids(t.completeCatchUp(second, List.of(msg("a", 1), msg("b", 2)))))
        .containsExactly("a", "b", "c");
  }

  @Test
  void abortedCatchUpReleasesHeldMessages() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    RoomTimeline.CatchUp c = t.beginCatchUp();
    t.offerLive(msg("b", 2));
    t.offerLive(msg("a", 1));
    assertThat(ids(t.abortCatchUp(c))).containsExactly("a", "b");
    assertThat(c.ended()).isTrue();
    assertThat(t.abortCatchUp(c)).as("an extra end is harmless").isEmpty();
  }

  @Test
  void aSecondEndOfOneCatchUpDoesNotReleaseAnother() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    RoomTimeline.CatchUp first = t.beginCatchUp();
    RoomTimeline.CatchUp second = t.beginCatchUp();
    assertThat(t.abortCatchUp(first)).isEmpty();
    assertThat(t.offerLive(msg("a", 1))).isEmpty();
    assertThat(t.completeCatchUp(first, List.of(msg("b", 2)))).as("ended already").isEmpty();
    assertThat(t.catchingUp()).isTrue();
    assertThat(ids(t.completeCatchUp(second, List.of()))).containsExactly("a");
    assertThat(t.catchingUp()).isFalse();
  }

  @Test
  void aCatchUpOfAnotherRoomIsRefused() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    RoomTimeline.CatchUp other = new RoomTimeline("random", 100, 100).beginCatchUp();
    assertThatThrownBy(() -> t.abortCatchUp(other)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void equalTimestampsAreOrderedById() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    RoomTimeline.CatchUp c = t.beginCatchUp();
    assertThat(ids(t.completeCatchUp(c, List.of(msg("y", 1), msg("x", 1)))))
        .containsExactly("x", "y");
  }

  @Test
  void heldMessagesAreBoundedAndShownAtOnceBeyondTheBound() {
    RoomTimeline t = new RoomTimeline("general", 100, 1);
    RoomTimeline.CatchUp c = t.beginCatchUp();
    assertThat(t.offerLive(msg("a", 1))).isEmpty();
    assertThat(ids(t.offerLive(msg("b", 2)))).containsExactly("b");
    assertThat(ids(t.completeCatchUp(c, List.of()))).containsExactly("a");
  }

  @Test
  void rememberedIdsAreBounded() {
    RoomTimeline t = new RoomTimeline("general", 2, 10);
    t.offerLive(msg("a", 1));
    t.offerLive(msg("b", 2));
    t.offerLive(msg("c", 3));
    assertThat(t.shown("a")).isFalse();
    assertThat(t.shown("b")).isTrue();
    assertThat(t.shown("c")).isTrue();
  }

  @Test
  void catchUpStartsBeforeTheNewestMessageByTheOverlap() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    Instant fallback = T0.minusSeconds(100);
    assertThat(t.catchUpSince(Duration.ofSeconds(2), fallback)).isEqualTo(fallback);
    t.markJoined(T0);
    t.offerLive(msg("a", 10));
    assertThat(t.catchUpSince(Duration.ofSeconds(2), fallback)).isEqualTo(T0.plusSeconds(8));
    t.markJoined(T0);
    assertThat(t.lastSeen()).contains(T0.plusSeconds(10));
  }

  @Test
  void aRoomEmptyWhenItsHistoryLoadedCatchesUpFromItsStartNotFromAClock() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    Instant deviceNow = T0.plusSeconds(300); // a device clock ahead of the server's
    t.completeCatchUp(t.beginCatchUp(), List.of());
    t.markHistoryLoaded();
    assertThat(t.catchUpSince(Duration.ofSeconds(2), deviceNow)).isEqualTo(Instant.EPOCH);
    t.offerLive(msg("a", 10)); // then the server's time stamps take over
    assertThat(t.catchUpSince(Duration.ofSeconds(2), deviceNow)).isEqualTo(T0.plusSeconds(8));
  }

  @Test
  void aLoadedHistoryStartsTheCatchUpFromItsNewestMessage() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    t.completeCatchUp(t.beginCatchUp(), List.of(msg("a", 10), msg("b", 20)));
    t.markHistoryLoaded();
    assertThat(t.catchUpSince(Duration.ofSeconds(2), T0.plusSeconds(300)))
        .isEqualTo(T0.plusSeconds(18));
  }

  @Test
  void theOverlapNeverReachesBeforeTheEpoch() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    t.offerLive(new ChatMessage("a", "general", "bob", "hi", Instant.ofEpochMilli(500)));
    assertThat(t.catchUpSince(Duration.ofSeconds(2), T0)).isEqualTo(Instant.EPOCH);
  }

  @Test
  void messagesOfAnotherRoomAreRefused() {
    RoomTimeline t = new RoomTimeline("general", 100, 100);
    ChatMessage other = new ChatMessage("x", "random", "bob", "hi", T0);
    assertThatThrownBy(() -> t.offerLive(other)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void constructorValidatesBounds() {
    assertThatThrownBy(() -> new RoomTimeline("r", 0, 1)).hasMessageContaining("maxSeenIds");
    assertThatThrownBy(() -> new RoomTimeline("r", 1, -1)).hasMessageContaining("maxHeld");
  }
}
