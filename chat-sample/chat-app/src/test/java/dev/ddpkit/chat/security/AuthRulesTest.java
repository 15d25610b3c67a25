package dev.ddpkit.chat.security;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.testing.RawPeer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's authentication rules that dev.ddpkit.chat.server's LoginTest and MessagesTest do
 * not already cover: every method but login and every subscription refused before login, room
 * membership on loadHistory, resume tokens of 256 random bits that are unique and stored only
 * hashed, resume-token guessing rate-limited per connection, and failed logins rate-limited
 * per remote address across fresh connections.
 */
@Timeout(value = 60, unit = SECONDS)
class AuthRulesTest {
  @TempDir Path dir;
  private ChatServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.kill();
    }
  }

  private ChatServer start() {
    server = ChatServer.builder().dataDir(dir).build();
    server.start();
    server.seedDemo();
    server.createUser("dave", "dave-pw");
    server.createRoom("secret", "alice", "dave");
    return server;
  }

  @Test
  void beforeLoginEveryMethodButLoginAndEverySubscriptionIsRefused() throws Exception {
    start();
    try (RawPeer ws = RawPeer.ddp(server.url())) {
      int i = 0;
      for (String call : List.of("\"logout\",\"params\":[]",
          "\"sendMessage\",\"params\":[{\"_id\":\"a1\",\"rid\":\"general\",\"msg\":\"hi\"}]",
          "\"loadHistory\",\"params\":[\"general\",null,5,null]",
          "\"loadMissedMessages\",\"params\":[\"general\",{\"$date\":0}]",
          "\"nosuchmethod\",\"params\":[]", "\"createUser\",\"params\":[\"eve\"]")) {
        ws.sendText("{\"msg\":\"method\",\"id\":\"c" + i + "\",\"method\":" + call + "}");
        JsonNode r = ws.nextJson();
        assertThat(r.path("error").path("error").asText()).as("%s", call)
            .isEqualTo("error-not-allowed");
        assertThat(r.has("result")).isFalse();
        ws.nextJson(); // updated
        i++;
      }
      for (String name : List.of("stream-room-messages", "users", "anything")) {
        ws.sendText("{\"msg\":\"sub\",\"id\":\"s-" + name + "\",\"name\":\"" + name
            + "\",\"params\":[\"general\"]}");
        JsonNode n = ws.nextJson();
        assertThat(n.path("msg").asText()).isEqualTo("nosub");
        assertThat(n.path("error").path("error").asText()).isEqualTo("not-allowed");
      }
    }
    assertThat(server.messageCount("general")).isZero();
    assertThat(server.stats().subscriptionsByRoom()).isEmpty();
  }

  @Test
  void loadHistoryOfARoomOneIsNotInIsRefused() throws Exception {
    start();
    try (RawPeer ws = RawPeer.ddp(server.url())) {
      ws.sendText(ServerHostileInputTest.login("bob", "bob-pw", "l"));
      assertThat(ws.nextJson().has("result")).isTrue();
      ws.nextJson();
      ws.sendText("{\"msg\":\"method\",\"id\":\"h\",\"method\":\"loadHistory\","
          + "\"params\":[\"secret\",null,5,null]}");
      assertThat(ws.nextJson().path("error").path("error").asText()).isEqualTo("error-not-allowed");
    }
  }

  @Test
  void resumeTokensAre256RandomBitsUniqueAndStoredOnlyHashed() throws Exception {
    start();
    Set<String> tokens = new HashSet<>();
    int n = 300;
    for (int i = 0; i < n; i++) {
      String t = server.issueToken(i % 2 == 0 ? "alice" : "bob");
      assertThat(t).matches("[A-Za-z0-9_-]{43}");
      assertThat(Base64.getUrlDecoder().decode(t)).hasSize(32);
      tokens.add(t);
    }
    assertThat(tokens).hasSize(n);
    // Bits look random: each of the 256 bit positions is set in roughly half the tokens.
    int[] ones = new int[256];
    for (String t : tokens) {
      byte[] b = Base64.getUrlDecoder().decode(t);
      for (int bit = 0; bit < 256; bit++) {
        ones[bit] += (b[bit / 8] >> (bit % 8)) & 1;
      }
    }
    for (int bit = 0; bit < 256; bit++) {
      assertThat(ones[bit]).as("bit %s", bit).isBetween(n / 4, 3 * n / 4);
    }
    String sample = tokens.iterator().next();
    server.kill();
    server = null;
    byte[] db = readAll(dir);
    String file = new String(db, StandardCharsets.ISO_8859_1);
    for (String t : tokens) {
      assertThat(file).as("a token in clear in the database").doesNotContain(t);
    }
    String key = Base64.getUrlEncoder().withoutPadding().encodeToString(
        MessageDigest.getInstance("SHA-256").digest(sample.getBytes(StandardCharsets.US_ASCII)));
    assertThat(file).as("the token's hash is what is stored").contains(key);
    assertThat(file).doesNotContain("alice-pw").doesNotContain(ServerHostileInputTest.sha256(
        "alice-pw"));
  }

  @Test
  void guessingResumeTokensIsRateLimitedPerConnection() throws Exception {
    start();
    String good = server.issueToken("alice");
    try (RawPeer ws = RawPeer.ddp(server.url())) {
      for (int i = 0; i < 5; i++) {
        ws.sendText(resume("g" + i, "guess-" + i));
        assertThat(ws.nextJson().path("error").path("error").asInt()).isEqualTo(403);
        ws.nextJson();
      }
      ws.sendText(resume("g5", good));
      JsonNode r = ws.nextJson();
      assertThat(r.path("error").path("error").asText()).isEqualTo("too-many-requests");
    }
    try (RawPeer other = RawPeer.ddp(server.url())) {
      other.sendText(resume("ok", good));
      assertThat(other.nextJson().has("result")).isTrue();
    }
  }

  // Regression (review): the limits were per connection and per username only, so a guesser
  // spraying usernames or resume tokens, one fresh connection each, was never slowed down.
  @Test
  void failedLoginsFromFreshConnectionsAreRateLimitedPerAddress() throws Exception {
    start();
    String good = server.issueToken("alice");
    for (int i = 0; i < 20; i++) {
      try (RawPeer ws = RawPeer.ddp(server.url())) {
        ws.sendText(i % 2 == 0
            ? ServerHostileInputTest.login("user" + i, "guess", "p" + i)
            : resume("r" + i, "guess-" + i));
        assertThat(ws.nextJson().path("error").path("error").asInt()).as("attempt %d", i)
            .isEqualTo(403);
      }
    }
    try (RawPeer ws = RawPeer.ddp(server.url())) {
      ws.sendText(ServerHostileInputTest.login("bob", "bob-pw", "pw"));
      JsonNode e = ws.nextJson().path("error");
      assertThat(e.path("error").asText()).isEqualTo("too-many-requests");
      assertThat(e.path("reason").asText()).startsWith("Too many failed logins; try again in ");
      assertThat(e.path("details").path("timeToReset").asLong()).isBetween(1L, 60_000L);
      ws.nextJson(); // updated
      ws.sendText(resume("tok", good));
      assertThat(ws.nextJson().path("error").path("error").asText())
          .isEqualTo("too-many-requests");
    }
  }

  @Test
  void successfulLoginsFromManyClientsOnOneAddressAreNotLimited() throws Exception {
    start();
    String token = server.issueToken("alice");
    for (int i = 0; i < 60; i++) {
      try (RawPeer ws = RawPeer.ddp(server.url())) {
        ws.sendText(i % 2 == 0
            ? ServerHostileInputTest.login("bob", "bob-pw", "p" + i)
            : resume("r" + i, token));
        assertThat(ws.nextJson().has("result")).as("login %d", i).isTrue();
      }
    }
    // A few failures among them leave the others alone.
    try (RawPeer ws = RawPeer.ddp(server.url())) {
      ws.sendText(ServerHostileInputTest.login("carol", "guess", "bad"));
      assertThat(ws.nextJson().path("error").path("error").asInt()).isEqualTo(403);
    }
    try (RawPeer ws = RawPeer.ddp(server.url())) {
      ws.sendText(ServerHostileInputTest.login("carol", "carol-pw", "good"));
      assertThat(ws.nextJson().has("result")).isTrue();
    }
  }

  private static String resume(String id, String token) {
    return "{\"msg\":\"method\",\"id\":\"" + id + "\",\"method\":\"login\",\"params\":"
        + "[{\"resume\":\"" + token + "\"}]}";
  }

  private static byte[] readAll(Path dir) throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        out.write(Files.readAllBytes(p));
      }
    }
    return out.toByteArray();
  }
}
