package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** 50 clients in two rooms; the server is killed and restarted while they write. */
class RestartLosesAndDuplicatesNothingTest {
  private static final int CLIENTS = 50;

  @Test
  @Timeout(value = 90, unit = SECONDS)
  void aRestartWithFiftyClientsLosesAndDuplicatesNothing(@TempDir Path dir) {
    try (LoopbackChat chat = new LoopbackChat(dir, b -> b.acceptRate(100))) {
      List<String> users = chat.createUsers("u", CLIENTS);
      Map<String, List<Integer>> members = new HashMap<>();
      for (int i = 0; i < CLIENTS; i++) {
        members.computeIfAbsent(room(i), r -> new ArrayList<>()).add(i);
      }
      members.forEach((rid, idx) ->
          chat.server().createRoom(rid, idx.stream().map(users::get).toArray(String[]::new)));
      List<Recorder> recorders = new ArrayList<>();
      List<ChatClient> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        Recorder r = new Recorder();
        recorders.add(r);
        clients.add(chat.start(chat.client(users.get(i), r).room(room(i))));
      }
      await().atMost(30, SECONDS).until(
          () -> clients.stream().allMatch(c -> c.joinedRooms().size() == 1
              && c.status().state() == ChatStatus.State.CONNECTED));

      Map<String, String> written = new HashMap<>(); // id -> room
      writeRound(clients, written, "before");
      await().atMost(20, SECONDS).until(() -> clients.stream().allMatch(c -> c.outboxSize() == 0));

      chat.kill();
      writeRound(clients, written, "while down");
      await().atMost(20, SECONDS).until(
          () -> clients.stream().allMatch(c -> c.status().state() != ChatStatus.State.CONNECTED));
      chat.restart();
      writeRound(clients, written, "after");

      await().atMost(40, SECONDS).until(() -> clients.stream().allMatch(c -> c.outboxSize() == 0));
      await().atMost(20, SECONDS).until(() -> allDelivered(recorders, written));

      for (int i = 0; i < CLIENTS; i++) {
        Recorder r = recorders.get(i);
        String myRoom = room(i);
        List<String> expected = new ArrayList<>();
        written.forEach((id, rid) -> {
          if (rid.equals(myRoom)) {
            expected.add(id);
          }
        });
        assertThat(r.ids()).as("client %d sees each message of its room once", i)
            .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(r.duplicates()).isZero();
        assertThat(r.messages).as("client %d sees its room in the server's order", i)
            .isSortedAccordingTo(RoomTimeline.ORDER);
        assertThat(r.errors).isEmpty();
        assertThat(clients.get(i).stats().logins()).as("logged in again").isGreaterThanOrEqualTo(2);
      }
      long stored = chat.server().messageCount("room-a") + chat.server().messageCount("room-b");
      assertThat(stored).isEqualTo(written.size());
      assertThat(chat.server().stats().subscriptionsByRoom())
          .containsEntry("room-a", CLIENTS / 2).containsEntry("room-b", CLIENTS / 2);
    }
  }

  private static String room(int i) {
    return i % 2 == 0 ? "room-a" : "room-b";
  }

  private static void writeRound(List<ChatClient> clients, Map<String, String> written, String when) {
    for (int i = 0; i < clients.size(); i++) {
      String rid = room(i);
      written.put(clients.get(i).sendMessage(rid, "from " + i + " " + when), rid);
    }
  }

  private static boolean allDelivered(List<Recorder> recorders, Map<String, String> written) {
    for (int i = 0; i < recorders.size(); i++) {
      String rid = room(i);
      long expected = written.values().stream().filter(rid::equals).count();
      if (recorders.get(i).timesSeen.size() < expected) {
        return false;
      }
    }
    return true;
  }
}
