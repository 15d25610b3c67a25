package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.faults.FaultProxy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A device whose clock runs ahead of the server's still fetches what it missed: the catch-up after a
 * reconnect starts from the server's time stamps, never from the device's own clock. With the
 * device's clock as the start, {@code loadMissedMessages} asked for messages newer than a time the
 * server had not reached yet, and what was written while the device was away was never shown.
 */
@Timeout(value = 60, unit = SECONDS)
class ClockSkewCatchUpTest {

  @ParameterizedTest(name = "room had messages before the join: {0}")
  @ValueSource(booleans = {false, true})
  void aClockAheadOfTheServerLosesNothingWrittenWhileAway(boolean roomHadMessages,
      @TempDir Path dir) throws Exception {
    try (LoopbackChat chat = new LoopbackChat(dir);
        FaultProxy proxy = FaultProxy.forward(chat.server().port())) {
      chat.server().seedDemo();
      Recorder bob = new Recorder();
      ChatClient b = chat.start(chat.client("bob", bob).room("general"));
      List<String> expected = new ArrayList<>();
      if (roomHadMessages) {
        String before = b.sendMessage("general", "before alice joined");
        await().atMost(20, SECONDS).until(() -> bob.sent.contains(before));
        expected.add(before);
      }

      Recorder alice = new Recorder();
      ChatClient a = chat.start(chat.client("alice", alice)
          .url("ws://127.0.0.1:" + proxy.port() + "/websocket")
          .clock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(5)))
          .room("general"));
      await().atMost(20, SECONDS).until(() -> a.joinedRooms().contains("general")
          && alice.ids().containsAll(expected)
          && alice.lastState() == ChatStatus.State.CONNECTED);

      proxy.mode(FaultProxy.Mode.REFUSE);
      proxy.reset();
      await().atMost(20, SECONDS).until(() -> a.status().state() != ChatStatus.State.CONNECTED);
      String m1 = b.sendMessage("general", "written while alice was away 1");
      String m2 = b.sendMessage("general", "written while alice was away 2");
      await().atMost(20, SECONDS).until(() -> bob.sent.containsAll(List.of(m1, m2)));
      expected.add(m1);
      expected.add(m2);

      proxy.mode(FaultProxy.Mode.PASS);
      await().atMost(30, SECONDS).until(() -> alice.saw(m2));
      assertThat(alice.ids()).containsExactlyElementsOf(expected);
      assertThat(alice.duplicates()).isZero();
    }
  }
}
