package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.server.InProcessServer.FakeConnection;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One DDP session on an {@link InProcessServer}: sends frames on the test's thread and finds the
 * server's answers among what its {@link FakeConnection} recorded. No socket, no waiting beyond
 * {@link InProcessServer#settle()} for answers sent from the store's writer.
 */
final class InProcessPeer {
  private final InProcessServer server;
  final FakeConnection conn;
  private final AtomicInteger ids = new AtomicInteger();

  private InProcessPeer(InProcessServer server, InetAddress from) {
    this.server = server;
    this.conn = server.open(from);
  }

  /** A new connection that has done the DDP handshake. */
  static InProcessPeer connect(InProcessServer server) {
    return connectFrom(server, InetAddress.getLoopbackAddress());
  }

  /** A new connection from {@code address} that has done the DDP handshake. */
  static InProcessPeer connectFrom(InProcessServer server, InetAddress address) {
    InProcessPeer p = new InProcessPeer(server, address);
    server.text(p.conn, "{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}");
    assertThat(p.frames("connected")).hasSize(1);
    return p;
  }

  /** A new connection logged in with the user's {@code <name>-pw} password. */
  static InProcessPeer loggedIn(InProcessServer server, String user) {
    InProcessPeer p = connect(server);
    JsonNode r = p.call("login", DdpPeer.loginParams(user, user + "-pw"));
    assertThat(r.has("error")).as("login error: %s", r).isFalse();
    return p;
  }

  /** Calls a method and returns its {@code result} frame. */
  JsonNode call(String method, Object... params) {
    String id = "m" + ids.incrementAndGet();
    ObjectNode m = DdpPeer.JSON.createObjectNode();
    m.put("msg", "method");
    m.put("id", id);
    m.put("method", method);
    ArrayNode arr = m.putArray("params");
    for (Object o : params) {
      arr.add(o == null ? DdpPeer.JSON.nullNode()
          : o instanceof JsonNode ? (JsonNode) o : DdpPeer.JSON.valueToTree(o));
    }
    server.text(conn, m.toString());
    server.settle();
    List<JsonNode> results = frames("result").stream()
        .filter(f -> f.path("id").asText().equals(id)).toList();
    assertThat(results).as("one result for %s", id).hasSize(1);
    return results.get(0);
  }

  /** Subscribes to a room's stream; returns the server's {@code ready} or {@code nosub}. */
  JsonNode subscribe(String rid) {
    return subscribe("stream-room-messages", rid);
  }

  /** Subscribes to a stream with its first parameter; the server's {@code ready} or {@code nosub}. */
  JsonNode subscribe(String stream, String first) {
    String id = "s" + ids.incrementAndGet();
    ObjectNode s = DdpPeer.JSON.createObjectNode();
    s.put("msg", "sub");
    s.put("id", id);
    s.put("name", stream);
    s.putArray("params").add(first).addObject().put("useCollection", false).putArray("args");
    server.text(conn, s.toString());
    List<JsonNode> answers = all().stream()
        .filter(f -> f.path("id").asText().equals(id)
            || f.path("subs").toString().equals("[\"" + id + "\"]"))
        .toList();
    assertThat(answers).as("one answer to sub %s", id).hasSize(1);
    return answers.get(0);
  }

  /** Every frame the server sent so far whose {@code msg} is {@code type}. */
  List<JsonNode> frames(String type) {
    return all().stream().filter(f -> f.path("msg").asText().equals(type)).toList();
  }

  private List<JsonNode> all() {
    return conn.sent().stream().map(InProcessPeer::parse).toList();
  }

  private static JsonNode parse(String text) {
    try {
      return DdpPeer.JSON.readTree(text);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }
}
