package dev.ddpkit.chat.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.server.testing.RawPeer;
import dev.ddpkit.chat.server.testing.WebSocketWire;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where the server decodes what a connection sends ({@link SelectorDecodes}): a first read that is
 * the whole upgrade or a lone {@code connect} on the selector thread itself, so that a resumed
 * reconnect wakes no worker; everything else, calls pipelined behind a {@code connect} included,
 * on the connection's worker, in the order read.
 */
@Timeout(value = 60, unit = SECONDS)
class SelectorDecodesHandshakesTest extends ServerTestSupport {

  @Test
  void aResumedReconnectIsDecodedOnTheSelectorAloneAndAMethodOnAWorker() throws Exception {
    List<String> threads = new CopyOnWriteArrayList<>();
    ServerConnectionListener listener = new ServerConnectionListener() {
      @Override
      public void accepted(long epochMillis) {
        threads.add("accepted on " + Thread.currentThread().getName());
      }
    };
    ServerFaults faults = new ServerFaults() {
      @Override
      public CompletableFuture<Void> catchUpGate() {
        threads.add("catch-up on " + Thread.currentThread().getName());
        return null;
      }
    };
    ChatServer s = startSeeded(b -> b.connectionListener(listener).faults(faults));

    DdpPeer bob = track(DdpPeer.open(s.url()));
    bob.next(); // server_id
    bob.send(DdpPeer.connectFrame("1"));
    String session = bob.next("connected").path("session").asText();
    assertThat(bob.call("login", DdpPeer.loginParams("bob", "bob-pw")).has("error")).isFalse();
    JsonNode caughtUp = bob.call("messages/get", "general",
        DdpPeer.JSON.createObjectNode().set("lastUpdate", DdpPeer.date(0)));
    assertThat(caughtUp.has("error")).as("%s", caughtUp).isFalse();
    long received = bob.receivedCount();
    bob.dropAbruptly();
    await().atMost(10, SECONDS).until(() -> s.sessionStats().heldNow() == 1);

    Endpoint.Decodes before = s.decodes();
    DdpPeer back = track(DdpPeer.resume(s.url(), session, received));
    assertThat(back.next("connected").path("session").asText()).isEqualTo(session);
    Endpoint.Decodes after = s.decodes(); // counted before each read is decoded

    // The upgrade and the connect that resumed: two reads, none handed to a worker.
    assertThat(after.onWorkers() - before.onWorkers()).isZero();
    assertThat(after.onSelector() - before.onSelector()).isEqualTo(2);
    assertThat(s.sessionStats().sessionsResumed()).isEqualTo(1);
    assertThat(threads).hasSize(3);
    assertThat(threads.get(0)).startsWith("accepted on chat-server-").endsWith("-selector");
    assertThat(threads.get(1)).startsWith("catch-up on chat-server-").contains("-worker-");
    assertThat(threads.get(2)).startsWith("accepted on chat-server-").endsWith("-selector");
  }

  @Test
  void aConnectWithCallsBehindItInOneReadGoesWholeToAWorkerInOrder() throws Exception {
    List<String> threads = new CopyOnWriteArrayList<>();
    ServerFaults faults = new ServerFaults() {
      @Override
      public CompletableFuture<Void> catchUpGate() {
        threads.add(Thread.currentThread().getName());
        return null;
      }
    };
    ChatServer s = startSeeded(b -> b.faults(faults));
    try (RawPeer p = RawPeer.upgraded(s.url())) {
      assertThat(p.nextJson().path("server_id").asText()).isEqualTo("0");
      Endpoint.Decodes before = s.decodes();
      // connect, a login and a catch-up in one write, as a client that does not wait for
      // connected sends them: one read, which must not run the calls on the selector.
      for (String frame : List.of(DdpPeer.connectFrame("1").toString(),
          method("1", "login", DdpPeer.loginParams("bob", "bob-pw")),
          method("2", "messages/get", "general",
              DdpPeer.JSON.createObjectNode().set("lastUpdate", DdpPeer.date(0))))) {
        p.frame(WebSocketWire.TEXT, true, true, frame.getBytes(UTF_8));
      }
      p.flush();
      assertThat(p.nextJson().path("msg").asText()).isEqualTo("connected");
      JsonNode login = p.nextJson();
      assertThat(login.path("id").asText()).isEqualTo("1");
      assertThat(login.has("error")).as("%s", login).isFalse();
      assertThat(p.nextJson().path("msg").asText()).isEqualTo("updated");
      JsonNode caughtUp = p.nextJson();
      assertThat(caughtUp.path("id").asText()).isEqualTo("2");
      assertThat(caughtUp.has("error")).as("%s", caughtUp).isFalse();
      assertThat(threads).singleElement().asString().contains("-worker-");
      assertThat(s.decodes().onSelector()).isEqualTo(before.onSelector());
    }
  }

