package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.server.Compatibility;
import dev.ddpkit.chat.server.StoredMessage;
import dev.ddpkit.ddp.faults.FaultProxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An outage against each generation of server (issue 19): today's (messages/get), one from before
 * messages/get (its 404 sends the client to loadMissedMessages) and Rocket.Chat 9 (no
 * loadMissedMessages): the messages written while away are all shown once, in order; where the
 * server has messages/get, the edit and the deletion made while away are applied too.
 */
class CatchUpOnEveryServerGenerationTest {

  @ParameterizedTest
  @EnumSource(Compatibility.class)
  @Timeout(value = 90, unit = SECONDS)
  void anOutagesMessagesAreShownOnce(Compatibility generation, @TempDir Path dir)
      throws Exception {
    try (LoopbackChat chat = new LoopbackChat(dir, b -> b.compatibility(generation));
        FaultProxy proxy = FaultProxy.forward(chat.server().port())) {
      chat.server().createUser("alice", "alice-pw");
      chat.server().createUser("bob", "bob-pw");
      chat.server().createRoom("general", "alice", "bob");
      Recorder seen = new Recorder();
      ChatClient alice = chat.start(chat.client("alice", seen).room("general")
          .url("ws://127.0.0.1:" + proxy.port() + "/websocket"));
      ChatClient bob = chat.start(chat.client("bob", new Recorder()));
      bob.loggedIn().get(30, SECONDS);
      String edited = bob.sendMessage("general", "before, to be edited");
      String deleted = bob.sendMessage("general", "before, to be deleted");
      bob.flush().get(30, SECONDS);
      await().atMost(30, SECONDS).until(() -> seen.saw(edited) && seen.saw(deleted)
          && alice.status().state() == ChatStatus.State.CONNECTED);

      LoopbackChat.cutOff(proxy, alice);
      List<String> away = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        away.add(bob.sendMessage("general", "while alice was away " + i));
      }
      bob.edit("general", edited, "edited while alice was away").get(30, SECONDS);
      bob.delete("general", deleted).get(30, SECONDS);
      bob.flush().get(30, SECONDS);
      proxy.mode(FaultProxy.Mode.PASS);

      await().atMost(60, SECONDS).until(() -> alice.status().state() == ChatStatus.State.CONNECTED
          && away.stream().allMatch(seen::saw));
      assertThat(seen.ids()).containsExactly(edited, deleted, away.get(0), away.get(1),
          away.get(2));
      assertThat(seen.duplicates()).isZero();
      assertThat(seen.errors).isEmpty();
      List<String> server = chat.server().storedMessages("general").stream()
          .map(StoredMessage::text).toList();
      List<String> view = alice.view("general").get(10, SECONDS).stream()
          .map(ChatMessage::text).toList();
      if (generation == Compatibility.BEFORE_MESSAGES_GET) {
        // loadMissedMessages brings new messages only: the edit and the deletion made while away
        // are repaired only by a server that has messages/get (or, live, by the streams).
        assertThat(view).containsSubsequence(server.subList(1, server.size()));
      } else {
        assertThat(view).isEqualTo(server);
        // A catch-up applies its deletions first (at once), then the edits.
        assertThat(seen.changes).containsExactlyInAnyOrder("edited " + edited
            + " edited while alice was away", "deleted " + deleted);
      }
    }
  }
}
