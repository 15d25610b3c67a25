package dev.ddpkit.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.PasswordDigest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs README.md's DDP example, compiled against ddp-client's coordinates, and the chat example,
 * compiled against chat-client's, against the embedded server started as a user would start it:
 * {@code java -jar ddpkit.jar serve --seed-demo}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadmeExampleTest {
  private static final String LISTENING = "chat server listening on ";

  @TempDir Path data;
  private Process server;
  private String url;

  @BeforeEach
  void startServer() throws IOException {
    Path jar = Paths.get(System.getProperty("ddpkit.jar", "../chat-sample/target/ddpkit.jar"));
    assertTrue(Files.isRegularFile(jar), "no server jar at " + jar.toAbsolutePath());
    server =
        new ProcessBuilder(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "serve", "--port", "0", "--host", "127.0.0.1",
                "--data", data.toString(), "--seed-demo", "--drain-ms", "200")
            .redirectErrorStream(true)
            .start();
    BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      System.out.println("[serve] " + line);
      if (line.startsWith(LISTENING)) {
        url = line.substring(LISTENING.length()).trim();
        break;
      }
    }
    assertTrue(url != null, "the server exited before it listened");
    // Keep draining its output so that it never blocks on a full pipe, until destroy() closes it.
    Thread drain = new Thread(() -> {
      try {
        lines.lines().forEach(l -> System.out.println("[serve] " + l));
      } catch (UncheckedIOException closed) {
        // The server was stopped.
      }
    }, "serve-output");
    drain.setDaemon(true);
    drain.start();
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    if (server != null) {
      server.destroy();
      if (!server.waitFor(20, TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void theReadmeExampleSendsHelloThatAnotherSubscriberSees() throws Exception {
    CompletableFuture<String> seenByBob = new CompletableFuture<>();
    try (DdpClient bob = DdpClient.builder().url(url).build()) {
      bob.connect();
      bob.call("login", List.of(Map.of(
              "user", Map.of("username", "bob"),
              "password", Map.of("digest", PasswordDigest.sha256Hex("bob-pw"),
                  "algorithm", "sha-256"))),
          CallOptions.WAIT).get(20, TimeUnit.SECONDS);
      bob.addStreamListener("stream-room-messages", (collection, id, fields) ->
          seenByBob.complete(fields.path("args").path(0).path("msg").asText()));
      bob.subscribe("stream-room-messages", "general",
              Map.of("useCollection", false, "args", List.of()))
          .ready().get(20, TimeUnit.SECONDS);

      List<String> shown = new CopyOnWriteArrayList<>();
      ReadmeExample.run(url, shown::add);

      assertEquals("hello", seenByBob.get(20, TimeUnit.SECONDS));
      // The example closes its client once sendMessage is acknowledged; its own copy of the
      // broadcast may or may not have arrived by then, but it is never anything else.
      assertTrue(List.of("hello").containsAll(shown), "the example showed " + shown);
    }
  }

  @Test
  void theChatClientLogsInJoinsARoomAndSendsAMessage() throws Exception {
    ChatMessage shown = ChatExample.run(url, "carol", "carol-pw", "general", "hi from carol");

    assertEquals("carol", shown.user());
    assertEquals("general", shown.rid());
    assertEquals("hi from carol", shown.text());
  }
}
