package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server stores a message but its acknowledgement is lost, then the connection drops: the
 * client sends the message again with the same id, and nobody sees it twice.
 */
class LostAcknowledgementDoesNotDuplicateTest {
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void aLostAcknowledgementDoesNotDuplicate(@TempDir Path dir) {
    try (LoopbackChat chat = new LoopbackChat(dir)) {
      chat.server().seedDemo();
      Recorder alice = new Recorder();
      Recorder bob = new Recorder();
      ChatClient a = chat.start(chat.client("alice", alice).room("general"));
      ChatClient b = chat.start(chat.client("bob", bob).room("general"));
      await().atMost(20, SECONDS).until(
          () -> a.joinedRooms().contains("general") && b.joinedRooms().contains("general"));

      chat.server().loseNextAcknowledgement(true);
      String id = a.sendMessage("general", "only once");
      await().atMost(20, SECONDS).until(
          () -> chat.server().stats().acknowledgementsLost() == 1 && bob.saw(id));
      assertThat(alice.sent).as("no acknowledgement yet").isEmpty();
      assertThat(a.outboxSize()).isEqualTo(1);

      chat.server().dropAbruptly();
      await().atMost(30, SECONDS).until(() -> alice.sent.contains(id));

      assertThat(a.outboxSize()).isZero();
      assertThat(chat.server().messageCount("general")).isEqualTo(1);
      assertThat(chat.server().stats().duplicatesIgnored()).isGreaterThanOrEqualTo(1);
      await().atMost(10, SECONDS).until(() -> a.status().state() == ChatStatus.State.CONNECTED
          && b.status().state() == ChatStatus.State.CONNECTED);
      String after = b.sendMessage("general", "after");
      await().atMost(20, SECONDS).until(() -> alice.saw(after) && bob.saw(after));
      assertThat(alice.ids()).containsExactly(id, after);
      assertThat(bob.ids()).containsExactly(id, after);
      assertThat(alice.sent).containsExactly(id);
    }
  }
}
