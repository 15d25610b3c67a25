package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.testing.LiveThreads;
import dev.ddpkit.ddp.testserver.Counter;
import dev.ddpkit.ddp.testserver.ServerSubscription;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A room stream that ends without the client asking, found through {@code Subscription.ended()}:
 * ended by the server, it is rejoined with backoff and what was missed meanwhile is fetched; refused
 * when revived after a reconnect (no longer a member), the room is left. Both are told to the user
 * through {@code onError}. The scripted test server plays Rocket.Chat here: the embedded
 * ChatServer has no hook to end a stream or remove a member.
 */
@Timeout(value = 30, unit = SECONDS)
class RoomStreamEndedTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String ROOM = "r1";

  private TestDdpServer server;
  private final List<ServerSubscription> streams = new CopyOnWriteArrayList<>();
  private final AtomicBoolean refuseStreams = new AtomicBoolean();
  private final Recorder recorder = new Recorder();
  private ChatClient client;

  @BeforeEach
  void startServer() {
    server = TestDdpServer.builder().name("chat-stream-server").start();
    server.onMethodReturn("login", params -> NODES.objectNode().put("id", "u1")
        .put("token", "token-1"));
    server.onMethodReturn("loadHistory", params -> NODES.objectNode().set("messages",
        NODES.arrayNode().add(message("m1", "before", 1_000))));
    // What was written while the stream was gone, and one message already shown (deduplicated).
    server.onMethodReturn("loadMissedMessages", params -> NODES.arrayNode()
        .add(message("m1", "before", 1_000)).add(message("m2", "missed", 2_000)));
    server.publish(ChatClient.STREAM, sub -> {
      if (refuseStreams.get()) {
        sub.nosub("not-allowed", "Not allowed");
        return;
      }
      streams.add(sub);
      sub.ready();
    });
    client = ChatClient.builder()
        .url(server.uri().toString())
        .username("alice")
        .password("alice-pw")
        .room(ROOM)
        .backoff(Backoff.fullJitter(Duration.ofMillis(50), Duration.ofMillis(500)))
        .stableAfter(Duration.ofSeconds(1))
        .resendDelay(Duration.ofMillis(100))
        .listener(recorder)
        .name("chat-stream-client")
        .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    client.close();
    assertThat(client.awaitTermination(Duration.ofSeconds(10))).as("client shut down").isTrue();
    server.stop();
    assertThat(LiveThreads.startingWith("chat-stream-")).as("threads left").isEmpty();
  }

  @Test
  void streamEndedByTheServerIsReportedRejoinedAndTheGapFetched() {
    client.start();
    eventually().until(() -> client.joinedRooms().contains(ROOM) && recorder.saw("m1"));

    streams.get(0).nosub(); // the server ends the stream, with no error

    eventually().until(() -> recorder.saw("m2"));
    assertThat(recorder.errors).hasSize(1);
    assertThat(recorder.errors.get(0)).contains("stream of room r1 ended").contains("rejoining");
    assertThat(streams).hasSize(2);
    assertThat(streams.get(1).isActive()).isTrue();
    assertThat(client.joinedRooms()).containsExactly(ROOM);
    assertThat(recorder.ids()).containsExactly("m1", "m2");
    assertThat(client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
  }

  @Test
  void streamRefusedWhenRevivedAfterAReconnectLeavesTheRoomAndSaysSo() {
    client.start();
    eventually().until(() -> client.joinedRooms().contains(ROOM));
    long subsBefore = server.count(Counter.SUBS);

    refuseStreams.set(true); // no longer a member
    server.closeAbruptly();

    eventually().until(() -> !recorder.errors.isEmpty());
    assertThat(recorder.errors).hasSize(1);
    assertThat(recorder.errors.get(0)).contains("left room r1").contains("Not allowed");
    assertThat(client.joinedRooms()).isEmpty();
    assertThat(server.count(Counter.SUBS)).as("revived once, not again").isEqualTo(subsBefore + 1);
    eventually().until(() -> client.status().state() == ChatStatus.State.CONNECTED);
  }

  private static ConditionFactory eventually() {
    return await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(10));
  }

  private static ObjectNode message(String id, String text, long ts) {
    ObjectNode m = NODES.objectNode().put("_id", id).put("rid", ROOM).put("msg", text);
    m.putObject("ts").put("$date", ts);
    m.putObject("u").put("_id", "u2").put("username", "bob");
    return m;
  }
}
