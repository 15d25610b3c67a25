package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Asking for the stream of a room one is not a member of is refused, and the user is told. */
class RoomNotJoinedIsRefusedTest {
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void aRoomYouAreNotInIsRefused(@TempDir Path dir) {
    try (LoopbackChat chat = new LoopbackChat(dir)) {
      chat.server().seedDemo();
      chat.server().createRoom("secret", "bob", "carol");
      Recorder alice = new Recorder();
      ChatClient a = chat.start(chat.client("alice", alice).room("general").room("secret"));

      await().atMost(20, SECONDS).until(() -> !alice.errors.isEmpty() && !a.joinedRooms().isEmpty());
      assertThat(alice.errors).singleElement().asString()
          .startsWith("cannot join room secret:")
          .contains("Not allowed");
      assertThat(a.joinedRooms()).containsExactly("general");
      assertThat(a.status().state()).isEqualTo(ChatStatus.State.CONNECTED);

      // Writing there is refused for good, not retried.
      String id = a.sendMessage("secret", "let me in");
      await().atMost(20, SECONDS).until(() -> alice.errors.size() == 2);
      assertThat(alice.errors.get(1)).contains(id).contains("rejected");
      assertThat(a.outboxSize()).isZero();
      assertThat(chat.server().messageCount("secret")).isZero();
    }
  }
}
