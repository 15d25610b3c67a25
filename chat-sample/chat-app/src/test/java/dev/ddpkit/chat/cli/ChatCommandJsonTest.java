package dev.ddpkit.chat.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.server.ChatServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The {@code chat --json} command end to end, in-process, against the embedded server. */
class ChatCommandJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  @Timeout(value = 60, unit = SECONDS)
  void chatJsonPrintsStatusMessagesAndAcknowledgements(@TempDir Path dir) throws Exception {
    ChatServer server = ChatServer.builder().dataDir(dir).build();
    server.start();
    ExecutorService runner = Executors.newSingleThreadExecutor(r -> new Thread(r, "chat-command"));
    ChatClient bob = null;
    try {
      server.seedDemo();
      bob = ChatClient.builder().url(server.url()).username("bob").password("bob-pw")
          .room("general").name("test-bob").build();
      bob.start();
      bob.loggedIn().get(20, SECONDS);
      String early = bob.sendMessage("general", "hello from bob");
      bob.flush().get(20, SECONDS);

      PipedOutputStream stdinWriter = new PipedOutputStream();
      PipedInputStream stdin = new PipedInputStream(stdinWriter);
      ByteArrayOutputStream stdout = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(stdout, true, StandardCharsets.UTF_8);
      ByteArrayOutputStream stderr = new ByteArrayOutputStream();
      String[] args = {"chat", "--url", server.url(), "--user", "alice", "--password", "alice-pw",
          "--room", "general", "--json"};
      Future<Integer> exit = runner.submit(
          () -> Main.run(args, stdin, out, new PrintStream(stderr, true, StandardCharsets.UTF_8)));

      // The history is shown: bob's earlier message arrives as a message event.
      await().atMost(20, SECONDS).until(() -> events(stdout).stream()
          .anyMatch(e -> e.path("event").asText().equals("message")
              && e.path("id").asText().equals(early)));
      stdinWriter.write("hi bob\n".getBytes(StandardCharsets.UTF_8));
      stdinWriter.flush();
      await().atMost(20, SECONDS).until(() -> events(stdout).stream()
          .anyMatch(e -> e.path("event").asText().equals("sent")));
      stdinWriter.close();
      assertThat(exit.get(20, SECONDS)).isZero();

      List<JsonNode> events = events(stdout);
      assertThat(events.get(0).toString())
          .isEqualTo("{\"event\":\"status\",\"status\":\"connecting\",\"attempt\":0,\"retryInMs\":0}");
      List<String> lines = events.stream().map(JsonNode::toString).collect(Collectors.toList());
      int syncing = lines.indexOf("{\"event\":\"status\",\"status\":\"syncing\",\"attempt\":0,"
          + "\"retryInMs\":0,\"roomsBehind\":1}");
      int connected = lines.indexOf(
          "{\"event\":\"status\",\"status\":\"connected\",\"attempt\":0,\"retryInMs\":0}");
      JsonNode history = events.stream()
          .filter(e -> e.path("id").asText().equals(early)).findFirst().orElseThrow();
      assertThat(syncing).as("catching up is announced after the login").isPositive();
      assertThat(connected)
          .as("connected only once the history is shown")
          .isGreaterThan(events.indexOf(history))
          .isGreaterThan(syncing);
      assertThat(history.path("rid").asText()).isEqualTo("general");
      assertThat(history.path("user").asText()).isEqualTo("bob");
      assertThat(history.path("text").asText()).isEqualTo("hello from bob");
      assertThat(history.path("ts").isIntegralNumber()).isTrue();
      JsonNode sent = events.stream()
          .filter(e -> e.path("event").asText().equals("sent")).findFirst().orElseThrow();
      assertThat(sent.path("rid").asText()).isEqualTo("general");
      assertThat(sent.path("id").asText()).hasSize(17);
      assertThat(server.messageCount("general")).isEqualTo(2);
      assertThat(events.stream().filter(e -> e.path("event").asText().equals("message")))
          .extracting(e -> e.path("id").asText())
          .doesNotHaveDuplicates()
          // A piped session shows what it wrote before it leaves, not only the acknowledgement.
          .contains(sent.path("id").asText());
      assertThat(events).noneMatch(e -> e.path("event").asText().equals("error"));
      assertThat(events.get(events.size() - 1).toString())
          .isEqualTo("{\"event\":\"status\",\"status\":\"stopped\",\"attempt\":0,\"retryInMs\":0}");
    } finally {
      if (bob != null) {
        bob.close();
      }
      runner.shutdownNow();
      server.kill();
    }
  }

  @Test
  @Timeout(value = 60, unit = SECONDS)
  void editsAndDeletionsPrintOneEventEachAndNeverASecondMessage(@TempDir Path dir)
      throws Exception {
    ChatServer server = ChatServer.builder().dataDir(dir).build();
    server.start();
    ExecutorService runner = Executors.newSingleThreadExecutor(r -> new Thread(r, "chat-command"));
    ChatClient bob = null;
    try {
      server.seedDemo();
      bob = ChatClient.builder().url(server.url()).username("bob").password("bob-pw")
          .room("general").name("test-bob").build();
      bob.start();
      bob.loggedIn().get(20, SECONDS);
      String bobs = bob.sendMessage("general", "helo from bob");
      bob.flush().get(20, SECONDS);

      PipedOutputStream stdinWriter = new PipedOutputStream();
      PipedInputStream stdin = new PipedInputStream(stdinWriter);
      ByteArrayOutputStream stdout = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(stdout, true, StandardCharsets.UTF_8);
      ByteArrayOutputStream stderr = new ByteArrayOutputStream();
      String[] args = {"chat", "--url", server.url(), "--user", "alice", "--password", "alice-pw",
          "--room", "general", "--json"};
      Future<Integer> exit = runner.submit(
          () -> Main.run(args, stdin, out, new PrintStream(stderr, true, StandardCharsets.UTF_8)));
      await().atMost(20, SECONDS).until(() -> events(stdout).stream()
          .anyMatch(e -> e.path("status").asText().equals("connected")));
      bob.edit("general", bobs, "hello from bob").get(20, SECONDS);
      await().atMost(20, SECONDS).until(() -> events(stdout).stream()
          .anyMatch(e -> e.path("event").asText().equals("edited")));
      stdinWriter.write(("first\n/edit last first, edited\nsecond\n/delete last\n"
          + "//slash at the start\n/frobnicate\n").getBytes(StandardCharsets.UTF_8));
      stdinWriter.close();
      assertThat(exit.get(30, SECONDS)).isZero();

      List<JsonNode> events = events(stdout);
      List<String> changes = events.stream()
          .filter(e -> List.of("edited", "deleted").contains(e.path("event").asText()))
          .map(e -> e.path("event").asText() + " " + e.path("text").asText(""))
          .collect(Collectors.toList());
      assertThat(changes).containsExactly("edited hello from bob", "edited first, edited",
          "deleted ");
      JsonNode bobEdit = events.stream().filter(e -> e.path("event").asText().equals("edited"))
          .findFirst().orElseThrow();
      assertThat(bobEdit.path("id").asText()).isEqualTo(bobs);
      assertThat(bobEdit.path("editedBy").asText()).isEqualTo("bob");
      assertThat(bobEdit.path("editedAt").isIntegralNumber()).isTrue();
      assertThat(bobEdit.path("rid").asText()).isEqualTo("general");
      List<String> messages = events.stream()
          .filter(e -> e.path("event").asText().equals("message"))
          .map(e -> e.path("text").asText()).collect(Collectors.toList());
      // One message event per message: an edit never prints a second one.
      assertThat(messages).containsExactly("helo from bob", "first", "second",
          "/slash at the start");
      assertThat(stderr.toString(StandardCharsets.UTF_8)).contains("unknown command /frobnicate");
      assertThat(server.storedMessages("general"))
          .extracting(m -> m.text() + (m.edited() ? " (edited)" : ""))
          .containsExactly("hello from bob (edited)", "first, edited (edited)",
              "/slash at the start");
    } finally {
      if (bob != null) {
        bob.close();
      }
      runner.shutdownNow();
      server.kill();
    }
  }

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void aRefusedLoginPrintsSignedOutAndExitsOne(@TempDir Path dir) throws Exception {
    ChatServer server = ChatServer.builder().dataDir(dir).build();
    server.start();
    try {
      server.seedDemo();
      ByteArrayOutputStream stdout = new ByteArrayOutputStream();
      String[] args = {"chat", "--url", server.url(), "--user", "alice", "--password", "wrong",
          "--room", "general", "--json"};
      int code = Main.run(args, new ByteArrayInputStream("never sent\n".getBytes(StandardCharsets.UTF_8)),
          new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));
      assertThat(code).isEqualTo(1);
      List<JsonNode> events = events(stdout);
      JsonNode last = events.get(events.size() - 1);
      assertThat(last.path("status").asText()).isEqualTo("signed-out");
      assertThat(last.path("reason").asText()).contains("login refused").contains("403");
      assertThat(server.messageCount("general")).isZero();
      assertThat(server.stats().loginsFailed()).isEqualTo(1);
    } finally {
      server.kill();
    }
  }

  private static List<JsonNode> events(ByteArrayOutputStream stdout) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : stdout.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }
}
