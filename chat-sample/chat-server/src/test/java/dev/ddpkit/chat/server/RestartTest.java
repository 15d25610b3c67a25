package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A new server on the same data directory and port sees every acknowledged write. */
@Timeout(value = 30, unit = SECONDS)
class RestartTest extends ServerTestSupport {

  @Test
  void afterStopMessagesAndTokensSurvive() throws Exception {
    survives(ChatServer::stop, 1012);
  }

  @Test
  void afterKillMessagesAndTokensSurvive() throws Exception {
    survives(ChatServer::kill, 1006);
  }

  private void survives(Consumer<ChatServer> end, int closeCode) throws Exception {
    // 20 sends in a row: past Rocket.Chat's 10 calls of one method per 10 s, on purpose.
    ChatServer first = startSeeded(b -> b.rateLimits(RateLimits.none()));
    int port = first.port();
    DdpPeer alice = connect(first);
    String token = alice.call("login", DdpPeer.loginParams("alice", "alice-pw"))
        .path("result").path("token").asText();
    long lastTs = 0;
    for (int i = 0; i < 20; i++) {
      lastTs = alice.call("sendMessage", DdpPeer.message("r" + i, "general", "n" + i))
          .path("result").path("ts").path("$date").asLong();
    }
    end.accept(first);
    assertThat(alice.awaitClose()).isEqualTo(closeCode);

    ChatServer second = start(b -> b.port(port).rateLimits(RateLimits.none()));
    assertThat(second.port()).isEqualTo(port);
    DdpPeer back = connect(second);
    assertThat(back.call("login", DdpPeer.resumeParams(token)).path("result").path("type")
        .asText()).isEqualTo("resume");
    JsonNode all = back.call("loadMissedMessages", "general", DdpPeer.date(0)).path("result");
    assertThat(all).hasSize(20);
    assertThat(all.get(19).path("_id").asText()).isEqualTo("r19");
    long ts = back.call("sendMessage", DdpPeer.message("after-restart", "general", "x"))
        .path("result").path("ts").path("$date").asLong();
    assertThat(ts).as("ts keeps increasing across a restart").isGreaterThan(lastTs);
    // A message id stored before the restart is still known: Rocket.Chat's "already delivered",
    // a result with no result field, and nothing stored.
    JsonNode again = back.call("sendMessage", DdpPeer.message("r3", "general", "n3"));
    assertThat(again.has("error")).as("error in %s", again).isFalse();
    assertThat(again.has("result")).as("result field in %s", again).isFalse();
    assertThat(second.messageCount("general")).isEqualTo(21);
    assertThat(second.seedDemo()).as("seeding only an empty database").isFalse();
  }

  @Test
  void aSecondServerCannotOpenTheSameDataDirectoryOrPort() throws Exception {
    ChatServer first = start(b -> b);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> start(b -> b))
        .isInstanceOf(IllegalStateException.class);
    java.nio.file.Path other = dataDir.resolve("other");
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> ChatServer.builder().dataDir(other).port(first.port()).build().start())
        .isInstanceOf(IllegalStateException.class);
    assertThat(connect(first).isOpen()).isTrue();
  }

  @Test
  void tokensAndPasswordsAreStoredOnlyAsHashes() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer alice = connect(s);
    String token = alice.call("login", DdpPeer.loginParams("alice", "alice-pw"))
        .path("result").path("token").asText();
    String issued = s.issueToken("bob");
    s.stop();

    byte[] raw = Files.readAllBytes(dataDir.resolve(ChatStore.FILE_NAME));
    String file = new String(raw, StandardCharsets.ISO_8859_1);
    assertThat(file).doesNotContain(token).doesNotContain(issued)
        .doesNotContain(Secrets.sha256Hex("alice-pw")).doesNotContain("alice-pw")
        .contains(Secrets.tokenKey(token));

    // The journal after a clean stop is a compacted snapshot: one checksummed JSON record a line.
    java.util.List<com.fasterxml.jackson.databind.JsonNode> records = new java.util.ArrayList<>();
    for (Journal.Entry e : Journal.read(raw, dataDir.resolve(ChatStore.FILE_NAME)).entries()) {
      records.add(new com.fasterxml.jackson.databind.ObjectMapper().readTree(e.json()));
    }
    assertThat(records.stream().filter(r -> r.path("t").asText().equals("token"))
        .map(r -> r.path("k").asText()))
        .containsExactlyInAnyOrder(Secrets.tokenKey(token), Secrets.tokenKey(issued));
    assertThat(records.stream().filter(r -> r.path("t").asText().equals("user")
            && r.path("k").asText().equals("alice"))
        .map(r -> r.path("v").toString()))
        .singleElement().asString().contains("pbkdf2-sha256$")
        .doesNotContain(Secrets.sha256Hex("alice-pw"));
  }
}