  @Test
  void theSelectorDecodesAtMostThreeReadsOfAConnection() throws Exception {
    ChatServer s = startSeeded(b -> b);
    Endpoint.Decodes before = s.decodes();
    try (RawPeer p = RawPeer.upgraded(s.url())) {
      assertThat(p.nextJson().path("server_id").asText()).isEqualTo("0");
      for (int i = 0; i < 4; i++) { // each ping its own read: its pong comes before the next
        p.send(WebSocketWire.PING, new byte[] {(byte) i});
        WebSocketWire.Frame pong = p.next();
        assertThat(pong.opcode()).isEqualTo(WebSocketWire.PONG);
        assertThat(pong.payload()).containsExactly((byte) i);
      }
      p.sendText(DdpPeer.connectFrame("1").toString());
      assertThat(p.nextJson().path("msg").asText()).isEqualTo("connected");
      Endpoint.Decodes after = s.decodes();
      // The upgrade and two pings on the selector; the other pings and the connect on the worker.
      assertThat(after.onSelector() - before.onSelector()).isEqualTo(SelectorDecodes.MAX_READS);
      assertThat(after.onWorkers() - before.onWorkers()).isEqualTo(3);
    }
  }

  @Test
  void anEndReadWhileAWorkerHoldsEarlierFramesWaitsForThem() throws Exception {
    CountDownLatch inCatchUp = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ServerFaults holdTheWorker = new ServerFaults() {
      @Override
      public CompletableFuture<Void> catchUpGate() {
        inCatchUp.countDown();
        try {
          release.await(30, SECONDS); // holds the connection's worker, as a slow method would
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return null;
      }
    };
    ChatServer s = startSeeded(b -> b.workers(1).faults(holdTheWorker));
    int pings = 100;
    // Java-WebSocket keeps a read buffer per accepted socket, 3 at most with one worker, and a
    // read waits for a free one: the held catch-up's, the pings' and the end's.
    try (RawPeer other1 = RawPeer.upgraded(s.url()); RawPeer other2 = RawPeer.upgraded(s.url());
        RawPeer p = RawPeer.builder(s.url()).ddp()) {
      p.sendText(method("1", "login", DdpPeer.loginParams("bob", "bob-pw")));
      assertThat(p.nextJson().has("error")).isFalse();
      assertThat(p.nextJson().path("msg").asText()).isEqualTo("updated");
      p.sendText(method("2", "messages/get", "general",
          DdpPeer.JSON.createObjectNode().set("lastUpdate", DdpPeer.date(0))));
      assertThat(inCatchUp.await(10, SECONDS)).isTrue();
      Endpoint.Decodes before = s.decodes();
      long open = s.stats().currentConnections();
      // One write of pings, then the FIN: two reads, the second the end, while the worker is
      // still in the catch-up. The end must wait behind the pings.
      for (int i = 0; i < pings; i++) {
        p.frame(WebSocketWire.TEXT, true, true,
            ("{\"msg\":\"ping\",\"id\":\"" + i + "\"}").getBytes(UTF_8));
      }
      p.shutdownOutput();
      await().atMost(10, SECONDS).until(() -> reads(s.decodes()) - reads(before) == 2);
      assertThat(s.decodes().onWorkers() - before.onWorkers()).isEqualTo(2);
      assertThat(s.stats().currentConnections()).isEqualTo(open); // not closed ahead of its pings
      release.countDown();

      assertThat(p.nextJson().path("id").asText()).isEqualTo("2"); // the catch-up's result
      assertThat(p.nextJson().path("msg").asText()).isEqualTo("updated");
      for (int i = 0; i < pings; i++) {
        JsonNode pong = p.nextJson();
        assertThat(pong.path("msg").asText()).isEqualTo("pong");
        assertThat(pong.path("id").asText()).isEqualTo(Integer.toString(i));
      }
      assertThat(p.closedByServer(10_000)).isTrue();
    } finally {
      release.countDown();
    }
  }

  private static long reads(Endpoint.Decodes d) {
    return d.onSelector() + d.onWorkers();
  }

  private static String method(String id, String name, Object... params) {
    ObjectNode m = DdpPeer.JSON.createObjectNode().put("msg", "method").put("id", id)
        .put("method", name);
    ArrayNode a = m.putArray("params");
    for (Object o : params) {
      a.add(DdpPeer.JSON.valueToTree(o));
    }
    return m.toString();
  }
}
