package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.testserver.ServerSubscription;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (review): a rejoin refused once with a retryable error ({@code too-many-requests})
 * left the catch-up begun by that join pending in the room's timeline, so after the next, successful
 * rejoin every live message of the room was held back for good.
 */
@Timeout(value = 30, unit = SECONDS)
class RejoinAfterRefusalKeepsShowingMessagesTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private TestDdpServer server;
  private ChatClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    server.stop();
  }

  @Test
  void liveMessagesAreShownAfterARejoinThatWasRefusedOnce() {
    List<ServerSubscription> streams = new CopyOnWriteArrayList<>();
    AtomicInteger subs = new AtomicInteger();
    server = TestDdpServer.builder().name("rejoin-refused-server").start();
    server.onMethodReturn("login", p -> NODES.objectNode().put("id", "u1").put("token", "t1"));
    server.onMethodReturn("loadHistory", p -> NODES.objectNode().set("messages",
        NODES.arrayNode().add(message("m1", 1_000))));
    server.onMethodReturn("loadMissedMessages", p -> NODES.arrayNode().add(message("m2", 2_000)));
    server.publish(ChatClient.STREAM, sub -> {
      if (subs.incrementAndGet() == 2) {
        sub.nosub("too-many-requests", "busy, try again"); // retryable: rejoined later
        return;
      }
      streams.add(sub);
      sub.ready();
    });
    Recorder recorder = new Recorder();
    client = ChatClient.builder().url(server.uri().toString()).username("alice").password("pw")
        .room("r1").resendDelay(Duration.ofMillis(50)).listener(recorder)
        .backoff(Backoff.fixed(Duration.ofMillis(100))).name("rejoin-refused-client").build();
    client.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> recorder.saw("m1"));

    streams.get(0).nosub(); // the server ends the stream: rejoin #1 is refused, rejoin #2 works
    await().atMost(Duration.ofSeconds(10)).until(() -> subs.get() == 3 && streams.size() == 2
        && client.joinedRooms().contains("r1"));
    await().atMost(Duration.ofSeconds(5)).until(() -> recorder.saw("m2"));
    ObjectNode fields = NODES.objectNode().put("eventName", "r1");
    fields.putArray("args").add(message("m3", 3_000));
    streams.get(1).changed(ChatClient.STREAM, "id", fields, List.of());

    await().atMost(Duration.ofSeconds(5)).until(() -> recorder.saw("m3"));
    assertThat(recorder.ids()).containsExactly("m1", "m2", "m3");
  }

  private static ObjectNode message(String id, long ts) {
    ObjectNode m = NODES.objectNode().put("_id", id).put("rid", "r1").put("msg", "text " + id);
    m.putObject("ts").put("$date", ts);
    m.putObject("u").put("_id", "u2").put("username", "bob");
    return m;
  }
}
