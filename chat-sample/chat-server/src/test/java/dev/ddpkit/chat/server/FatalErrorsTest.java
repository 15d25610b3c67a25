package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.testing.LiveThreads;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An {@link Error} in a thread of the server reaches its {@link FatalErrorHandler}, whichever
 * thread met it: a worker (Java-WebSocket catches it there and stops its server, which left a
 * process that served nobody), the timer (a scheduled executor keeps it in a future nobody reads),
 * and the default handler kills the server so that nobody waits on it.
 */
@Timeout(value = 30, unit = SECONDS)
class FatalErrorsTest extends ServerTestSupport {
  private final List<String> fatal = new CopyOnWriteArrayList<>();

  private ChatServerBuilder recording(ChatServerBuilder b) {
    return b.fatalErrorHandler((server, thread, error) -> fatal.add(thread + ": " + error));
  }

  @Test
  void anErrorInAWorkerThreadIsReported() throws Exception {
    // A catch-up call runs on the connection's worker; the hook it asks throws there.
    ChatServer s = startSeeded(b -> recording(b).faults(new ServerFaults() {
      @Override
      public CompletableFuture<Void> catchUpGate() {
        throw new OutOfMemoryError("simulated in a worker");
      }
    }));
    DdpPeer bob = login(s, "bob"); // Java-WebSocket stops the server after a worker's Error
    bob.sendMethodWithId("get", "messages/get", "general",
        DdpPeer.JSON.createObjectNode().set("lastUpdate", DdpPeer.date(0)));
    await().atMost(10, SECONDS).until(() -> !fatal.isEmpty());
    assertThat(fatal).hasSize(1);
    assertThat(fatal.get(0)).contains("worker").contains("OutOfMemoryError: simulated in a worker");
  }

  @Test
  void anErrorInTheSelectorThreadIsReported() throws Exception {
    // The selector decodes an upgrade itself (SelectorDecodes); the listener it calls throws.
    ChatServer s = start(b -> recording(b).connectionListener(new ServerConnectionListener() {
      @Override
      public void accepted(long epochMillis) {
        throw new OutOfMemoryError("simulated in the selector");
      }
    }));
    DdpPeer peer = track(DdpPeer.open(s.url()));
    await().atMost(10, SECONDS).until(() -> !fatal.isEmpty());
    assertThat(fatal).hasSize(1);
    assertThat(fatal.get(0)).contains("-selector")
        .contains("OutOfMemoryError: simulated in the selector");
    peer.dropAbruptly(); // the selector is gone: nothing answers a close
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void aHandlerThatFailsIsCalledAgainOnTheNextReport() {
    int[] calls = {0};
    FatalErrors errors = new FatalErrors(null, (server, thread, error) -> {
      if (++calls[0] == 1) {
        throw new OutOfMemoryError("the handler's own thread could not be made");
      }
      fatal.add(error.getMessage());
    });
    assertThatThrownBy(
        () -> errors.reportIfFatal(new OutOfMemoryError("first")))
        .hasMessageContaining("the handler's own thread");
    assertThat(errors.reportIfFatal(new OutOfMemoryError("second"))).isTrue();
    assertThat(errors.reportIfFatal(new OutOfMemoryError("third"))).isTrue();
    assertThat(fatal).containsExactly("second"); // once it worked, later reports are only logged
    assertThat(calls[0]).isEqualTo(2);
  }

  @Test
  void anErrorInATimerTaskIsReported() {
    FatalErrors errors = new FatalErrors(null, (server, thread, error) ->
        fatal.add(thread + ": " + error));
    GuardedTimer timer = new GuardedTimer("fatal-test-timer", errors);
    try {
      timer.scheduleWithFixedDelay(() -> {
        throw new StackOverflowError("simulated in the timer");
      }, 0, 10, TimeUnit.MILLISECONDS);
      timer.execute(() -> { });
      timer.schedule(() -> {
        throw new IllegalStateException("not fatal");
      }, 0, TimeUnit.MILLISECONDS);
      await().atMost(10, SECONDS).until(() -> !fatal.isEmpty());
      assertThat(fatal).containsExactly(
          "fatal-test-timer: java.lang.StackOverflowError: simulated in the timer");
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void byDefaultTheServerIsKilled() throws Exception {
    ChatServer s = start(b -> b.connectionListener(new ServerConnectionListener() {
      @Override
      public void accepted(long epochMillis) {
        throw new OutOfMemoryError("simulated");
      }
    }));
    String timer = LiveThreads.startingWith("chat-server-").stream()
        .filter(n -> n.endsWith("-timer")).findFirst().orElseThrow();
    String prefix = timer.substring(0, timer.length() - "timer".length());
    track(DdpPeer.open(s.url()));
    // Java-WebSocket stops its own part (the port, the sockets) after a worker's Error; the kill
    // also ends the server's timer and store, as after any kill.
    await().atMost(10, SECONDS).until(() -> !listening(s.port())
        && LiveThreads.startingWith(prefix).isEmpty());
  }
}
