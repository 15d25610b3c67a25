package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A killed server ends every socket it had accepted, at once, like a crashed process: also one
 * whose WebSocket upgrade it had not read yet. Found in {@code herd --real --warm-up}: clients that
 * redialled within milliseconds of a kill landed in the dying server's accept loop, were never
 * answered nor closed, and waited out their 10 s connect timeout, well after everyone else was
 * back.
 */
@Timeout(value = 30, unit = SECONDS)
class KillClosesEverySocketTest {
  @TempDir Path dir;

  @Test
  void aSocketAcceptedButNotYetUpgradedIsEndedByAKill() throws IOException {
    ChatServer server = ChatServer.builder().dataDir(dir).build();
    server.start();
    try (Socket raw = new Socket("127.0.0.1", server.port())) {
      // Connected at the TCP level, no upgrade request sent: accepted, not a WebSocket yet.
      await("the server to accept the socket").atMost(10, SECONDS)
          .until(() -> server.acceptedSockets() >= 1);
      server.kill();
      raw.setSoTimeout(5_000);
      assertThat(readEnd(raw)).as("the socket ended by the kill, not left open").isTrue();
    } finally {
      server.kill();
    }
  }

  /** True when the peer ended the socket (end of stream or a reset); false on a read timeout. */
  private static boolean readEnd(Socket s) throws IOException {
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // connection reset: ended
    }
  }
}
