package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = SECONDS)
class HandshakeTest extends ServerTestSupport {

  @Test
  void serverIdComesFirstThenConnectedWithASession() throws Exception {
    ChatServer s = start(b -> b);
    DdpPeer p = track(DdpPeer.open(s.url()));
    JsonNode first = p.next();
    assertThat(first.toString()).isEqualTo("{\"server_id\":\"0\"}");
    p.send(DdpPeer.connectFrame("1"));
    JsonNode connected = p.next();
    assertThat(connected.path("msg").asText()).isEqualTo("connected");
    assertThat(connected.path("session").asText()).hasSize(17);
  }

  @Test
  void unsupportedVersionIsAnsweredWithFailedAndAClose() throws Exception {
    ChatServer s = start(b -> b);
    DdpPeer p = track(DdpPeer.open(s.url()));
    p.next(); // server_id
    ObjectNode c = DdpPeer.JSON.createObjectNode();
    c.put("msg", "connect");
    c.put("version", "2");
    c.putArray("support").add("2");
    p.send(c);
    assertThat(p.next().toString()).isEqualTo("{\"msg\":\"failed\",\"version\":\"1\"}");
    assertThat(p.awaitClose()).isEqualTo(1000);
  }

  @Test
  void preVersionsAreAccepted() throws Exception {
    ChatServer s = start(b -> b);
    DdpPeer p = track(DdpPeer.open(s.url()));
    p.next();
    p.send(DdpPeer.connectFrame("pre2"));
    assertThat(p.next().path("msg").asText()).isEqualTo("connected");
  }

  @Test
  void aConnectWithoutSupportListIsAcceptedForASupportedVersion() throws Exception {
    ChatServer s = start(b -> b);
    DdpPeer p = track(DdpPeer.open(s.url()));
    p.next();
    p.sendRaw("{\"msg\":\"connect\",\"version\":\"1\"}");
    assertThat(p.next().path("msg").asText()).isEqualTo("connected");
  }

  @Test
  void pingIsAnsweredWithPongEchoingTheId() throws Exception {
    ChatServer s = start(b -> b);
    DdpPeer p = connect(s);
    p.sendRaw("{\"msg\":\"ping\",\"id\":\"abc\"}");
    assertThat(p.next().toString()).isEqualTo("{\"msg\":\"pong\",\"id\":\"abc\"}");
    p.sendRaw("{\"msg\":\"ping\"}");
    assertThat(p.next().toString()).isEqualTo("{\"msg\":\"pong\"}");
  }

  @Test
  void messagesBeforeConnectAreRefusedAndConnectTwiceIsAnError() throws Exception {
    ChatServer s = start(b -> b);
    DdpPeer p = track(DdpPeer.open(s.url()));
    p.next();
    p.sendRaw("{\"msg\":\"method\",\"id\":\"1\",\"method\":\"login\",\"params\":[]}");
    JsonNode e = p.next();
    assertThat(e.path("msg").asText()).isEqualTo("error");
    assertThat(e.path("reason").asText()).isEqualTo("Must connect first");
    assertThat(e.path("offendingMessage").path("method").asText()).isEqualTo("login");
    p.send(DdpPeer.connectFrame("1"));
    assertThat(p.next().path("msg").asText()).isEqualTo("connected");
    p.send(DdpPeer.connectFrame("1"));
    assertThat(p.next().path("reason").asText()).isEqualTo("Already connected");
  }

  @Test
  void serverPingsAQuietClientAndClosesItWhenItDoesNotAnswer() throws Exception {
    ChatServer s = start(b -> b.heartbeatInterval(Duration.ofMillis(200))
        .heartbeatTimeout(Duration.ofMillis(300)));
    DdpPeer p = connect(s);
    assertThat(p.next().toString()).isEqualTo("{\"msg\":\"ping\"}");
    assertThat(p.awaitClose()).isEqualTo(1000);
    assertThat(p.closeReason).isEqualTo("heartbeat timeout");
    assertThat(s.stats().heartbeatTimeouts()).isEqualTo(1);
  }

  @Test
  void aClientThatAnswersPingsStaysConnected() throws Exception {
    // Pings every 100 ms, a 1 s timeout, answered for 2.5 s: a server that ignored the answers
    // would have closed the peer more than once over. (A 200 ms timeout closed a peer that did
    // answer, once, while other builds shared the 2 cores.)
    ChatServer s = start(b -> b.heartbeatInterval(Duration.ofMillis(100))
        .heartbeatTimeout(Duration.ofSeconds(1)));
    DdpPeer p = connect(s);
    long until = System.nanoTime() + Duration.ofMillis(2500).toNanos();
    int pings = 0;
    while (System.nanoTime() < until) {
      assertThat(p.next().toString()).isEqualTo("{\"msg\":\"ping\"}");
      p.sendRaw("{\"msg\":\"pong\"}");
      pings++;
    }
    assertThat(pings).as("pings answered").isGreaterThanOrEqualTo(5);
    assertThat(p.isOpen()).isTrue();
    assertThat(s.stats().heartbeatTimeouts()).isZero();
  }
}
