package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Edits, deletions and {@code messages/get} on the embedded server, checked against Rocket.Chat's
 * answers: {@code updateMessage} / {@code deleteMessage} with the author rule, edits on {@code
 * stream-room-messages}, deletions on {@code stream-notify-room} only, the trash, the three modes
 * of {@code messages/get} with their cursors and errors, and what survives a kill.
 */
@Timeout(value = 30, unit = SECONDS)
class MessageChangesTest extends ServerTestSupport {

  private static ObjectNode edit(String id, String rid, String text) {
    ObjectNode m = DdpPeer.JSON.createObjectNode();
    m.put("_id", id);
    m.put("rid", rid);
    m.put("msg", text);
    return m;
  }

  private static ObjectNode id(String id) {
    return DdpPeer.JSON.createObjectNode().put("_id", id);
  }

  private static JsonNode send(DdpPeer p, String id, String text) {
    return p.call("sendMessage", DdpPeer.message(id, "general", text)).path("result");
  }

  private static JsonNode arg(JsonNode changed) {
    return changed.path("fields").path("args").get(0);
  }

  @Test
  void anEditIsBroadcastAsTheSameIdWithANewerUpdatedAt() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    bob.subscribe("general");
    bob.next("ready");
    DdpPeer alice = login(s, "alice");
    JsonNode sent = send(alice, "e1", "helo");
    assertThat(arg(bob.next("changed")).path("msg").asText()).isEqualTo("helo");

    JsonNode r = alice.call("updateMessage", edit("e1", "general", "hello"));
    assertThat(r.has("error")).as("error in %s", r).isFalse();
    assertThat(r.has("result")).as("Rocket.Chat answers no result: %s", r).isFalse();
    JsonNode edited = arg(bob.next("changed"));
    assertThat(edited.path("_id").asText()).isEqualTo("e1");
    assertThat(edited.path("msg").asText()).isEqualTo("hello");
    assertThat(edited.path("ts")).isEqualTo(sent.path("ts"));
    assertThat(edited.path("editedBy").path("username").asText()).isEqualTo("alice");
    assertThat(edited.path("editedAt")).isEqualTo(edited.path("_updatedAt"));
    assertThat(edited.path("_updatedAt").path("$date").asLong())
        .isGreaterThan(sent.path("_updatedAt").path("$date").asLong());

