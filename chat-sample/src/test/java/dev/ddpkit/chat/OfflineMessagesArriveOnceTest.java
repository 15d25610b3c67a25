package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Messages written while the server is down wait in the outbox and arrive once, in order. */
class OfflineMessagesArriveOnceTest {
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void messagesWrittenWhileOfflineArriveOnce(@TempDir Path dir) {
    try (LoopbackChat chat = new LoopbackChat(dir)) {
      chat.server().seedDemo();
      Recorder alice = new Recorder();
      Recorder bob = new Recorder();
      ChatClient a = chat.start(chat.client("alice", alice).room("general"));
      chat.start(chat.client("bob", bob).room("general"));
      await().atMost(20, SECONDS).until(
          () -> a.joinedRooms().contains("general") && bob.lastState() == ChatStatus.State.CONNECTED);
      // The socket's threads, named after the client (no loop thread of its own since issue 11).
      assertThat(LoopbackChat.clientThreads()).as("the leak check sees live clients")
          .contains("test-alice-ws-read", "test-bob-ws-read");
      String first = a.sendMessage("general", "before");
      await().atMost(20, SECONDS).until(() -> bob.saw(first));

      chat.kill();
      await().atMost(20, SECONDS).until(() -> a.status().state() == ChatStatus.State.WAITING);
      String m1 = a.sendMessage("general", "offline 1");
      String m2 = a.sendMessage("general", "offline 2");
      String m3 = a.sendMessage("general", "offline 3");
      assertThat(a.outboxSize()).isEqualTo(3);
      assertThat(alice.sent).containsExactly(first);
      chat.restart();

      await().atMost(30, SECONDS).until(() -> a.outboxSize() == 0);
      await().atMost(20, SECONDS).until(() -> bob.saw(m3) && alice.saw(m3));
      assertThat(alice.sent).containsExactlyInAnyOrder(first, m1, m2, m3);
      assertThat(bob.ids()).containsExactly(first, m1, m2, m3);
      assertThat(alice.ids()).containsExactly(first, m1, m2, m3);
      assertThat(bob.texts()).containsExactly("before", "offline 1", "offline 2", "offline 3");
      assertThat(chat.server().messageCount("general")).isEqualTo(4);
      assertThat(alice.statuses).extracting(ChatStatus::state)
          .contains(ChatStatus.State.WAITING)
          .endsWith(ChatStatus.State.CONNECTED);
      assertThat(List.of(alice.errors, bob.errors)).allMatch(List::isEmpty);
    }
  }

  @Test
  @Timeout(value = 60, unit = SECONDS)
  void aClientStartedWhileTheServerIsDownLogsInAndSendsWhenItComesUp(@TempDir Path dir) {
    try (LoopbackChat chat = new LoopbackChat(dir)) {
      chat.server().seedDemo();
      chat.kill();
      Recorder alice = new Recorder();
      ChatClient a = chat.start(chat.client("alice", alice).room("general"));
      String id = a.sendMessage("general", "written before the first connection");
      await().atMost(20, SECONDS).until(() -> alice.lastState() == ChatStatus.State.WAITING);
      assertThat(a.loggedIn()).isNotDone();

      chat.restart();
      await().atMost(30, SECONDS).until(() -> alice.sent.contains(id) && alice.saw(id));
      assertThat(a.loggedIn()).isCompleted();
      assertThat(alice.ids()).containsExactly(id);
      assertThat(a.joinedRooms()).containsExactly("general");
      assertThat(chat.server().messageCount("general")).isEqualTo(1);
      assertThat(alice.errors).isEmpty();
    }
  }
}
