package dev.ddpkit.chat.security;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ServerConnectionListener;
import dev.ddpkit.chat.server.testing.RawPeer;
import dev.ddpkit.chat.server.testing.WebSocketWire;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that send a text message that never ends (a text frame without FIN, then continuation
 * frames for ever). With Java-WebSocket's own draft the server buffered every fragment: 4 such
 * sockets took it to an {@code OutOfMemoryError} in 65 s. Now each is closed with 1009 before it
 * has sent twice the server's limit, the server lets go of what it had buffered, and it serves the
 * next client.
 */
@Timeout(value = 60, unit = SECONDS)
class NeverEndingMessageToTheServerTest {
  private static final int LIMIT = 4 << 20;
  private static final int ATTACKERS = 4;

  @TempDir Path dir;
  private final List<RawPeer> sockets = new ArrayList<>();
  private ChatServer server;

  @AfterEach
  void cleanUp() {
    sockets.forEach(RawPeer::close);
    if (server != null) {
      server.kill();
    }
  }

  @Test
  void eachIsClosedWith1009BeforeTwiceTheLimitAndTheServerServesTheNextClient() throws Exception {
    List<Integer> serverCloses = new CopyOnWriteArrayList<>();
    server = ChatServer.builder().dataDir(dir).maxFrameBytes(LIMIT)
        .connectionListener(new ServerConnectionListener() {
          @Override
          public void closed(long epochMillis, int code, boolean remote) {
            serverCloses.add(remote ? -code : code);
          }
        }).build();
    server.start();
    server.seedDemo();
    long heapBefore = usedHeapAfterGc();

    List<Attacker> attackers = new ArrayList<>();
    for (int i = 0; i < ATTACKERS; i++) {
      attackers.add(new Attacker(track(RawPeer.builder(server.url()).sendBuffer(32 * 1024).ddp())));
    }
    for (Attacker a : attackers) {
      a.start();
    }
    for (Attacker a : attackers) {
      long sent = a.sentWhenClosed.get(30, SECONDS);
      assertThat(sent).as("bytes sent before the server closed").isGreaterThan(LIMIT)
          .isLessThan(2L * LIMIT);
    }
    await().atMost(10, SECONDS).until(() -> serverCloses.size() == ATTACKERS);
    assertThat(serverCloses).containsOnly(1009);

    RawPeer fresh = track(RawPeer.ddp(server.url()));
    fresh.sendText(ServerHostileInputTest.login("bob", "bob-pw", "1"));
    JsonNode login = fresh.nextJson();
    assertThat(login.has("result")).as("login after the attack: %s", login).isTrue();
    assertThat(usedHeapAfterGc() - heapBefore).as("heap kept after the attack, bytes")
        .isLessThan(LIMIT);
  }

  private RawPeer track(RawPeer ws) {
    sockets.add(ws);
    return ws;
  }

  private static long usedHeapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    memory.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  /** Sends fragments until the server's close frame, or the end of the stream, arrives. */
  private static final class Attacker {
    final RawPeer ws;
    final AtomicLong sent = new AtomicLong();
    final CompletableFuture<Long> sentWhenClosed = new CompletableFuture<>();

    Attacker(RawPeer ws) {
      this.ws = ws;
    }

    void start() {
      Thread reader = new Thread(() -> {
        try {
          ws.awaitClose();
        } catch (IOException e) {
          // a reset: the server has closed as well
        }
        sentWhenClosed.complete(sent.get());
      }, "never-ending-reader");
      reader.setDaemon(true);
      reader.start();
      Thread writer = new Thread(this::stream, "never-ending-writer");
      writer.setDaemon(true);
      writer.start();
    }

    private void stream() {
      byte[] fragment = new byte[64 * 1024];
      java.util.Arrays.fill(fragment, (byte) 'x');
      // Each fragment counts from the start of its write: the server closes once it has read the
      // whole fragment past the limit, and its close can reach the reader before this thread
      // returns from writing that fragment (seen under load: exactly LIMIT counted).
      try {
        sent.addAndGet(fragment.length);
        ws.sendFragment(WebSocketWire.TEXT, /* fin= */ false, fragment);
        while (!sentWhenClosed.isDone() && sent.get() < 16L * LIMIT) {
          sent.addAndGet(fragment.length);
          ws.sendFragment(WebSocketWire.CONTINUATION, /* fin= */ false, fragment);
        }
      } catch (IOException e) {
        sentWhenClosed.complete(sent.get()); // the server closed the socket
      }
    }
  }
}
