package dev.ddpkit.ddp.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.testserver.Counter;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.ReconnectionManager.State;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the plain-socket example of MIGRATION.md against the test server. */
@Timeout(value = 60, unit = SECONDS)
class PlainWebSocketReconnectExampleTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String CONNECT =
      TestDdpServer.message("connect")
          .put("version", "1")
          .set("support", TestDdpServer.json("[\"1\"]"))
          .toString();

  private final BlockingQueue<String> inbox = new LinkedBlockingQueue<>(1_000);
  private final List<ReconnectStatus> statuses = new CopyOnWriteArrayList<>();
  private TestDdpServer server;

  @BeforeEach
  void startServer() {
    server = TestDdpServer.builder().sendServerId(false).start();
  }

  @AfterEach
  @Timeout(value = 30, unit = SECONDS)
  void stopServer() {
    server.stop();
    await().atMost(WAIT).until(() -> !dialerThreadAlive());
  }

  private ReconnectionManager manager(Backoff backoff, ClosePolicy policy) {
    return ReconnectionManager.builder()
        .backoff(backoff)
        .closePolicy(policy)
        .listener(statuses::add)
        .name("example")
        .build();
  }

  private static boolean dialerThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().equals("example-dialer"));
  }

  private void awaitState(ReconnectionManager manager, State state) {
    await().atMost(WAIT).until(() -> manager.status().state() == state);
  }

  @Test
  void reconnectsThroughARestartBackingOffWhileTheServerIsDown() throws Exception {
    Backoff fast = Backoff.fullJitter(Duration.ofMillis(20), Duration.ofMillis(300));
    ReconnectionManager manager = manager(fast, ClosePolicy.ddp());
    try (var example = new PlainWebSocketReconnectExample(server.uri(), manager, inbox::add)) {
      example.start();
      awaitState(manager, State.CONNECTED);
      assertThat(example.send(CONNECT)).isTrue();
      assertThat(inbox.poll(20, SECONDS)).contains("\"connected\"");

      server.down();
      // Dials are refused while the server is down: the counter climbs, it is never reset.
      await().atMost(WAIT).until(() -> manager.status().attempt() >= 3);
      server.up();
      awaitState(manager, State.CONNECTED);

      assertThat(example.send(CONNECT)).isTrue();
      assertThat(inbox.poll(20, SECONDS)).contains("\"connected\"");
      assertThat(server.openConnections()).isEqualTo(1);
      assertThat(statuses)
          .filteredOn(s -> s.state() == State.WAITING)
          .extracting(ReconnectStatus::attempt)
          .startsWith(1, 2, 3)
          .isSorted();
    }
    assertThat(manager.status().state()).isEqualTo(State.STOPPED);
    assertThat(manager.status().reason()).isEqualTo("stopped by client");
    await().atMost(WAIT).until(() -> server.openConnections() == 0);
  }

  @Test
  void aServerSent1000StopsUnderTheWebSocketProfileButIsRetriedUnderDdp() {
    Backoff fast = Backoff.fixed(Duration.ofMillis(10));
    ReconnectionManager plain = manager(fast, ClosePolicy.websocket());
    try (var example = new PlainWebSocketReconnectExample(server.uri(), plain, inbox::add)) {
      example.start();
      awaitState(plain, State.CONNECTED);
      server.dropAll(1000, "bye");
      awaitState(plain, State.STOPPED);
      assertThat(plain.status().reason()).isEqualTo("closed 1000 bye");
    }

    ReconnectionManager ddp = manager(fast, ClosePolicy.ddp());
    try (var example = new PlainWebSocketReconnectExample(server.uri(), ddp, inbox::add)) {
      example.start();
      awaitState(ddp, State.CONNECTED);
      long opened = server.count(Counter.OPENED);
      server.dropAll(1000, "draining");
      await().atMost(WAIT).until(() -> server.count(Counter.OPENED) == opened + 1);
      awaitState(ddp, State.CONNECTED);
    }
  }

  @Test
  void networkAvailableDialsAtOnceInsteadOfWaitingOutTheDelay() {
    ReconnectionManager manager = manager(Backoff.fixed(Duration.ofHours(1)), ClosePolicy.ddp());
    try (var example = new PlainWebSocketReconnectExample(server.uri(), manager, inbox::add)) {
      example.start();
      awaitState(manager, State.CONNECTED);
      server.closeAbruptly();
      awaitState(manager, State.WAITING);
      assertThat(manager.status().delay()).isEqualTo(Duration.ofHours(1));

      example.networkAvailable();
      awaitState(manager, State.CONNECTED);
      assertThat(manager.status().attempt()).isEqualTo(1); // kept: not reset by the kick
    }
  }
}
