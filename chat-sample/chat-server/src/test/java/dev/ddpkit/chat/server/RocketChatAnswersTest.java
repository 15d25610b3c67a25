package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Answers the embedded server gives the way Rocket.Chat and Meteor's accounts do, in process:
 * {@code rooms/get} with and without {@code updatedSince}, a plain-text password, a repeated
 * {@code _id}, and a client {@code ts} too far from the server's clock.
 */
@Timeout(value = 30, unit = SECONDS)
class RocketChatAnswersTest {
  private static final long T0 = 1_700_000_000_000L;
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.stoppedAt(T0);
  private InProcessServer server;

  @BeforeEach
  void start() {
    server = new InProcessServer(dir, b -> b.clock(clock));
    for (String u : new String[] {"alice", "bob"}) {
      server.createUser(u, u + "-pw");
    }
    server.createRoom("general", "alice", "bob");
    server.createRoom("quiet", "alice", "bob");
    server.createRoom("busy", "alice");
    server.createRoom("bobs", "bob");
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  @Test
  void roomsGetWithADateListsOnlyTheRoomsUpdatedSince() {
    InProcessPeer alice = InProcessPeer.loggedIn(server, "alice");
    alice.call("sendMessage", DdpPeer.message("g1", "general", "old"));
    clock.advance(Duration.ofSeconds(5));
    long since = clock.millis();
    clock.advance(Duration.ofSeconds(5));
    alice.call("sendMessage", DdpPeer.message("b1", "busy", "new"));

    JsonNode r = alice.call("rooms/get", DdpPeer.date(since)).path("result");
    assertThat(r.path("remove").isArray()).isTrue();
    assertThat(r.path("remove")).isEmpty();
    assertThat(ids(r.path("update"))).containsExactly("busy");
    assertThat(r.path("update").get(0).path("lm").path("$date").asLong())
        .isEqualTo(since + 5000);

    JsonNode fromStart = alice.call("rooms/get", DdpPeer.date(0)).path("result");
    assertThat(ids(fromStart.path("update"))).containsExactlyInAnyOrder("general", "busy");
  }

  @Test
  void roomsGetWithoutADateListsEveryRoomOfTheUser() {
    InProcessPeer bob = InProcessPeer.loggedIn(server, "bob");
    bob.call("sendMessage", DdpPeer.message("q1", "quiet", "hi"));
    JsonNode r = bob.call("rooms/get").path("result");
    assertThat(r.isArray()).as("Rocket.Chat answers an array without a date: %s", r).isTrue();
    assertThat(ids(r)).containsExactlyInAnyOrder("general", "quiet", "bobs");
    JsonNode quiet = find(r, "quiet");
    assertThat(quiet.path("lm").path("$date").asLong()).isEqualTo(T0);
    assertThat(find(r, "bobs").has("lm")).as("a room with no message has no lm").isFalse();
    assertThat(bob.call("rooms/get", (Object) null).path("result")).isEqualTo(r);
  }

  @Test
  void roomsGetNeedsALoginAndADate() {
    InProcessPeer p = InProcessPeer.connect(server);
    assertThat(p.call("rooms/get").path("error").path("error").asText())
        .isEqualTo("error-not-allowed");
    InProcessPeer alice = InProcessPeer.loggedIn(server, "alice");
    assertThat(alice.call("rooms/get", "yesterday").path("error").path("error").asText())
        .isEqualTo("error-invalid-date");
  }

  @Test
  void aPlainTextPasswordLogsIn() {
    InProcessPeer p = InProcessPeer.connect(server);
    ObjectNode wrong = DdpPeer.JSON.createObjectNode();
    wrong.putObject("user").put("username", "alice");
    wrong.put("password", "bob-pw");
    assertThat(p.call("login", wrong).path("error").path("error").asInt()).isEqualTo(403);
    ObjectNode right = DdpPeer.JSON.createObjectNode();
    right.putObject("user").put("username", "alice");
    right.put("password", "alice-pw");
    JsonNode r = p.call("login", right).path("result");
    assertThat(r.path("type").asText()).isEqualTo("password");
    assertThat(r.path("token").asText()).isNotEmpty();
  }

  @Test
  void aRepeatedIdIsAnsweredWithNoResultField() {
    InProcessPeer alice = InProcessPeer.loggedIn(server, "alice");
    JsonNode first = alice.call("sendMessage", DdpPeer.message("same", "general", "hi"));
    assertThat(first.path("result").path("_id").asText()).isEqualTo("same");
    JsonNode again = alice.call("sendMessage", DdpPeer.message("same", "general", "hi"));
    assertThat(again.has("result")).as("result field in %s", again).isFalse();
    assertThat(again.has("error")).as("error in %s", again).isFalse();
    assertThat(server.store.reads().messageCount("general")).isEqualTo(1);
    assertThat(server.counters.duplicatesIgnored.get()).isEqualTo(1);
  }

  @Test
  void aClientTimestampMoreThanAMinuteOffIsRefused() {
    InProcessPeer alice = InProcessPeer.loggedIn(server, "alice");
    ObjectNode late = DdpPeer.message("late", "general", "queued long ago");
    late.set("ts", DdpPeer.date(T0 - 60_001));
    JsonNode e = alice.call("sendMessage", late).path("error");
    assertThat(e.path("error").asText()).isEqualTo("error-message-ts-out-of-sync");
    assertThat(e.path("details").path("server_ts").path("$date").asLong()).isEqualTo(T0);
    ObjectNode ahead = DdpPeer.message("ahead", "general", "from the future");
    ahead.set("ts", DdpPeer.date(T0 + 60_001));
    assertThat(alice.call("sendMessage", ahead).path("error").path("error").asText())
        .isEqualTo("error-message-ts-out-of-sync");

    ObjectNode close = DdpPeer.message("close", "general", "a little late");
    close.set("ts", DdpPeer.date(T0 - 60_000));
    JsonNode ok = alice.call("sendMessage", close).path("result");
    assertThat(ok.path("ts").path("$date").asLong()).as("the stored ts is the server's")
        .isEqualTo(T0);
    assertThat(server.store.reads().messageCount("general")).isEqualTo(1);
  }

  private static List<String> ids(JsonNode rooms) {
    List<String> out = new ArrayList<>();
    rooms.forEach(r -> out.add(r.path("_id").asText()));
    return out;
  }

  private static JsonNode find(JsonNode rooms, String rid) {
    for (JsonNode r : rooms) {
      if (r.path("_id").asText().equals(rid)) {
        return r;
      }
    }
    throw new AssertionError("no room " + rid + " in " + rooms);
  }
}
