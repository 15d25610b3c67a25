package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sockets that never finish the HTTP upgrade were never closed (100 half-sent requests and 100
 * silent sockets were all open 47 s later, each a file descriptor): now they are dropped at the
 * upgrade deadline. And one address can hold only so many sockets: past the cap a WebSocket is
 * closed with 1013 and a reason that says so, with an appointment.
 */
@Timeout(value = 30, unit = SECONDS)
class SocketDeadlineAndCapTest extends ServerTestSupport {
  private final List<Socket> raw = new ArrayList<>();

  @AfterEach
  void closeRaw() throws IOException {
    for (Socket s : raw) {
      s.close();
    }
  }

  @Test
  void socketsThatDoNotFinishTheUpgradeAreDroppedAtTheDeadline() throws Exception {
    Duration deadline = Duration.ofSeconds(1);
    ChatServer s = startSeeded(b -> b.upgradeTimeout(deadline));
    Socket silent = dial(s);
    Socket halfSent = dial(s);
    halfSent.getOutputStream().write(
        "GET /websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n".getBytes(
            StandardCharsets.US_ASCII));
    long start = System.nanoTime();
    assertThat(endsWithin(silent, Duration.ofSeconds(10))).as("silent socket closed").isTrue();
    assertThat(endsWithin(halfSent, Duration.ofSeconds(10))).as("half-sent socket closed")
        .isTrue();
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(tookMillis).as("ms until both were closed").isLessThan(3 * deadline.toMillis());
    assertThat(s.stats().upgradesTimedOut()).isEqualTo(2);
    login(s, "alice"); // an upgrade in time is served
  }

  @Test
  void pastThePerAddressCapASocketIsRefusedWith1013AndAReason() throws Exception {
    ChatServer s = startSeeded(b -> b.maxSocketsPerAddress(3));
    List<DdpPeer> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(connect(s));
    }
    DdpPeer refused = track(DdpPeer.open(s.url()));
    assertThat(refused.awaitClose()).isEqualTo(1013);
    assertThat(refused.closeReason).contains("too many sockets from this address")
        .contains("the cap is 3").contains("retry-after=");
    assertThat(s.stats().socketsRefusedPerAddress()).isEqualTo(1);
    held.get(0).close();
    org.awaitility.Awaitility.await().atMost(10, SECONDS)
        .until(() -> s.stats().currentConnections() == 2);
    login(s, "bob"); // room again once one closed
  }

  private Socket dial(ChatServer s) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), s.port());
    raw.add(socket);
    return socket;
  }

  /** Whether the server ended the socket (end of stream or reset) within {@code patience}. */
  private static boolean endsWithin(Socket socket, Duration patience) throws IOException {
    socket.setSoTimeout((int) patience.toMillis());
    InputStream in = socket.getInputStream();
    try {
      while (in.read() >= 0) {
        // the server sends nothing before the upgrade; read until it closes
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
