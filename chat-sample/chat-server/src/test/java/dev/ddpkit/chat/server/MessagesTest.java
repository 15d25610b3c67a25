package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = SECONDS)
class MessagesTest extends ServerTestSupport {

  @Test
  void aMemberSubscribesAndReceivesNewMessagesAsChangedEvents() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    String sub = bob.subscribe("general");
    assertThat(bob.next().toString()).isEqualTo("{\"msg\":\"ready\",\"subs\":[\"" + sub + "\"]}");
    assertThat(s.stats().subscriptions("general")).isEqualTo(1);

    DdpPeer alice = login(s, "alice");
    JsonNode sent = alice.call("sendMessage", DdpPeer.message("msg-1", "general", "hello"))
        .path("result");
    assertThat(sent.path("_id").asText()).isEqualTo("msg-1");
    assertThat(sent.path("rid").asText()).isEqualTo("general");
    assertThat(sent.path("msg").asText()).isEqualTo("hello");
    assertThat(sent.path("u").path("username").asText()).isEqualTo("alice");
    assertThat(sent.path("ts").path("$date").asLong()).isPositive();
    assertThat(sent.path("_updatedAt")).isEqualTo(sent.path("ts"));

    JsonNode changed = bob.next();
    assertThat(changed.path("msg").asText()).isEqualTo("changed");
    assertThat(changed.path("collection").asText()).isEqualTo("stream-room-messages");
    assertThat(changed.path("id").asText()).isEqualTo("id");
    assertThat(changed.path("fields").path("eventName").asText()).isEqualTo("general");
    assertThat(changed.path("fields").path("args")).hasSize(1);
    assertThat(changed.path("fields").path("args").get(0)).isEqualTo(sent);
  }

  @Test
  void nonMembersAndUnknownPublicationsGetNosub() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    String sub = bob.subscribe("secret");
    JsonNode nosub = bob.next();
    assertThat(nosub.toString()).isEqualTo("{\"msg\":\"nosub\",\"id\":\"" + sub
        + "\",\"error\":{\"isClientSafe\":true,\"error\":\"not-allowed\",\"reason\":\"Not allowed\","
        + "\"message\":\"Not allowed [not-allowed]\",\"errorType\":\"Meteor.Error\"}}");
    bob.subscribe("no-such-room");
    assertThat(bob.next().path("error").path("error").asText()).isEqualTo("not-allowed");
    bob.sendRaw("{\"msg\":\"sub\",\"id\":\"q\",\"name\":\"users\",\"params\":[]}");
    JsonNode unknown = bob.next();
    assertThat(unknown.path("error").path("error").asInt()).isEqualTo(404);
    JsonNode e = bob.call("sendMessage", DdpPeer.message("m1", "secret", "let me in"))
        .path("error");
    assertThat(e.path("error").asText()).isEqualTo("error-not-allowed");
    assertThat(bob.call("loadMissedMessages", "secret", DdpPeer.date(0)).path("error")
        .path("error").asText()).isEqualTo("error-not-allowed");
    assertThat(s.messageCount("secret")).isZero();
  }

  @Test
  void unsubStopsTheEvents() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    String sub = bob.subscribe("general");
    bob.next("ready");
    bob.sendRaw("{\"msg\":\"unsub\",\"id\":\"" + sub + "\"}");
    assertThat(bob.next().toString()).isEqualTo("{\"msg\":\"nosub\",\"id\":\"" + sub + "\"}");
    assertThat(s.stats().subscriptions("general")).isZero();
    DdpPeer alice = login(s, "alice");
    alice.call("sendMessage", DdpPeer.message("while-away", "general", "one"));
    String again = bob.subscribe("general");
    assertThat(bob.next().path("subs").get(0).asText()).isEqualTo(again);
    alice.call("sendMessage", DdpPeer.message("after", "general", "two"));
    // The first event bob sees is the one sent after he came back.
    assertThat(bob.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("after");
  }

  @Test
  void sendMessageIsIdempotentByTheClientId() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    bob.subscribe("general");
    bob.next("ready");
    DdpPeer alice = login(s, "alice");
    JsonNode first = alice.call("sendMessage", DdpPeer.message("same-id", "general", "hi"));
    JsonNode second = alice.call("sendMessage", DdpPeer.message("same-id", "general", "hi"));
    // Rocket.Chat answers a known _id with a result that has no result field: "already delivered".
    assertThat(first.path("result").path("_id").asText()).isEqualTo("same-id");
    assertThat(second.has("error")).as("error in %s", second).isFalse();
    assertThat(second.has("result")).as("result field in %s", second).isFalse();
    alice.call("sendMessage", DdpPeer.message("next-id", "general", "next"));

    assertThat(bob.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("same-id");
    assertThat(bob.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("next-id");
    assertThat(s.messageCount("general")).isEqualTo(2);
    assertThat(s.stats().messagesStored()).isEqualTo(2);
    assertThat(s.stats().duplicatesIgnored()).isEqualTo(1);

    // Someone else re-using the id gets an error, not alice's message.
    DdpPeer carol = login(s, "carol");
    assertThat(carol.call("sendMessage", DdpPeer.message("same-id", "general", "mine"))
        .path("error").path("error").asText()).isEqualTo("error-invalid-message-id");
  }

  @Test
  void aRepeatedMethodIdOnOneConnectionRunsOnce() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer alice = login(s, "alice");
    alice.sendMethodWithId("dup", "sendMessage", DdpPeer.message("a1", "general", "x"));
    JsonNode r1 = alice.next(f -> DdpPeer.isResult(f, "dup"));
    alice.next("updated");
    alice.sendMethodWithId("dup", "sendMessage", DdpPeer.message("a2", "general", "y"));
    JsonNode r2 = alice.next(f -> DdpPeer.isResult(f, "dup"));
    assertThat(r2).isEqualTo(r1);
    assertThat(s.messageCount("general")).isEqualTo(1);
  }

  @Test
  void inputsAreValidated() throws Exception {
    // Eight sendMessage calls in a row: past Rocket.Chat's 5 per second, on purpose.
    ChatServer s = startSeeded(b -> b.rateLimits(RateLimits.none()));
    DdpPeer alice = login(s, "alice");
    assertThat(errorOf(alice, DdpPeer.message("", "general", "x")))
        .isEqualTo("error-invalid-message-id");
    assertThat(errorOf(alice, DdpPeer.message("bad id!", "general", "x")))
        .isEqualTo("error-invalid-message-id");
    assertThat(errorOf(alice, DdpPeer.message("ok", "nowhere", "x")))
        .isEqualTo("error-invalid-room");
    assertThat(errorOf(alice, DdpPeer.message("ok", "general", "x".repeat(5001))))
        .isEqualTo("error-invalid-msg");
    assertThat(errorOf(alice, DdpPeer.message("ok", "general", "   ")))
        .isEqualTo("error-invalid-msg");
    assertThat(errorOf(alice, DdpPeer.JSON.createObjectNode().put("_id", "ok").put("rid", "general")))
        .isEqualTo("error-invalid-msg");
    assertThat(s.messageCount("general")).isZero();
    assertThat(alice.call("sendMessage", DdpPeer.message("ok", "general", "x".repeat(5000)))
        .has("result")).isTrue();
  }

  private static String errorOf(DdpPeer p, JsonNode message) {
    return p.call("sendMessage", message).path("error").path("error").asText();
  }

  @Test
  void loadMissedMessagesAndLoadHistoryReturnTheRightSlicesInOrder() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer alice = login(s, "alice");
    List<Long> ts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ts.add(alice.call("sendMessage", DdpPeer.message("h" + i, "general", "m" + i))
          .path("result").path("ts").path("$date").asLong());
    }
    assertThat(ts).isSorted().doesNotHaveDuplicates();

    JsonNode missed = alice.call("loadMissedMessages", "general", DdpPeer.date(ts.get(1)))
        .path("result");
    assertThat(ids(missed)).containsExactly("h2", "h3", "h4");

    JsonNode hist = alice.call("loadHistory", "general", DdpPeer.date(ts.get(3)), 2, null)
        .path("result");
    assertThat(ids(hist.path("messages"))).containsExactly("h2", "h1");
    assertThat(hist.path("unreadNotLoaded").asInt()).isZero();

    JsonNode latest = alice.call("loadHistory", "general", null, 3, null).path("result");
    assertThat(ids(latest.path("messages"))).containsExactly("h4", "h3", "h2");
    assertThat(ids(alice.call("loadMissedMessages", "general", DdpPeer.date(ts.get(4)))
        .path("result"))).isEmpty();
  }

  private static List<String> ids(JsonNode arr) {
    List<String> out = new ArrayList<>();
    arr.forEach(m -> out.add(m.path("_id").asText()));
    return out;
  }

  @Test
  void aLostAcknowledgementStillStoresAndBroadcasts() throws Exception {
    ScriptedFaults faults = new ScriptedFaults();
    ChatServer s = startSeeded(b -> b.faults(faults));
    DdpPeer bob = login(s, "bob");
    bob.subscribe("general");
    bob.next("ready");
    DdpPeer alice = login(s, "alice");
    alice.subscribe("general");
    alice.next("ready");
    faults.loseNextAcknowledgement();
    String id = alice.sendMethod("sendMessage", DdpPeer.message("lost-ack", "general", "hi"));
    assertThat(bob.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("lost-ack");
    assertThat(alice.next("changed").path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("lost-ack");
    // The answer is decided (and dropped) after the broadcast, on the store's writer thread.
    org.awaitility.Awaitility.await().atMost(10, SECONDS)
        .until(() -> s.stats().acknowledgementsLost() == 1);
    alice.sendRaw("{\"msg\":\"ping\",\"id\":\"after\"}");
    JsonNode next = alice.next();
    assertThat(next.path("msg").asText()).as("no result for %s", id).isEqualTo("pong");

    // The client re-sends on a new connection: it is told "already delivered" (a result with no
    // result field, as Rocket.Chat answers), and nothing new is stored.
    DdpPeer again = login(s, "alice");
    JsonNode r = again.call("sendMessage", DdpPeer.message("lost-ack", "general", "hi"));
    assertThat(r.has("error")).as("error in %s", r).isFalse();
    assertThat(r.has("result")).as("result field in %s", r).isFalse();
    assertThat(s.messageCount("general")).isEqualTo(1);
    assertThat(s.stats().duplicatesIgnored()).isEqualTo(1);
  }
}