    // The same text again changes nothing and sends nothing: the next event is the next message.
    assertThat(alice.call("updateMessage", edit("e1", "general", "hello")).has("error")).isFalse();
    send(alice, "e2", "next");
    assertThat(arg(bob.next("changed")).path("_id").asText()).isEqualTo("e2");
    // An edit of a message that does not exist is answered with nothing, as Rocket.Chat does.
    JsonNode none = alice.call("updateMessage", edit("nope", "general", "x"));
    assertThat(none.has("error") || none.has("result")).as("%s", none).isFalse();
  }

  @Test
  void onlyTheAuthorMayEditOrDelete() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer alice = login(s, "alice");
    send(alice, "a1", "mine");
    DdpPeer bob = login(s, "bob");
    assertThat(bob.call("updateMessage", edit("a1", "general", "yours")).path("error").toString())
        .isEqualTo("{\"isClientSafe\":true,\"error\":\"error-action-not-allowed\",\"reason\":"
            + "\"Message editing not allowed\",\"message\":\"Message editing not allowed "
            + "[error-action-not-allowed]\",\"errorType\":\"Meteor.Error\"}");
    assertThat(bob.call("deleteMessage", id("a1")).path("error").path("error").asText())
        .isEqualTo("error-action-not-allowed");
    assertThat(s.storedMessages("general")).extracting(StoredMessage::text).containsExactly("mine");
    assertThat(s.storedMessages("general").get(0).edited()).isFalse();
    assertThat(bob.call("updateMessage", DdpPeer.JSON.createObjectNode().put("rid", "general"))
        .path("error").path("error").asInt()).isEqualTo(400);
  }

  @Test
  void aDeletionIsSentOnlyOnStreamNotifyRoomAndNeverComesBack() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    bob.subscribe("general");
    bob.next("ready");
    String notify = bob.subscribeNotifyRoom("general/deleteMessage");
    assertThat(bob.next("ready").path("subs").get(0).asText()).isEqualTo(notify);
    DdpPeer alice = login(s, "alice");
    send(alice, "d1", "oops");
    assertThat(arg(bob.next("changed")).path("_id").asText()).isEqualTo("d1");

    JsonNode r = alice.call("deleteMessage", id("d1"));
    assertThat(r.has("error") || r.has("result")).as("%s", r).isFalse();
    JsonNode deleted = bob.next("changed");
    assertThat(deleted.toString()).isEqualTo("{\"msg\":\"changed\",\"collection\":"
        + "\"stream-notify-room\",\"id\":\"id\",\"fields\":{\"eventName\":"
        + "\"general/deleteMessage\",\"args\":[{\"_id\":\"d1\"}]}}");
    assertThat(s.messageCount("general")).isZero();

    // Deleting it again is done already (no error), and a late re-send of it is a duplicate.
    JsonNode again = alice.call("deleteMessage", id("d1"));
    assertThat(again.has("error")).as("%s", again).isFalse();
    JsonNode resend = alice.call("sendMessage", DdpPeer.message("d1", "general", "oops"));
    assertThat(resend.has("error") || resend.has("result")).as("%s", resend).isFalse();
    assertThat(s.messageCount("general")).isZero();
    send(alice, "d2", "after");
    // Nothing about d1 on the room stream: the next event there is d2.
    assertThat(arg(bob.next("changed")).path("_id").asText()).isEqualTo("d2");

    // Other events, and rooms one is not a member of, are refused.
    bob.subscribeNotifyRoom("general/typing");
    assertThat(bob.next("nosub").path("error").path("error").asText()).isEqualTo("not-allowed");
    bob.subscribeNotifyRoom("secret/deleteMessage");
    assertThat(bob.next("nosub").path("error").path("error").asText()).isEqualTo("not-allowed");
  }

  @Test
  void messagesGetSinceLastUpdateAnswersUpdatedAndDeletedNewestFirst() throws Exception {
    ChatServer s = startSeeded(b -> b.rateLimits(RateLimits.none()));
    DdpPeer alice = login(s, "alice");
    long t0 = send(alice, "m0", "zero").path("ts").path("$date").asLong();
    send(alice, "m1", "one");
    long t2 = send(alice, "m2", "two").path("ts").path("$date").asLong();
    alice.call("updateMessage", edit("m0", "general", "zero!"));
    alice.call("deleteMessage", id("m1"));

    JsonNode since = alice.call("messages/get", "general",
        DdpPeer.JSON.createObjectNode().set("lastUpdate", DdpPeer.date(t2))).path("result");
    assertThat(ids(since.path("updated"))).containsExactly("m0");
    assertThat(since.path("updated").get(0).path("msg").asText()).isEqualTo("zero!");
    assertThat(since.path("deleted")).hasSize(1);
    JsonNode d = since.path("deleted").get(0);
    assertThat(d.path("_id").asText()).isEqualTo("m1");
    assertThat(d.path("_deletedAt").path("$date").asLong()).isGreaterThan(t2);
    assertThat(d.size()).as("only _id and _deletedAt: %s", d).isEqualTo(2);

    JsonNode all = alice.call("messages/get", "general",
        DdpPeer.JSON.createObjectNode().set("lastUpdate", DdpPeer.date(t0 - 1))).path("result");
    assertThat(ids(all.path("updated"))).containsExactly("m2", "m0");
    assertThat(ids(all.path("deleted"))).containsExactly("m1");
    assertThat(all.has("cursor")).isFalse();

    // Neither a time nor a cursor: the room's latest history.
    JsonNode history = alice.call("messages/get", "general",
        DdpPeer.JSON.createObjectNode().put("count", 1)).path("result");
    assertThat(ids(history.path("messages"))).containsExactly("m2");
  }

  @Test
  void messagesGetPagesByCursorInUpdatedOrder() throws Exception {
    ChatServer s = startSeeded(b -> b.rateLimits(RateLimits.none()));
    DdpPeer alice = login(s, "alice");
    List<Long> updated = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      updated.add(send(alice, "c" + i, "m" + i).path("_updatedAt").path("$date").asLong());
    }
    JsonNode p1 = page(alice, "UPDATED", "next", "0", 2);
    assertThat(ids(p1.path("updated"))).containsExactly("c0", "c1");
    assertThat(p1.path("deleted")).isEmpty();
    assertThat(p1.path("cursor").path("next").asText()).isEqualTo(updated.get(1).toString());
    assertThat(p1.path("cursor").path("previous").asText()).isEqualTo(updated.get(0).toString());
    JsonNode p2 = page(alice, "UPDATED", "next", p1.path("cursor").path("next").asText(), 2);
    assertThat(ids(p2.path("updated"))).containsExactly("c2", "c3");
    JsonNode p3 = page(alice, "UPDATED", "next", p2.path("cursor").path("next").asText(), 2);
    assertThat(ids(p3.path("updated"))).containsExactly("c4");
    assertThat(p3.path("cursor").path("next").isNull()).as("last page: %s", p3).isTrue();

    // An edit moves c0 to the end of the UPDATED order; a deletion shows on the DELETED pages.
    alice.call("updateMessage", edit("c0", "general", "m0 again"));
    alice.call("deleteMessage", id("c2"));
    JsonNode after = page(alice, "UPDATED", "next", updated.get(4).toString(), 2);
    assertThat(ids(after.path("updated"))).containsExactly("c0");
    JsonNode gone = page(alice, "DELETED", "next", "0", 2);
    assertThat(ids(gone.path("deleted"))).containsExactly("c2");
    assertThat(gone.path("updated")).isEmpty();
    assertThat(gone.path("cursor").path("next").isNull()).isTrue();

    // previous: descending before it (c0 moved after c4, c2 is gone), no previous page left.
    JsonNode back = page(alice, "UPDATED", "previous", updated.get(4).toString(), 2);
    assertThat(ids(back.path("updated"))).containsExactly("c3", "c1");
    assertThat(back.path("cursor").path("next").asText()).isEqualTo(updated.get(3).toString());
    assertThat(back.path("cursor").path("previous").isNull()).as("%s", back).isTrue();
    JsonNode backOne = page(alice, "UPDATED", "previous", updated.get(4).toString(), 1);
    assertThat(ids(backOne.path("updated"))).containsExactly("c3");
    assertThat(backOne.path("cursor").path("previous").asText())
        .isEqualTo(updated.get(3).toString());
  }

  private static JsonNode page(DdpPeer p, String type, String dir, String cursor, int count) {
    ObjectNode o = DdpPeer.JSON.createObjectNode();
    o.put("type", type);
    o.put(dir, cursor);
    o.put("count", count);
    JsonNode r = p.call("messages/get", "general", o);
    assertThat(r.has("error")).as("error in %s", r).isFalse();
    return r.path("result");
  }

  @Test
  void messagesGetRefusesAsRocketChatDoes() throws Exception {
    ChatServer s = startSeeded(b -> b.rateLimits(RateLimits.none()));
    DdpPeer alice = login(s, "alice");
    assertThat(error(alice, o -> o.put("type", "EDITED").put("next", "1")))
        .isEqualTo("error-type-param-not-supported");
    assertThat(error(alice, o -> o.put("next", "1"))).isEqualTo("error-type-param-required");
    assertThat(error(alice, o -> o.put("type", "UPDATED").put("next", "1").put("previous", "2")))
        .isEqualTo("error-cursor-conflict");
    assertThat(error(alice, o -> o.put("type", "UPDATED").put("next", "1")
        .set("lastUpdate", DdpPeer.date(1)))).isEqualTo("error-cursor-and-lastUpdate-conflict");
    assertThat(error(alice, o -> o.put("type", "UPDATED").put("next", "soon"))).isEqualTo("500");
    DdpPeer bob = login(s, "bob");
    assertThat(bob.call("messages/get", "secret", DdpPeer.JSON.createObjectNode()
        .set("lastUpdate", DdpPeer.date(0))).path("error").path("error").asText())
        .isEqualTo("error-not-allowed");
  }

  private static String error(DdpPeer p, java.util.function.Consumer<ObjectNode> options) {
    ObjectNode o = DdpPeer.JSON.createObjectNode();
    options.accept(o);
    return p.call("messages/get", "general", o).path("error").path("error").asText();
  }

  @Test
  void anOlderServerHasNoMessagesGetAndRocketChat9NoLoadMissedMessages() throws Exception {
    ChatServer older = startSeeded(b -> b.compatibility(Compatibility.BEFORE_MESSAGES_GET));
    DdpPeer a = login(older, "alice");
    JsonNode e = a.call("messages/get", "general", DdpPeer.JSON.createObjectNode()
        .set("lastUpdate", DdpPeer.date(0))).path("error");
    assertThat(e.path("error").asInt()).isEqualTo(404);
    assertThat(e.path("reason").asText()).isEqualTo("Method 'messages/get' not found");
    assertThat(a.call("loadMissedMessages", "general", DdpPeer.date(0)).has("result")).isTrue();
    a.close();
    older.kill();

    ChatServer nine = start(b -> b.compatibility(Compatibility.ROCKET_CHAT_9));
    DdpPeer b = login(nine, "alice");
    assertThat(b.call("loadMissedMessages", "general", DdpPeer.date(0)).path("error")
        .path("reason").asText()).isEqualTo("Method 'loadMissedMessages' not found");
    assertThat(b.call("messages/get", "general", DdpPeer.JSON.createObjectNode()
        .set("lastUpdate", DdpPeer.date(0))).has("result")).isTrue();
  }

  @Test
  void acknowledgedEditsAndDeletionsSurviveAKillAndACleanStop() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer alice = login(s, "alice");
    send(alice, "k0", "first");
    send(alice, "k1", "second");
    send(alice, "k2", "third");
    alice.call("updateMessage", edit("k0", "general", "first, edited"));
    alice.call("deleteMessage", id("k1"));
    alice.close();
    s.kill();

    ChatServer again = start(b -> b);
    assertThat(again.storedMessages("general"))
        .extracting(m -> m.id() + "=" + m.text() + (m.edited() ? " (edited)" : ""))
        .containsExactly("k0=first, edited (edited)", "k2=third");
    DdpPeer a2 = login(again, "alice");
    JsonNode r = a2.call("messages/get", "general", DdpPeer.JSON.createObjectNode()
        .set("lastUpdate", DdpPeer.date(0))).path("result");
    assertThat(ids(r.path("deleted"))).containsExactly("k1");
    // The trash survives too: a re-send of the deleted id is still a duplicate.
    a2.call("sendMessage", DdpPeer.message("k1", "general", "second"));
    assertThat(again.messageCount("general")).isEqualTo(2);
    a2.close();
    again.stop(); // a clean stop compacts the journal into a snapshot

    ChatServer third = start(b -> b);
    assertThat(third.storedMessages("general")).extracting(StoredMessage::id)
        .containsExactly("k0", "k2");
    DdpPeer a3 = login(third, "alice");
    assertThat(ids(a3.call("messages/get", "general", DdpPeer.JSON.createObjectNode()
        .set("lastUpdate", DdpPeer.date(0))).path("result").path("deleted")))
        .containsExactly("k1");
  }

  @Test
  void pruningSendsOneBulkDeletionWithIdsOrARange() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    bob.subscribeNotifyRoom("general/deleteMessageBulk");
    bob.next("ready");
    DdpPeer alice = login(s, "alice");
    long from = send(alice, "p0", "a").path("ts").path("$date").asLong();
    send(alice, "p1", "b");
    long to = send(alice, "p2", "c").path("ts").path("$date").asLong();
    send(bob, "p3", "bob's");
    assertThat(s.pruneMessages("general", from, to + 10, List.of("alice"), true)).isEqualTo(3);
    JsonNode bulk = arg(bob.next("changed"));
    assertThat(bulk.path("rid").asText()).isEqualTo("general");
    assertThat(ids2(bulk.path("ids"))).containsExactlyInAnyOrder("p0", "p1", "p2");
    assertThat(bulk.path("users").toString()).isEqualTo("[\"alice\"]");
    assertThat(bulk.path("ts").path("$gte").path("$date").asLong()).isEqualTo(from);
    assertThat(s.storedMessages("general")).extracting(StoredMessage::id).containsExactly("p3");
    assertThat(s.pruneMessages("general", 0, Long.MAX_VALUE - 1, List.of(), false)).isEqualTo(1);
    JsonNode noIds = arg(bob.next("changed"));
    assertThat(noIds.has("ids")).isFalse();
    assertThat(noIds.path("users")).isEmpty();
  }

  private static List<String> ids(JsonNode arr) {
    List<String> out = new ArrayList<>();
    arr.forEach(m -> out.add(m.path("_id").asText()));
    return out;
  }

  private static List<String> ids2(JsonNode arr) {
    List<String> out = new ArrayList<>();
    arr.forEach(m -> out.add(m.asText()));
    return out;
  }
}
