package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.changes;
import static dev.ddpkit.chat.ChatHarness.edited;
import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static dev.ddpkit.chat.ChatHarness.missed;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A room as a model against a server of today (messages/get, stream-notify-room), on virtual
 * time: edits and deletions live and while away, the fallbacks, and edit/delete through the
 * outbox. Each test plays the server frame by frame.
 */
class RoomModelTest {
  private static final UnaryOperator<ChatClientBuilder> CURRENT = b ->
      b.room("r1").liveDeletions(true).messagesGet(true).catchUpOverlap(Duration.ZERO);

  /** Logs in, joins r1 and its deletions stream, loads the history {@code one} (m1 at 1000). */
  private static ChatHarness joined(UnaryOperator<ChatClientBuilder> config) {
    ChatHarness h = new ChatHarness(b -> config.apply(CURRENT.apply(b)));
    h.start();
    h.loggedIn(h.expect("login"));
    h.ready(h.expect("sub r1"));
    Frame deletes = h.expect("sub r1/deleteMessage");
    assertThat(deletes.json().path("name").asText()).isEqualTo("stream-notify-room");
    h.expectNothing(); // the history waits for the deletions stream
    h.ready(deletes);
    h.ready(h.expect("sub r1/deleteMessageBulk"));
    h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "one", 1000)));
    assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    return h;
  }

  private static List<String> view(ChatHarness h) {
    return h.client.view("r1").join().stream()
        .map(m -> m.id() + "=" + m.text() + (m.edited() ? "*" : "")).toList();
  }

  @Test
  void aNewerUpdatedAtIsAnEditReportedOnceAndAnOlderOrEqualOneADuplicate() {
    try (ChatHarness h = joined(b -> b)) {
      h.pushEdit("r1", "m1", "one!", 1000, 1500);
      h.pushEdit("r1", "m1", "one!", 1000, 1500); // the same edit again
      h.pushEdit("r1", "m1", "stale", 1000, 1200); // older than what is shown
      h.push("r1", "m1", "one", 1000); // the first version again
      assertThat(h.recorder.changes).containsExactly("edited m1 one!");
      assertThat(h.recorder.texts()).containsExactly("one");
      assertThat(view(h)).containsExactly("m1=one!*");
    }
  }

  @Test
  void aLiveDeletionRemovesTheMessageAndNothingBringsItBack() {
    try (ChatHarness h = joined(b -> b)) {
      h.push("r1", "m2", "two", 2000);
      h.pushDelete("r1", "m2");
      h.pushDelete("r1", "m2"); // said twice
      h.pushEdit("r1", "m2", "two again", 2000, 2500);
      h.push("r1", "m2", "two", 2000);
      h.pushDelete("r1", "never-seen");
      assertThat(h.recorder.changes).containsExactly("deleted m2");
      assertThat(h.recorder.ids()).containsExactly("m1", "m2");
      assertThat(view(h)).containsExactly("m1=one");
    }
  }

  @Test
  void aBulkDeletionByIdsOrByTimeRangeAndUsers() {
    try (ChatHarness h = joined(b -> b)) {
      h.push("r1", "m2", "two", 2000).push("r1", "m3", "three", 3000).push("r1", "m4", "four", 4000);
      ObjectNode byIds = JsonNodeFactory.instance.objectNode().put("rid", "r1");
      byIds.putArray("ids").add("m2");
      h.pushRoomEvent("r1/deleteMessageBulk", byIds);
      ObjectNode byRange = JsonNodeFactory.instance.objectNode().put("rid", "r1");
      byRange.putObject("ts").set("$gte", JsonNodeFactory.instance.objectNode().put("$date", 3000));
      ((ObjectNode) byRange.get("ts")).putObject("$lte").put("$date", 4000);
      byRange.putArray("users").add("bob");
      h.pushRoomEvent("r1/deleteMessageBulk", byRange);
      assertThat(h.recorder.changes).containsExactly("deleted m2", "deleted m3", "deleted m4");
      assertThat(view(h)).containsExactly("m1=one");
    }
  }

  /** After a new connection: the login, then r1's stream and both deletion streams, all ready. */
  private static void joinedAgain(ChatHarness h) {
    h.loggedIn(h.expect("login"));
    h.ready(h.expect("sub r1"));
    h.ready(h.expect("sub r1/deleteMessage"));
    h.ready(h.expect("sub r1/deleteMessageBulk"));
  }

  /**
   * Reconnects and loses the {@code lastUpdate} catch-up's answer to the frame limit (the
   * client's transport closes with 1009 at its first bytes), then joins again on a new
   * connection: from now on the client catches up in cursor pages.
   */
  private static void lastUpdateOverTheFrameLimit(ChatHarness h) {
    h.reconnect();
    joinedAgain(h);
    h.expect("messages/get r1"); // lastUpdate: its answer is too big for the client
    h.end().closeFromServer(1009, "message over the frame limit");
    h.advance(Duration.ofSeconds(1));
    h.accept();
    joinedAgain(h);
  }

  /** A cursor page of {@code messages/get}: {@code {updated, deleted, cursor: {next, previous}}}. */
  private static String page(List<ObjectNode> updated, Map<String, Long> deleted, String next) {
    ObjectNode r = (ObjectNode) JsonNodeFactory.instance.objectNode();
    try {
      r = (ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(changes(updated, deleted));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    ObjectNode c = r.putObject("cursor");
    c.put("next", next);
    c.putNull("previous");
    return r.toString();
  }

  /** A new message as a cursor page holds it: its {@code _updatedAt} is its {@code ts}. */
  private static ObjectNode fresh(String rid, String id, String text, long tsMillis) {
    ObjectNode m = message(rid, id, text, tsMillis);
    m.putObject("_updatedAt").put("$date", tsMillis);
    return m;
  }

  /** The options of a {@code messages/get} the client sent: type, next and count. */
  private static String pageAsked(Frame get) {
    var o = get.params().path(1);
    assertThat(o.has("lastUpdate")).as("a cursor page, not lastUpdate: " + o).isFalse();
    return o.path("type").asText() + " " + o.path("next").asText() + " " + o.path("count").asInt();
  }

  @Test
  void aLastUpdateAnswerOverTheFrameLimitIsAskedAgainInCursorPagesAndConverges() {
    try (ChatHarness h = joined(b -> b)) {
      h.push("r1", "m2", "two", 2000); // the sync point is now 2000
      lastUpdateOverTheFrameLimit(h);
      Frame first = h.expect("messages/get r1");
      assertThat(pageAsked(first)).isEqualTo("UPDATED 2000 " + CatchUpPages.PAGE);
      // Two changes share the page's last millisecond, 3000: the next page starts just before it.
      h.result(first, page(List.of(edited("r1", "m1", "one!", 1000, 2500),
          fresh("r1", "m3", "three", 3000)), Map.of(), "3000"));
      Frame second = h.expect("messages/get r1");
      assertThat(pageAsked(second)).isEqualTo("UPDATED 2999 " + CatchUpPages.PAGE);
      h.result(second, page(List.of(fresh("r1", "m3", "three", 3000),
          fresh("r1", "m4", "four", 3000)), Map.of(), null));
      Frame deleted = h.expect("messages/get r1");
      assertThat(pageAsked(deleted)).isEqualTo("DELETED 2000 " + CatchUpPages.PAGE);
      assertThat(view(h)).as("nothing applied before the last page")
          .containsExactly("m1=one", "m2=two");
      h.result(deleted, page(List.of(), Map.of("m2", 3100L), null));
      assertThat(view(h)).containsExactly("m1=one!*", "m3=three", "m4=four");
      assertThat(h.recorder.duplicates()).isZero();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);

      // Learned for good: the next catch-up pages from the start.
      h.reconnect();
      joinedAgain(h);
      assertThat(pageAsked(h.expect("messages/get r1"))).startsWith("UPDATED 3100 ");
    }
  }

  @Test
  void aFullPageThatSharesOneMillisecondIsAskedAgainLarger() {
    try (ChatHarness h = joined(b -> b)) {
      lastUpdateOverTheFrameLimit(h);
      h.result(h.expect("messages/get r1"), page(List.of(), Map.of(), null)); // UPDATED: none
      Frame deleted = h.expect("messages/get r1");
      assertThat(pageAsked(deleted)).isEqualTo("DELETED 1000 " + CatchUpPages.PAGE);
      // A bulk deletion: a whole page of deletions at one millisecond, and more to come.
      Map<String, Long> bulk = new java.util.HashMap<>();
      for (int i = 0; i < CatchUpPages.PAGE; i++) {
        bulk.put("gone" + i, 5000L);
      }
      h.result(deleted, page(List.of(), bulk, "5000"));
      Frame larger = h.expect("messages/get r1");
      assertThat(pageAsked(larger)).isEqualTo("DELETED 1000 " + 2 * CatchUpPages.PAGE);
      bulk.put("m1", 5000L);
      h.result(larger, page(List.of(), bulk, null));
      assertThat(view(h)).isEmpty();
      assertThat(h.recorder.changes).containsExactly("deleted m1");
    }
  }

  @Test
  void anUpdatedPageThatMakesNoProgressStillLeavesTheDeletionsToAsk() {
    try (ChatHarness h = joined(b -> b)) {
      lastUpdateOverTheFrameLimit(h);
      Frame updated = h.expect("messages/get r1");
      assertThat(pageAsked(updated)).isEqualTo("UPDATED 1000 " + CatchUpPages.PAGE);
      // A cursor that does not move past where the page began: no further UPDATED page.
      h.result(updated, page(List.of(edited("r1", "m1", "one!", 1000, 1000)), Map.of(), "1000"));
      Frame deleted = h.expect("messages/get r1");
      assertThat(pageAsked(deleted)).isEqualTo("DELETED 1000 " + CatchUpPages.PAGE);
      h.result(deleted, page(List.of(), Map.of("m1", 1500L), null));
      assertThat(view(h)).isEmpty();
      assertThat(h.recorder.changes).containsExactly("deleted m1");
    }
  }

  @Test
  void aCloseWith1009WhileNoLastUpdateIsDueChangesNothing() {
    try (ChatHarness h = joined(b -> b)) {
      h.end().closeFromServer(1009, "some other message too big");
      h.advance(Duration.ofSeconds(1));
      h.accept();
      joinedAgain(h);
      assertThat(h.expect("messages/get r1").params().path(1).has("lastUpdate")).isTrue();
    }
  }

  @Test
  void afterAReconnectMessagesGetAppliesWhatChangedAwayOnceBothStreamsAreReady() {
    try (ChatHarness h = joined(b -> b)) {
      h.push("r1", "m2", "two", 2000);
      h.pushEdit("r1", "m1", "one!", 1000, 2100); // the sync point is now 2100
      h.reconnect();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      Frame deletes = h.expect("sub r1/deleteMessage");
      h.expectNothing(); // no catch-up before the deletions stream is ready (RN#7547)
      h.ready(deletes);
      Frame bulk = h.expect("sub r1/deleteMessageBulk");
      Frame get = h.expect("messages/get r1");
      assertThat(get.params().path(1).path("lastUpdate").path("$date").asLong()).isEqualTo(2100);
      h.ready(bulk);
      // While away: m1 edited again, m2 deleted, m3 written then edited, m4 written.
      h.pushDelete("r1", "m2"); // live, while the answer is on its way
      h.result(get, changes(
          List.of(message("r1", "m4", "four", 4000), edited("r1", "m3", "three!", 3000, 3500),
              edited("r1", "m1", "one!!", 1000, 3400)),
          Map.of("m2", 3200L)));
      assertThat(h.recorder.changes)
          .containsExactly("edited m1 one!", "deleted m2", "edited m1 one!!");
      assertThat(h.recorder.texts()).containsExactly("one", "two", "three!", "four");
      assertThat(view(h)).containsExactly("m1=one!!*", "m3=three!*", "m4=four");
      assertThat(h.recorder.duplicates()).isZero();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);

      // The next catch-up starts at the newest server time applied: m3's edit at 3500.
      h.reconnect();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.ready(h.expect("sub r1/deleteMessage"));
      h.expect("sub r1/deleteMessageBulk");
      assertThat(h.expect("messages/get r1").params().path(1).path("lastUpdate").path("$date")
          .asLong()).isEqualTo(4000);
    }
  }

  @Test
  void theSyncPointAdvancesOnlyOnceAnAnswerIsApplied() {
    try (ChatHarness h = joined(b -> b)) {
      h.reconnect();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.ready(h.expect("sub r1/deleteMessage"));
      h.expect("sub r1/deleteMessageBulk");
      Frame get = h.expect("messages/get r1");
      h.error(get, "500", "Internal server error", null);
      Frame again = h.within(Duration.ofSeconds(5), "messages/get r1");
      assertThat(again.params().path(1).path("lastUpdate").path("$date").asLong()).isEqualTo(1000);
      h.result(again, changes(List.of(message("r1", "m2", "two", 2000)), Map.of()));
      assertThat(h.recorder.texts()).containsExactly("one", "two");
    }
  }

  @Test
  void aServerWithoutMessagesGetIsLearnedOnceThenLoadMissedMessagesServesEveryRoom() {
    try (ChatHarness h = new ChatHarness(b -> CURRENT.apply(b).room("r2").historyLimit(0))) {
      h.start();
      h.loggedIn(h.expect("login"));
      Map<String, Frame> subs = h.expectAll("sub r1", "sub r2");
      subs.values().forEach(h::ready);
      Map<String, Frame> deletes = h.expectAll("sub r1/deleteMessage", "sub r2/deleteMessage");
      deletes.values().forEach(d -> h.nosub(d, "404", "Subscription 'stream-notify-room' not found",
          null));
      // Not fatal: the rooms settle their points, and the status line says what is missing.
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'r1','lm':{'$date':1000}},"
          + "{'_id':'r2','lm':{'$date':1000}}],'remove':[]}");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.client.status().reason()).contains("live deletions unavailable in r1")
          .contains("repaired at the next reconnect");
      assertThat(h.recorder.errors).anyMatch(e -> e.contains("live deletions of room r1"));

      h.reconnect();
      h.loggedIn(h.expect("login"));
      h.expectAll("sub r1", "sub r2").values().forEach(h::ready);
      h.expectAll("sub r1/deleteMessage", "sub r2/deleteMessage").values()
          .forEach(d -> h.nosub(d, "404", null));
      Frame first = h.expect("messages/get r1");
      h.error(first, "404", "Method 'messages/get' not found", null);
      // Learned for this server: r1 falls back, and r2 never asks messages/get.
      Frame missed = h.expect("loadMissedMessages r1");
      h.result(missed, missed(message("r1", "m2", "two", 2000)));
      Frame second = h.next();
      assertThat(second.summary()).isIn("loadMissedMessages r2", "rooms/get");
      assertThat(h.sent()).doesNotContain("messages/get r2");
      assertThat(h.recorder.texts()).containsExactly("two");
    }
  }

  @Test
  void rocketChat9WithoutLoadMissedMessagesIsLearnedOnce() {
    // An older client setting (messages/get off) meets Rocket.Chat 9: the 404 turns it on.
    try (ChatHarness h = new ChatHarness(b -> b.room("r1").catchUpOverlap(Duration.ZERO))) {
      h.start();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "one", 1000)));
      h.reconnect();
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("rooms/get"), "{'update':[{'_id':'r1','lm':{'$date':2000}}],'remove':[]}");
      h.error(h.expect("loadMissedMessages r1"), "404", "Method 'loadMissedMessages' not found",
          null);
      Frame get = h.expect("messages/get r1");
      h.result(get, changes(List.of(message("r1", "m2", "two", 2000)), Map.of()));
      assertThat(h.recorder.texts()).containsExactly("one", "two");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }

  @Test
  void anEditWaitsInTheOutboxBehindItsMessageAndARefusalIsFinal() {
    try (ChatHarness h = joined(b -> b)) {
      h.drop();
      String id = h.client.sendMessage("r1", "helo");
      CompletableFuture<Void> edit = h.client.edit("r1", id, "hello");
      CompletableFuture<Void> notMine = h.client.edit("r1", "m1", "mine now");
      CompletableFuture<Void> delete = h.client.delete("r1", id);
      h.advance(Duration.ofSeconds(1));
      h.accept();
      h.loggedIn(h.expect("login"));
      // The edit and the deletion of the new message wait for its send; the m1 edit need not.
      Map<String, Frame> first = h.expectAll("sub r1", "sendMessage r1 helo",
          "updateMessage m1 mine now");
      h.error(first.get("updateMessage m1 mine now"), "error-action-not-allowed",
          "Message editing not allowed", null);
      assertThat(notMine).isCompletedExceptionally();
      assertThat(h.recorder.errors).anyMatch(e -> e.contains("edit of m1 in room r1 rejected"));
      h.result(first.get("sendMessage r1 helo"), null);
      Frame editFrame = h.expect("updateMessage " + id + " hello");
      assertThat(editFrame.params().path(0).has("ts")).as("no stale ts").isFalse();
      assertThat(edit).isNotDone();
      h.result(editFrame, null);
      assertThat(edit).isCompleted();
      Frame deleteFrame = h.expect("deleteMessage " + id);
      // Lost with the connection: sent again after the next login, and "already deleted" is done.
      h.reconnect();
      h.loggedIn(h.expect("login"));
      Map<String, Frame> again = h.expectAll("sub r1", "deleteMessage " + id);
      assertThat(again.get("deleteMessage " + id).id()).isNotEqualTo("");
      h.result(again.get("deleteMessage " + id), null);
      assertThat(delete).isCompleted();
      assertThat(h.client.outboxSize()).isZero();
      h.advance(Duration.ofSeconds(30));
      assertThat(h.sent()).as("the refused edit is never retried")
          .noneMatch(f -> f.startsWith("updateMessage"));
      assertThat(deleteFrame).isNotNull();
    }
  }
}
