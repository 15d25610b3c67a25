package dev.ddpkit.chat.reliability;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.ddp.testserver.SilentServer;
import dev.ddpkit.reconnect.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chat client in front of a server that takes the TCP connection and then says nothing: no
 * answer to the WebSocket upgrade, or an upgrade and no DDP {@code connected}. The connect timeout
 * must fire, the client must keep backing off (the status line shows it waiting, attempt after
 * attempt), and once a real server answers it logs in, joins and sends.
 */
class ConnectTimeoutTest {
  private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(300);
  private static final String ROOM = "lobby";

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void anUpgradeNeverAnsweredTimesOutAndBacksOffUntilTheServerHeals(@TempDir Path dir)
      throws Exception {
    ChatServer server = chatServer(dir, 0);
    server.start();
    seed(server);
    try (FaultProxy proxy = FaultProxy.forward(server.port())) {
      proxy.mode(FaultProxy.Mode.HANG_ON_ACCEPT);
      StatusLog log = new StatusLog();
      try (ChatClient client = client(proxy.port(), log)) {
        client.start();
        awaitBackingOff(client, log);
        assertThat(proxy.acceptedConnections()).as("dials taken by the silent listener")
            .isGreaterThanOrEqualTo(4);
        assertThat(server.stats().connectionsTotal()).as("upgrades that reached the server")
            .isZero();

        proxy.mode(FaultProxy.Mode.PASS);
        awaitLoggedInAndSending(client, log);
      }
    } finally {
      server.kill();
    }
  }

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void aServerThatNeverSendsConnectedTimesOutUntilARealOneTakesThePort(@TempDir Path dir)
      throws Exception {
    ChatServer setup = chatServer(dir, 0);
    setup.start();
    seed(setup);
    setup.stop();
    SilentServer silent = SilentServer.launch("silent-ws");
    int port = silent.getPort();
    StatusLog log = new StatusLog();
    ChatServer real = chatServer(dir, port);
    try (ChatClient client = client(port, log)) {
      client.start();
      awaitBackingOff(client, log);
      // A dial can time out before its upgrade completes (300 ms on a loaded machine), so the
      // silent server may have counted fewer upgrades than the client counted timeouts so far.
      await("upgrades completed, never answered").atMost(15, SECONDS)
          .until(() -> silent.upgrades() >= 4);

      silent.close();
      real.start();
      awaitLoggedInAndSending(client, log);
    } finally {
      silent.close();
      real.kill();
    }
  }

  // ---- shared steps ----

  /** Four timed-out dials in a row, each followed by a wait with a higher attempt number. */
  private static void awaitBackingOff(ChatClient client, StatusLog log) {
    await("four connect timeouts").atMost(15, SECONDS)
        .until(() -> client.connectionStats().connectTimeouts() >= 4);
    List<ChatStatus> waits = log.waits();
    assertThat(waits).as("waiting statuses").hasSizeGreaterThanOrEqualTo(3);
    for (int k = 0; k < waits.size(); k++) {
      ChatStatus w = waits.get(k);
      assertThat(w.attempt()).as("attempt of wait %d: %s", k + 1, w.text()).isEqualTo(k + 1);
      assertThat(w.reason()).as("reason of wait %d", k + 1).contains("connect timeout");
      assertThat(w.text()).startsWith("reconnecting in ");
    }
    assertThat(log.loggedIn()).isFalse();
    assertThat(client.outboxSize()).isZero();
  }

  private static void awaitLoggedInAndSending(ChatClient client, StatusLog log) throws Exception {
    await("logged in and joined").atMost(15, SECONDS)
        .until(() -> client.status().state() == ChatStatus.State.CONNECTED
            && client.joinedRooms().contains(ROOM));
    String id = client.sendMessage(ROOM, "made it");
    CompletableFuture<Void> flushed = client.flush();
    flushed.get(10, TimeUnit.SECONDS);
    await("own message shown").atMost(10, SECONDS).until(() -> log.shown.contains(id));
    assertThat(log.errors).isEmpty();
  }

  // ---- fixtures ----

  private static ChatServer chatServer(Path dir, int port) {
    return ChatServer.builder().port(port).dataDir(dir).build();
  }

  private static void seed(ChatServer server) {
    server.createUser("ann", "ann-pw");
    server.createRoom(ROOM, "ann");
  }

  private static ChatClient client(int port, StatusLog log) {
    return ChatClient.builder()
        .url("ws://127.0.0.1:" + port + "/websocket")
        .username("ann")
        .password("ann-pw")
        .room(ROOM)
        .connectTimeout(CONNECT_TIMEOUT)
        .backoff(Backoff.proportional(Duration.ofMillis(100), Duration.ofSeconds(1), 0.25))
        .stableAfter(Duration.ofSeconds(1))
        .listener(log)
        .name("timeout-client")
        .build();
  }

  /** Records the status line, what was shown and the errors. */
  private static final class StatusLog implements ChatListener {
    final List<ChatStatus> statuses = new CopyOnWriteArrayList<>();
    final List<String> shown = new CopyOnWriteArrayList<>();
    final List<String> errors = new CopyOnWriteArrayList<>();

    @Override
    public void onStatus(ChatStatus status) {
      statuses.add(status);
    }

    @Override
    public void onMessage(ChatMessage message) {
      shown.add(message.id());
    }

    @Override
    public void onError(String message) {
      errors.add(message);
    }

    /** The WAITING statuses, one per attempt. */
    List<ChatStatus> waits() {
      List<ChatStatus> out = new ArrayList<>();
      for (ChatStatus s : statuses) {
        if (s.state() == ChatStatus.State.WAITING
            && (out.isEmpty() || out.get(out.size() - 1).attempt() != s.attempt())) {
          out.add(s);
        }
      }
      return out;
    }

    boolean loggedIn() {
      return statuses.stream().anyMatch(s -> s.state() == ChatStatus.State.CONNECTED);
    }
  }
}
