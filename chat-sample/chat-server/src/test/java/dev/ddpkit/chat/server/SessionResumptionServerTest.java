package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The embedded server's DDP session resumption (Meteor 3.5) on real sockets: a session whose
 * socket dropped is held for its grace period, queues what it would have sent, and is resumed by
 * a {@code connect} naming it with the exact count of frames its client received; anything else
 * is a new session.
 */
@Timeout(value = 60, unit = SECONDS)
class SessionResumptionServerTest extends ServerTestSupport {

  /** Bob, logged in and subscribed to general, then his socket drops. */
  private record Away(String session, long received, String sub) {}

  private Away bobDrops(ChatServer s) throws InterruptedException {
    DdpPeer bob = track(DdpPeer.open(s.url()));
    bob.next(); // server_id
    bob.send(DdpPeer.connectFrame("1"));
    String session = bob.next("connected").path("session").asText();
    assertThat(bob.call("login", DdpPeer.loginParams("bob", "bob-pw")).has("error")).isFalse();
    String sub = bob.subscribe("general");
    bob.next("ready");
    long received = bob.receivedCount();
    bob.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.sessionStats().heldNow() == 1);
    return new Away(session, received, sub);
  }

  private void aliceSays(ChatServer s, String... ids) throws InterruptedException {
    DdpPeer alice = login(s, "alice");
    for (String id : ids) {
      JsonNode r = alice.call("sendMessage", DdpPeer.message(id, "general", "text " + id));
      assertThat(r.has("error")).as("%s", r).isFalse();
    }
  }

  @Test
  void aDroppedSessionIsResumedWithItsIdAndItsQueueReplayedInOrder() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Away bob = bobDrops(s);
    aliceSays(s, "m1", "m2");

    DdpPeer back = track(DdpPeer.resume(s.url(), bob.session(), bob.received()));

    JsonNode connected = back.next();
    assertThat(connected.path("msg").asText()).isEqualTo("connected");
    assertThat(connected.path("session").asText()).isEqualTo(bob.session());
    assertThat(back.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("m1");
    assertThat(back.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("m2");
    // Still logged in and subscribed: no login, no sub, and new messages stream on.
    aliceSays(s, "m3");
    assertThat(back.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("m3");
    JsonNode sent = back.call("sendMessage", DdpPeer.message("b1", "general", "I am back"));
    assertThat(sent.path("result").path("u").path("username").asText()).isEqualTo("bob");
    assertThat(s.stats().subscriptions("general")).isEqualTo(1);
    assertThat(s.subscriberEntries("general")).isEqualTo(1); // the held one's, handed over
    SessionStats st = s.sessionStats();
    assertThat(st.sessionsResumed()).isEqualTo(1);
    assertThat(st.heldNow()).isZero();
  }

  @Test
  void aResumedSessionCanDropAndResumeAgainWithTheCountGoingOn() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Away bob = bobDrops(s);
    aliceSays(s, "m1");
    DdpPeer back = track(DdpPeer.resume(s.url(), bob.session(), bob.received()));
    back.next("connected");
    back.next("changed");
    long received = back.receivedCount();
    assertThat(received).isEqualTo(bob.received() + 2);
    back.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.sessionStats().heldNow() == 1);
    aliceSays(s, "m2");

    DdpPeer again = track(DdpPeer.resume(s.url(), bob.session(), received));

    assertThat(again.next().path("session").asText()).isEqualTo(bob.session());
    assertThat(again.next().path("fields").path("args").get(0).path("_id").asText())
        .isEqualTo("m2");
    // Counted by the server's thread once the replay is written: it may trail the frames.
    await().atMost(10, SECONDS).until(() -> s.sessionStats().sessionsResumed() == 2);
  }

  @Test
  void aResumedSessionKeepsItsSubscriptionsToUnsubscribeAndEndsThemWhenItEnds() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Away bob = bobDrops(s);
    DdpPeer back = track(DdpPeer.resume(s.url(), bob.session(), bob.received()));
    back.next("connected");

    // The sub id is the resumed session's: a repeat is ignored, as DDP has it (no second ready).
    ObjectNode again = DdpPeer.JSON.createObjectNode();
    again.put("msg", "sub").put("id", bob.sub()).put("name", "stream-room-messages");
    again.putArray("params").add("general");
    back.send(again);
    back.sendRaw("{\"msg\":\"unsub\",\"id\":\"" + bob.sub() + "\"}");
    assertThat(back.next().path("msg").asText()).isEqualTo("nosub");
    await().atMost(10, SECONDS).until(() -> s.subscriberEntries("general") == 0);
    assertThat(s.stats().subscriptions("general")).isZero();

    // Subscribed again on the resumed session, then ended for good: nothing is left behind.
    String sub = back.subscribe("general");
    assertThat(back.next("ready").path("subs").get(0).asText()).isEqualTo(sub);
    assertThat(s.stats().subscriptions("general")).isEqualTo(1);
    assertThat(s.subscriberEntries("general")).isEqualTo(1);
    back.sendRaw("{\"msg\":\"disconnect\"}");
    back.sendRaw("{\"msg\":\"ping\",\"id\":\"after\"}");
    back.next("pong"); // the disconnect was read (a reset would discard what is unread)
    back.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.stats().currentConnections() == 0);
    // The close leaves the open sessions first, then its subscriptions: wait for both.
    await().atMost(10, SECONDS).until(() -> s.subscriberEntries("general") == 0);
    assertThat(s.sessionStats().heldNow()).isZero();
    aliceSays(s, "after"); // a broadcast to the room finds no one, and nothing fails
    assertThat(s.subscriberEntries("general")).isZero();
  }

  @Test
  void aMethodThatFinishesAfterTheResumeIsAnsweredAgainWhenItsIdIsRepeated() throws Exception {
    ScriptedFaults faults = new ScriptedFaults();
    CompletableFuture<Void> gate = new CompletableFuture<>();
    faults.holdCatchUps(gate);
    ChatServer s = startSeeded(b -> b.faults(faults));
    DdpPeer bob = track(DdpPeer.open(s.url()));
    bob.next(); // server_id
    bob.send(DdpPeer.connectFrame("1"));
    String session = bob.next("connected").path("session").asText();
    assertThat(bob.call("login", DdpPeer.loginParams("bob", "bob-pw")).has("error")).isFalse();
    ObjectNode since = DdpPeer.JSON.createObjectNode();
    since.set("lastUpdate", DdpPeer.date(0));
    bob.sendMethodWithId("c1", "messages/get", "general", since); // held by the gate
    await().atMost(10, SECONDS).until(() -> s.sessionStats().methodCalls() >= 2);
    long received = bob.receivedCount();
    bob.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.sessionStats().heldNow() == 1);
    DdpPeer back = track(DdpPeer.resume(s.url(), session, received));
    back.next("connected");

    gate.complete(null); // the call began on the dropped connection and ends after the resume
    JsonNode first = back.next(f -> DdpPeer.isResult(f, "c1"));
    assertThat(first.has("error")).as("%s", first).isFalse();
    // The client cannot tell whether that answer reached it before a drop: it repeats the id,
    // and the resumed session knows the call finished, so it answers again without running it.
    back.sendMethodWithId("c1", "messages/get", "general", since);
    JsonNode again = back.next(f -> DdpPeer.isResult(f, "c1"));
    assertThat(again.path("result")).isEqualTo(first.path("result"));
  }

  @Test
  void aWrongCountGetsANewSessionAndEndsTheHeldOne() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Away bob = bobDrops(s);

    DdpPeer wrong = track(DdpPeer.resume(s.url(), bob.session(), bob.received() - 1));
    String fresh = wrong.next("connected").path("session").asText();

    assertThat(fresh).isNotEqualTo(bob.session()).hasSize(17);
    JsonNode r = wrong.call("sendMessage", DdpPeer.message("x1", "general", "who am I"));
    assertThat(r.path("error").path("error").asText()).as("%s", r).isNotEmpty();
    assertThat(s.stats().subscriptions("general")).isZero();
    // The held session is gone: even the right count cannot resume it now.
    DdpPeer late = track(DdpPeer.resume(s.url(), bob.session(), bob.received()));
    assertThat(late.next("connected").path("session").asText()).isNotEqualTo(bob.session());
    assertThat(s.sessionStats().sessionsResumed()).isZero();
  }

  @Test
  void anUnknownIdGetsANewSessionAndLeavesTheHeldOneAlone() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Away bob = bobDrops(s);

    DdpPeer guess = track(DdpPeer.resume(s.url(), "AAAAAAAAAAAAAAAAA", bob.received()));
    assertThat(guess.next("connected").path("session").asText()).isNotEqualTo(bob.session());
    assertThat(s.sessionStats().heldNow()).isEqualTo(1);

    DdpPeer back = track(DdpPeer.resume(s.url(), bob.session(), bob.received()));
    assertThat(back.next("connected").path("session").asText()).isEqualTo(bob.session());
  }

  @Test
  void aSessionNotResumedWithinItsGracePeriodEnds() throws Exception {
    ChatServer s = startSeeded(b -> b.sessionGrace(Duration.ofMillis(300)));
    Away bob = bobDrops(s);

    await().atMost(10, SECONDS).until(() -> s.sessionStats().sessionsExpired() == 1);

    assertThat(s.stats().subscriptions("general")).isZero();
    DdpPeer late = track(DdpPeer.resume(s.url(), bob.session(), bob.received()));
    assertThat(late.next("connected").path("session").asText()).isNotEqualTo(bob.session());
  }

  @Test
  void oneFrameMoreThanTheQueueLimitEndsTheHeldSession() throws Exception {
    ChatServer s = startSeeded(b -> b.sessionQueueLimit(2));
    Away bob = bobDrops(s);
    aliceSays(s, "m1", "m2");
    assertThat(s.sessionStats().heldNow()).as("two queued: at the limit").isEqualTo(1);

    aliceSays(s, "m3");

    await().atMost(10, SECONDS).until(() -> s.sessionStats().heldNow() == 0);
    assertThat(s.sessionStats().sessionsExpired()).isEqualTo(1);
    DdpPeer late = track(DdpPeer.resume(s.url(), bob.session(), bob.received()));
    assertThat(late.next("connected").path("session").asText()).isNotEqualTo(bob.session());
  }

  @Test
  void aGraceOfZeroTurnsResumptionOff() throws Exception {
    ChatServer s = startSeeded(b -> b.sessionGrace(Duration.ZERO));
    DdpPeer bob = login(s, "bob");
    bob.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.stats().currentConnections() == 0);
    assertThat(s.sessionStats().sessionsHeld()).isZero();
  }

  @Test
  void aDisconnectMessageEndsTheSessionAtOnce() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    bob.sendRaw("{\"msg\":\"disconnect\"}");
    bob.sendRaw("{\"msg\":\"ping\",\"id\":\"after\"}");
    bob.next("pong"); // the disconnect was read (a reset would discard what is unread)
    bob.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.stats().currentConnections() == 0);
    assertThat(s.sessionStats().sessionsHeld()).isZero();
    assertThat(s.stats().protocolErrors()).isZero();
  }

  @Test
  void aLoggedOutSessionIsNotHeld() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    assertThat(bob.call("logout").has("error")).isFalse();
    bob.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.stats().currentConnections() == 0);
    assertThat(s.sessionStats().sessionsHeld()).isZero();
  }

  @Test
  void aSessionTheServerClosedIsNotHeld() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer bob = login(s, "bob");
    for (int i = 0; i <= DdpHandler.MAX_PROTOCOL_ERRORS; i++) {
      bob.sendRaw("{\"msg\":\"no-such\"}");
    }
    assertThat(bob.awaitClose()).isEqualTo(1002);
    await().atMost(10, SECONDS).until(() -> s.stats().currentConnections() == 0);
    assertThat(s.sessionStats().sessionsHeld()).isZero();
  }

  @Test
  void aHeartbeatTimeoutHoldsTheSession() throws Exception {
    ChatServer s = startSeeded(b -> b.heartbeatInterval(Duration.ofMillis(200))
        .heartbeatTimeout(Duration.ofMillis(200)));
    DdpPeer bob = login(s, "bob"); // never answers the server's pings
    bob.awaitClose();
    await().atMost(10, SECONDS).until(() -> s.sessionStats().heldNow() == 1);
    assertThat(s.stats().heartbeatTimeouts()).isEqualTo(1);
  }

  @Test
  void aKillLosesTheHeldSessions() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Away bob = bobDrops(s);
    int port = s.port();

    s.kill();
    ChatServer again = start(b -> b.port(port));

    DdpPeer back = track(DdpPeer.resume(again.url(), bob.session(), bob.received()));
    assertThat(back.next("connected").path("session").asText()).isNotEqualTo(bob.session());
  }

  @Test
  void aStopDrainsTheOpenSessionsAsNotResumable() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Away held = bobDrops(s);
    DdpPeer alice = login(s, "alice");
    assertThat(s.sessionStats().heldNow()).isEqualTo(1);

    s.stop();

    assertThat(alice.awaitClose()).isEqualTo(1012);
    assertThat(s.sessionStats().heldNow()).isZero();
    assertThat(s.sessionStats().sessionsHeld()).as("only bob's drop was held").isEqualTo(1);
    assertThat(held.session()).isNotEmpty();
  }

  @Test
  void theSessionIdIsNeverLogged() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger("dev.ddpkit");
    Level saved = root.getLevel();
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    root.setLevel(Level.TRACE);
    String session;
    try {
      ChatServer s = startSeeded(b -> b.sessionQueueLimit(1));
      Away bob = bobDrops(s);
      session = bob.session();
      aliceSays(s, "m1");
      track(DdpPeer.resume(s.url(), bob.session(), bob.received())).next("connected");
      Away again = bobDrops(s);
      track(DdpPeer.resume(s.url(), again.session(), again.received() + 5)).next("connected");
      Away third = bobDrops(s);
      aliceSays(s, "m2", "m3"); // over the limit
      await().atMost(10, SECONDS).until(() -> s.sessionStats().heldNow() == 0);
      session = session + "," + again.session() + "," + third.session();
    } finally {
      root.detachAppender(logs);
      root.setLevel(saved);
    }
    List<ILoggingEvent> events;
    synchronized (logs) {
      events = List.copyOf(logs.list);
    }
    assertThat(events).extracting(ILoggingEvent::getFormattedMessage)
        .anyMatch(m -> m.contains("session resumed"))
        .anyMatch(m -> m.contains("held"));
    for (String id : session.split(",")) {
      assertThat(events).extracting(ILoggingEvent::getFormattedMessage)
          .noneMatch(m -> m.contains(id));
    }
  }
}
