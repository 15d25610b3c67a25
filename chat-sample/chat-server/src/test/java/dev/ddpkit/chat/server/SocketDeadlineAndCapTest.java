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
 * An upgrade request longer than its bound was held, and parsed again at each read, until the
 * deadline: now it is refused as soon as it passes {@link UpgradeRequest#MAX_BYTES}. Sockets that
 * never finish the HTTP upgrade were never closed (100 half-sent requests and 100
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
  void anUpgradeRequestPastItsBoundIsRefusedAtOnceNotHeldUntilTheDeadline() throws Exception {
    ChatServer s = startSeeded(b -> b.upgradeTimeout(Duration.ofSeconds(60)));
    Socket endless = dial(s);
    byte[] header = ("GET /websocket HTTP/1.1\r\nHost: x\r\nX-Endless: "
        + "a".repeat(4 * UpgradeRequest.MAX_BYTES)).getBytes(StandardCharsets.US_ASCII);
    endless.getOutputStream().write(header); // within the socket buffers: no wait for a reader
    endless.setSoTimeout(10_000);
    byte[] answer = endless.getInputStream().readNBytes(12);
    assertThat(new String(answer, StandardCharsets.US_ASCII)).as("HTTP status line")
        .startsWith("HTTP/1.1 4");
    assertThat(endsWithin(endless, Duration.ofSeconds(10))).as("closed by the server").isTrue();
    assertThat(s.stats().upgradesTimedOut()).isZero();
    login(s, "alice"); // an upgrade within the bound is served
  }

  @Test
  void aRefusedUpgradeIsClosedRightAfterItsAnswer() throws Exception {
    ChatServer s = startSeeded(b -> b.upgradeTimeout(Duration.ofSeconds(60)));
    Socket wrongPath = dial(s);
    wrongPath.getOutputStream().write(("GET /nowhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket"
        + "\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    wrongPath.setSoTimeout(10_000);
    assertThat(new String(wrongPath.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
        .startsWith("HTTP/1.1 4");
    assertThat(endsWithin(wrongPath, Duration.ofSeconds(10))).as("closed by the server").isTrue();
    assertThat(s.stats().upgradesTimedOut()).isZero();
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
