package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The room model's rules on {@link RoomTimeline} alone: edits, deletions, bounds, sync point. */
class RoomModelRulesTest {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  private static ChatMessage msg(String id, long s) {
    return new ChatMessage(id, "r", "bob", "text " + id, T0.plusSeconds(s));
  }

  private static ChatMessage edit(String id, long s, long editedS, String text) {
    Instant at = T0.plusSeconds(editedS);
    return new ChatMessage(id, "r", "bob", text, T0.plusSeconds(s), at, at, "bob");
  }

  private static List<String> events(List<RoomEvent> es) {
    return es.stream().map(e -> e.kind() + " " + e.id() + " " + e.message().text()).toList();
  }

  @Test
  void duringACatchUpHeldEditsKeepTheNewestVersionAndComeAfterTheNewMessages() {
    RoomTimeline t = new RoomTimeline("r", 100, 100);
    t.offer(msg("a", 1));
    RoomTimeline.CatchUp c = t.beginCatchUp();
    assertThat(t.offer(edit("a", 1, 5, "a2"))).isEmpty();
    assertThat(t.offer(edit("a", 1, 4, "a1"))).isEmpty(); // older than the one held
    assertThat(t.offer(msg("b", 3))).isEmpty();
    List<RoomEvent> out = t.complete(c, List.of(msg("c", 2), edit("a", 1, 3, "a0")), Map.of());
    assertThat(events(out)).containsExactly("MESSAGE c text c", "MESSAGE b text b",
        "EDITED a a2");
    assertThat(t.syncPoint()).contains(T0.plusSeconds(5));
  }

  @Test
  void aDeletionDuringACatchUpRemovesAHeldMessageAtOnceAndForGood() {
    RoomTimeline t = new RoomTimeline("r", 100, 100);
    t.offer(msg("a", 1));
    RoomTimeline.CatchUp c = t.beginCatchUp();
    t.offer(msg("b", 2));
    assertThat(events(t.delete("a", null))).containsExactly("DELETED a text a");
    assertThat(t.delete("b", null)).as("b was held, never shown").isEmpty();
    List<RoomEvent> out = t.complete(c, List.of(msg("b", 2), edit("a", 1, 3, "back?")),
        Map.of("a", T0.plusSeconds(4)));
    assertThat(out).isEmpty();
    assertThat(t.view()).isEmpty();
    assertThat(t.deleted("a")).isTrue();
    assertThat(t.syncPoint()).contains(T0.plusSeconds(4));
  }

  @Test
  void anEditOfAMessageFromBeforeTheHistoryIsAnEditNotANewMessage() {
    RoomTimeline t = new RoomTimeline("r", 100, 100);
    t.offer(msg("late", 10));
    assertThat(events(t.offer(edit("old", 1, 11, "old, edited"))))
        .containsExactly("EDITED old old, edited");
    // A message written later and edited before it was seen is a new message.
    assertThat(events(t.offer(edit("new", 12, 13, "new, edited"))))
        .containsExactly("MESSAGE new new, edited");
  }

  @Test
  void aHeldMessageEditedBeforeItWasShownIsANewMessageEvenBehindTheJoinPoint() {
    // Found with chat --history 0: the room's join point (its last message on the server) was
    // newer than a held message edited since, which then came as an edit of a message never shown.
    RoomTimeline t = new RoomTimeline("r", 100, 100);
    RoomTimeline.CatchUp c = t.beginCatchUp();
    t.offer(msg("a", 1));
    t.offer(edit("a", 1, 3, "a, edited"));
    t.offer(msg("b", 2));
    t.markJoined(T0.plusSeconds(2));
    assertThat(events(t.complete(c, List.of(), Map.of())))
        .containsExactly("MESSAGE a a, edited", "MESSAGE b text b");
  }

  @Test
  void messagesAndTombstonesAreBounded() {
    RoomTimeline t = new RoomTimeline("r", 3, 10);
    for (int i = 0; i < 5; i++) {
      t.offer(msg("m" + i, i));
    }
    assertThat(t.view()).extracting(ChatMessage::id).containsExactly("m2", "m3", "m4");
    for (int i = 0; i < 5; i++) {
      t.delete("d" + i, null);
    }
    assertThat(t.deleted("d0")).as("the oldest tombstone is forgotten").isFalse();
    assertThat(t.deleted("d4")).isTrue();
  }

  @Test
  void theSyncPointIsTheNewestServerChangeAppliedNeverTheDeviceClock() {
    RoomTimeline t = new RoomTimeline("r", 100, 100);
    assertThat(t.syncPoint()).isEmpty();
    t.markHistoryLoaded();
    assertThat(t.syncPoint()).contains(Instant.EPOCH);
    t.offer(msg("a", 1));
    t.offer(edit("a", 1, 7, "a!"));
    t.offer(msg("b", 3));
    assertThat(t.syncPoint()).contains(T0.plusSeconds(7));
    assertThat(t.catchUpPoint()).contains(T0.plusSeconds(3));
    t.delete("b", null); // a live deletion carries no server time: the point stays
    assertThat(t.syncPoint()).contains(T0.plusSeconds(7));
  }
}
