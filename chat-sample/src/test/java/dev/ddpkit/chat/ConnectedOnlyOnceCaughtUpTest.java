package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.faults.FaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Connected" used to show as soon as the resume login succeeded after a reconnect, over a
 * timeline still missing what was sent while offline. Now the status is "catching up" until the
 * missed messages are shown, and a failed catch-up is said and does not leave it stuck.
 *
 * <p>Alice reaches the server through a fault proxy, so that only she goes offline while Bob
 * writes; the server holds her {@code loadMissedMessages} answer until the test releases it.
 */
@Timeout(value = 60, unit = SECONDS)
class ConnectedOnlyOnceCaughtUpTest {

  @Test
  void catchingUpIsShownUntilTheMissedMessagesAreShownThenConnected(@TempDir Path dir)
      throws Exception {
    try (LoopbackChat chat = new LoopbackChat(dir);
        FaultProxy proxy = FaultProxy.forward(chat.server().port())) {
      Offline o = aliceOfflineWhileBobWrites(chat, proxy);

      proxy.mode(FaultProxy.Mode.PASS);
      eventually().until(() -> o.alice.status().state() == ChatStatus.State.SYNCING);
      assertThat(o.alice.status().text()).isEqualTo("catching up (1 room)");
      assertThat(o.alice.isCatchingUp("general")).isTrue();
      String live = o.bob.sendMessage("general", "while alice catches up");
      eventually().until(() -> o.bobRecorder.saw(live));
      assertThat(o.alice.status().state()).as("held: still catching up")
          .isEqualTo(ChatStatus.State.SYNCING);
      assertThat(o.log).as("nothing missed is shown yet").doesNotContain("message " + o.missed1);

      o.gate.complete(null);

      eventually().until(() -> o.alice.status().state() == ChatStatus.State.CONNECTED);
      assertThat(o.alice.isCatchingUp("general")).isFalse();
      assertThat(o.sinceReconnect())
          .as("the missed messages, then the live one held behind them, then connected")
          .containsSubsequence("status SYNCING", "message " + o.missed1, "message " + o.missed2,
              "message " + live, "status CONNECTED")
          .containsOnlyOnce("status CONNECTED")
          .endsWith("status CONNECTED");
      assertThat(o.log).noneMatch(e -> e.startsWith("error"));
    }
  }

  @Test
  void aFailedCatchUpIsSaidAndTheStatusMovesOnToConnected(@TempDir Path dir) throws Exception {
    try (LoopbackChat chat = new LoopbackChat(dir);
        FaultProxy proxy = FaultProxy.forward(chat.server().port())) {
      Offline o = aliceOfflineWhileBobWrites(chat, proxy);

      proxy.mode(FaultProxy.Mode.PASS);
      eventually().until(() -> o.alice.status().state() == ChatStatus.State.SYNCING);
      o.gate.completeExceptionally(new IllegalStateException("the test refuses the catch-up"));

      eventually().until(() -> o.alice.status().state() == ChatStatus.State.CONNECTED);
      assertThat(o.alice.isCatchingUp("general")).isFalse();
      assertThat(o.sinceReconnect())
          .as("the user is told before \"connected\" stands over the gap")
          .containsSubsequence("status SYNCING",
              "error catch-up of room general failed: catch-up refused by the test hook"
                  + " [error-test-hook]",
              "status CONNECTED")
          .endsWith("status CONNECTED");
    }
  }

  /**
   * Alice (through the proxy) and Bob (direct) join general; then the server starts holding
   * catch-ups, Alice's connection is reset and her dials refused, and Bob writes two messages the
   * server acknowledges. The proxy is left refusing.
   */
  private static Offline aliceOfflineWhileBobWrites(LoopbackChat chat, FaultProxy proxy)
      throws Exception {
    chat.server().seedDemo();
    Offline o = new Offline();
    o.alice = chat.start(chat.client("alice", new Recorder()).listener(o.recorder()).room("general")
        .url("ws://127.0.0.1:" + proxy.port() + "/websocket")
        // No "stable again" status change after the reconnect: it would refresh the status line
        // and hide a missed update when the revived stream becomes current.
        .stableAfter(Duration.ofMinutes(1)));
    o.bob = chat.start(chat.client("bob", o.bobRecorder).room("general"));
    eventually().until(() -> o.alice.status().state() == ChatStatus.State.CONNECTED
        && o.bob.status().state() == ChatStatus.State.CONNECTED);
    assertThat(o.log).as("the first connection catches up too: its history")
        .startsWith("status CONNECTING", "status SYNCING")
        .endsWith("status CONNECTED");

    chat.server().holdMissedMessages(o.gate);
    proxy.mode(FaultProxy.Mode.REFUSE);
    proxy.reset();
    eventually().until(() -> o.alice.status().state() == ChatStatus.State.WAITING);
    o.lostAt = o.log.size();
    o.missed1 = o.bob.sendMessage("general", "missed 1");
    o.missed2 = o.bob.sendMessage("general", "missed 2");
    o.bob.flush().get(20, SECONDS);
    return o;
  }

  private static ConditionFactory eventually() {
    return await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10));
  }

  /** What one scenario holds: the clients, Alice's event log (in listener order) and the gate. */
  private static final class Offline {
    final List<String> log = new CopyOnWriteArrayList<>();
    final Recorder bobRecorder = new Recorder();
    final CompletableFuture<Void> gate = new CompletableFuture<>();
    ChatClient alice;
    ChatClient bob;
    String missed1;
    String missed2;
    int lostAt;

    ChatListener recorder() {
      return new ChatListener() {
        @Override
        public void onMessage(ChatMessage message) {
          log.add("message " + message.id());
        }

        @Override
        public void onStatus(ChatStatus status) {
          log.add("status " + status.state());
        }

        @Override
        public void onError(String message) {
          log.add("error " + message);
        }
      };
    }

    List<String> sinceReconnect() {
      return new ArrayList<>(log.subList(lostAt, log.size()));
    }
  }
}
