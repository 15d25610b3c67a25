package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.java_websocket.drafts.Draft_6455;
import org.java_websocket.exceptions.IncompleteHandshakeException;
import org.java_websocket.exceptions.InvalidHandshakeException;
import org.java_websocket.framing.Framedata;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.handshake.ClientHandshakeBuilder;
import org.java_websocket.handshake.HandshakeImpl1Server;
import org.junit.jupiter.api.Test;

/**
 * The server's own reading of the upgrade request ({@link UpgradeRequest}), its answer's headers
 * and its text frames ({@link ServerDraft}, {@link ServerConnection#textFrame}): what the library
 * did, and a bound on an unfinished request.
 */
class UpgradeRequestTest {
  private static final String REQUEST = "GET /websocket?x=1 HTTP/1.1\r\n"
      + "Host: localhost:3000\r\n"
      + "Upgrade: websocket\r\n"
      + "Connection: Upgrade\r\n"
      + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      + "Sec-WebSocket-Version: 13\r\n"
      + "\r\n";

  private static ByteBuffer ascii(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void readsTheRequestLineAndHeadersAndLeavesTheFirstFramesInTheBuffer() throws Exception {
    ByteBuffer buf = ascii(REQUEST + "FRAME");
    ClientHandshakeBuilder r = UpgradeRequest.read(buf);
    assertThat(r.getResourceDescriptor()).isEqualTo("/websocket?x=1");
    assertThat(r.getFieldValue("host")).isEqualTo("localhost:3000");
    assertThat(r.getFieldValue("UPGRADE")).isEqualTo("websocket");
    assertThat(r.getFieldValue("Sec-WebSocket-Version")).isEqualTo("13");
    assertThat(StandardCharsets.US_ASCII.decode(buf).toString()).isEqualTo("FRAME");
  }

  @Test
  void bareLineFeedsBlanksAndRepeatedHeadersAreRead() throws Exception {
    ClientHandshakeBuilder r = UpgradeRequest.read(ascii(
        "get / http/1.1\nX-A:  one \r\nX-A:two\n\n"));
    assertThat(r.getResourceDescriptor()).isEqualTo("/");
    assertThat(r.getFieldValue("X-A")).isEqualTo("one, two");
  }

  @Test
  void anUnfinishedRequestIsIncompleteUntilItPassesTheBound() throws Exception {
    String start = "GET / HTTP/1.1\r\nHost: x\r\n";
    assertThatThrownBy(() -> UpgradeRequest.read(ascii(start)))
        .isInstanceOf(IncompleteHandshakeException.class);
    String almost = start + "X: " + "a".repeat(UpgradeRequest.MAX_BYTES - start.length() - 6);
    assertThat(almost.length()).isLessThan(UpgradeRequest.MAX_BYTES);
    assertThatThrownBy(() -> UpgradeRequest.read(ascii(almost)))
        .isInstanceOf(IncompleteHandshakeException.class);
    String over = start + "X: " + "a".repeat(UpgradeRequest.MAX_BYTES);
    assertThatThrownBy(() -> UpgradeRequest.read(ascii(over)))
        .isExactlyInstanceOf(InvalidHandshakeException.class)
        .hasMessageContaining("longer than 16384 bytes");
    // a whole request within the bound is read however many bytes follow it
    ByteBuffer withFrames = ascii(REQUEST + "f".repeat(3 * UpgradeRequest.MAX_BYTES));
    assertThat(UpgradeRequest.read(withFrames).getFieldValue("Host")).isEqualTo("localhost:3000");
    assertThat(withFrames.remaining()).isEqualTo(3 * UpgradeRequest.MAX_BYTES);
  }

  @Test
  void whatIsNotAnUpgradeRequestIsRefused() {
    for (String bad : List.of("POST / HTTP/1.1\r\n\r\n", "GET / HTTP/1.0\r\n\r\n",
        "GET /\r\n\r\n", "GET / HTTP/1.1 x\r\n\r\n", "\r\n\r\n",
        "GET / HTTP/1.1\r\nno colon here\r\n\r\n", "GET / HTTP/1.1\r\n: empty name\r\n\r\n")) {
      assertThatThrownBy(() -> UpgradeRequest.read(ascii(bad))).as(bad)
          .isExactlyInstanceOf(InvalidHandshakeException.class);
    }
  }

  @Test
  void theAnswerCarriesRfc6455sAcceptValueTheEchoedConnectionAndADate() throws Exception {
    ServerDraft draft = new ServerDraft(1024, new PeerErrorLog(dev.ddpkit.reconnect.Ticker.systemTicker()));
    ClientHandshake request = (ClientHandshake) draft.translateHandshake(ascii(REQUEST));
    var answer = draft.postProcessHandshakeResponseAsServer(request, new HandshakeImpl1Server());
    // the example of RFC 6455 section 1.3
    assertThat(answer.getFieldValue("Sec-WebSocket-Accept"))
        .isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    assertThat(answer.getFieldValue("Upgrade")).isEqualTo("websocket");
    assertThat(answer.getFieldValue("Connection")).isEqualTo("Upgrade");
    assertThat(answer.getFieldValue("Date")).endsWith(" GMT");
    assertThat(ServerDraft.httpDate(784_111_777_000L)).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
    assertThat(ServerDraft.httpDate(784_111_777_999L)).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
    assertThat(ServerDraft.httpDate(784_111_778_000L)).isEqualTo("Sun, 06 Nov 1994 08:49:38 GMT");
  }

  @Test
  void aRequestWithoutAKeyIsRefused() throws Exception {
    ServerDraft draft = new ServerDraft(1024, new PeerErrorLog(dev.ddpkit.reconnect.Ticker.systemTicker()));
    ClientHandshake request = (ClientHandshake) draft.translateHandshake(
        ascii("GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"));
    assertThatThrownBy(() -> draft.postProcessHandshakeResponseAsServer(request,
        new HandshakeImpl1Server())).isInstanceOf(InvalidHandshakeException.class)
        .hasMessageContaining("Sec-WebSocket-Key");
  }

  @Test
  void textFramesOfEveryLengthClassAreReadBackByTheLibrary() throws Exception {
    for (int n : new int[] {0, 1, 125, 126, 65_535, 65_536, 200_000}) {
      String text = "é".repeat(n / 2) + "x".repeat(n % 2); // n bytes of UTF-8
      ByteBuffer frame = ServerConnection.textFrame(text);
      Draft_6455 client = new Draft_6455(List.of(), 1 << 20);
      List<Framedata> read = client.translateFrame(frame);
      assertThat(read).as("frames of %d bytes", n).hasSize(1);
      Framedata f = read.get(0);
      assertThat(f.isFin()).isTrue();
      assertThat(f.getOpcode()).isEqualTo(org.java_websocket.enums.Opcode.TEXT);
      assertThat(StandardCharsets.UTF_8.decode(f.getPayloadData()).toString()).isEqualTo(text);
      assertThat(frame.hasRemaining()).isFalse();
    }
  }
}
