package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.PATIENCE;
import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.CollectionListener;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.ddp.testserver.MethodCall;
import dev.ddpkit.ddp.testserver.ReceivedFrame;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server crashes and comes back on the same port: the client redials with its old session id,
 * logs in again first (the reconnect hook's wait call), revives its subscription with the same id,
 * re-sends the call that had no answer with the same id, and resynchronises its collection: a
 * document removed during the outage disappears, the others are never cleared and refilled.
 */
@Timeout(value = 30, unit = SECONDS)
class ServerRestartTest {

  @Test
  void reconnectsWithOldSessionLogsInFirstRevivesSubAndCallAndResyncsWithoutFlicker()
      throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Map<String, ObjectNode> items = new ConcurrentHashMap<>();
      for (String id : List.of("a", "b", "c")) {
        items.put(id, doc(id));
      }
      server.publish("items", sub -> {
        items.forEach((id, fields) -> sub.added("items", id, fields));
        sub.ready();
      });
      server.onMethodReturn("login", params -> TextNode.valueOf("user-1"));
      // The first connection never answers "slow": the call is in flight when the server dies.
      List<MethodCall> slowCalls = new CopyOnWriteArrayList<>();
      server.onMethod("slow", call -> {
        slowCalls.add(call);
        if (call.connection().id() > 1) {
          call.reply(TextNode.valueOf("done"));
        }
      });

      Loopback.Client c = lb.client(server.uri());
      c.ddp.addReconnectHook(
          client -> client.call("login", List.of(Map.of("resume", "token-1")), CallOptions.WAIT));
      c.connected();
      Subscription sub = c.ddp.subscribe("items");
      sub.ready().get(PATIENCE.toSeconds(), SECONDS);
      assertThat(c.ddp.collection("items").snapshot()).containsOnlyKeys("a", "b", "c");
      List<String> events = new CopyOnWriteArrayList<>();
      c.ddp.collection("items").addListener(recorder(events));
      CompletableFuture<JsonNode> slow = c.ddp.call("slow");
      eventually().until(() -> slowCalls.size() == 1);
      String session = server.connections().get(0).session();
      server.drainFrames();

      server.down();
      eventually().until(() -> c.ddp.status().state() != DdpStatus.State.CONNECTED);
      items.remove("b");
      items.put("d", doc("d"));
      server.up();

      // isReady() stays true through a reconnect: wait for what the resync shows instead.
      eventually().until(() -> events.size() >= 2);
      assertThat(c.ddp.stats().reconnects()).isEqualTo(1);
      assertThat(slow.get(PATIENCE.toSeconds(), SECONDS).asText()).isEqualTo("done");

      List<ReceivedFrame> frames = server.drainFrames().stream()
          .filter(f -> !f.msg().equals("ping") && !f.msg().equals("pong"))
          .collect(Collectors.toList());
      int conn = server.connections().get(0).id();
      assertThat(frames).allMatch(f -> f.connectionId() == conn, "all on the new connection");
      assertThat(frames).extracting(ReceivedFrame::msg)
          .containsExactly("connect", "method", "sub", "method");
      assertThat(frames.get(0).json().path("session").asText()).isEqualTo(session);
      assertThat(frames.get(1).json().path("method").asText()).isEqualTo("login");
      assertThat(frames.get(2).json().path("id").asText()).isEqualTo(sub.id());
      assertThat(frames.get(3).json().path("method").asText()).isEqualTo("slow");
      assertThat(frames.get(3).json().path("id").asText())
          .isEqualTo(slowCalls.get(0).id())
          .isEqualTo(slowCalls.get(1).id());

      assertThat(c.ddp.collection("items").snapshot()).containsOnlyKeys("a", "c", "d");
      assertThat(events).containsExactlyInAnyOrder("removed b", "added d");
      assertThat(sub.ended()).isNotDone();
    }
  }

  private static ObjectNode doc(String id) {
    return (ObjectNode) TestDdpServer.json("{\"name\":\"" + id + "\"}");
  }

  static CollectionListener recorder(List<String> events) {
    return new CollectionListener() {
      @Override
      public void onAdded(String collection, String id, ObjectNode fields) {
        events.add("added " + id);
      }

      @Override
      public void onChanged(String collection, String id, ObjectNode fields, List<String> cleared) {
        events.add("changed " + id);
      }

      @Override
      public void onRemoved(String collection, String id) {
        events.add("removed " + id);
      }
    };
  }
}
