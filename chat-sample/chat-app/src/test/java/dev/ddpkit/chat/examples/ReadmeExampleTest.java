package dev.ddpkit.chat.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.server.ChatServer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs README.md's DDP example against the embedded server. */
class ReadmeExampleTest {
  @TempDir Path data;

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void theReadmeExampleLogsInSubscribesAndSeesItsOwnMessage() throws Exception {
    try (ChatServer server = ChatServer.builder().port(0).dataDir(data).build()) {
      server.start();
      server.seedDemo();
      List<String> shown = new CopyOnWriteArrayList<>();
      ReadmeExample.run(server.url(), shown::add);
      assertThat(server.messageCount("general")).isEqualTo(1);
      // The example closes its client as soon as sendMessage is acknowledged; the broadcast of
      // the message to its own stream may or may not have arrived by then.
      assertThat(shown).isSubsetOf("hello");
    }
  }
}
