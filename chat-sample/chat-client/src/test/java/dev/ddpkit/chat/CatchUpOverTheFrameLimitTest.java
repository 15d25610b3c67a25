package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.server.RateLimits;
import dev.ddpkit.chat.server.StoredMessage;
import dev.ddpkit.ddp.faults.FaultProxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An outage long enough that the one {@code messages/get} {@code lastUpdate} answer is larger
 * than the client's frame limit, over real sockets: the client's transport closes with 1009 at
 * that answer, and the client must not ask the same again at every reconnect (a loop that never
 * converges) but catch up in cursor pages, each under the limit.
 */
class CatchUpOverTheFrameLimitTest {
  private static final int LIMIT = 64 * 1024;
  private static final String TEXT = "x".repeat(300);

  @Test
  @Timeout(value = 120, unit = SECONDS)
  void anAnswerOverTheLimitIsFetchedAgainInPagesAndTheRoomConverges(@TempDir Path dir)
      throws Exception {
    try (LoopbackChat chat = new LoopbackChat(dir, b -> b.rateLimits(RateLimits.none()));
        FaultProxy proxy = FaultProxy.forward(chat.server().port())) {
      chat.server().createUser("alice", "alice-pw");
      chat.server().createUser("bob", "bob-pw");
      chat.server().createRoom("general", "alice", "bob");
      Recorder seen = new Recorder();
      ChatClient alice = chat.start(chat.client("alice", seen).room("general")
          .maxFrameBytes(LIMIT).url("ws://127.0.0.1:" + proxy.port() + "/websocket"));
      ChatClient bob = chat.start(chat.client("bob", new Recorder()).outboxCapacity(1_000)
          .limits(ChatLimits.none()));
      bob.loggedIn().get(30, SECONDS);
      String first = bob.sendMessage("general", "before");
      bob.flush().get(30, SECONDS);
      await().atMost(30, SECONDS).until(() -> seen.saw(first)
          && alice.status().state() == ChatStatus.State.CONNECTED);

      LoopbackChat.cutOff(proxy, alice);
      List<String> away = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        away.add(bob.sendMessage("general", i + " " + TEXT));
      }
      bob.flush().get(60, SECONDS);
      long before = proxy.acceptedConnections();
      proxy.mode(FaultProxy.Mode.PASS);

      await().atMost(90, SECONDS).until(() -> alice.status().state() == ChatStatus.State.CONNECTED
          && away.stream().allMatch(seen::saw));
      List<String> server = chat.server().storedMessages("general").stream()
          .map(StoredMessage::id).toList();
      List<String> view = alice.view("general").get(10, SECONDS).stream()
          .map(ChatMessage::id).toList();
      assertThat(view).isEqualTo(server);
      assertThat(seen.duplicates()).isZero();
      assertThat(seen.errors).isEmpty();
      // One connection died of the answer, the next paged: not a reconnect per attempt (one more
      // is allowed for a dial that times out on a loaded machine).
      assertThat(proxy.acceptedConnections() - before).as("connections after the outage")
          .isBetween(2L, 3L);
    }
  }
}
