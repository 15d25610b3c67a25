package dev.ddpkit.chat.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link WebSocketWire}: the frame bytes {@link RawPeer} writes and reads, without a socket. */
class WebSocketWireTest {
  private static final byte[] PING = "{\"msg\":\"ping\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void aMaskedFrameCarriesTheKeyOfTheRandomItWasGiven() {
    byte[] key = new byte[4];
    new Random(7).nextBytes(key);

    byte[] f = WebSocketWire.encode(WebSocketWire.TEXT, /* fin= */ true, /* masked= */ true, PING,
        new Random(7));

    assertThat(f[0] & 0xFF).isEqualTo(0x81);
    assertThat(f[1] & 0xFF).isEqualTo(0x80 | PING.length);
    assertThat(Arrays.copyOfRange(f, 2, 6)).containsExactly(key);
    assertThat(f[6]).isEqualTo((byte) (PING[0] ^ key[0]));
    assertThat(f).hasSize(6 + PING.length);
  }

  @Test
  void sameSeedSameBytesAndAnUnmaskedFrameIsThePayloadAsItIs() {
    assertThat(WebSocketWire.encode(1, true, true, PING, new Random(1)))
        .containsExactly(WebSocketWire.encode(1, true, true, PING, new Random(1)));
    byte[] plain = WebSocketWire.encode(WebSocketWire.TEXT, /* fin= */ false, /* masked= */ false, PING, null);
    assertThat(plain[0]).isEqualTo((byte) WebSocketWire.TEXT);
    assertThat(Arrays.copyOfRange(plain, 2, plain.length)).containsExactly(PING);
  }

  @Test
  void theHeaderTakesTheShortestLengthFormAndTheOpcodeAsGiven() {
    assertThat(WebSocketWire.encodeHeader(0x41, true, false, 125)).containsExactly(0xC1, 125);
    assertThat(WebSocketWire.encodeHeader(0, false, true, 126)).containsExactly(0x00, 0x80 | 126, 0, 126);
    assertThat(WebSocketWire.encodeHeader(2, true, false, 65_536))
        .containsExactly(0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0);
  }

  @Test
  void readFrameUnmasksWhatEncodeMasked() throws IOException {
    byte[] big = new byte[70_000];
    new Random(3).nextBytes(big);
    byte[] stream = concat(WebSocketWire.encode(WebSocketWire.BINARY, true, true, big, new Random(4)),
        WebSocketWire.encode(WebSocketWire.CLOSE, true, false, new byte[] {0x03, (byte) 0xE9, 'b', 'y'}, null));
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(stream));

    WebSocketWire.Frame first = WebSocketWire.readFrame(in);
    assertThat(first.opcode()).isEqualTo(WebSocketWire.BINARY);
    assertThat(first.payload()).containsExactly(big);
    WebSocketWire.Frame close = WebSocketWire.readFrame(in);
    assertThat(close.opcode()).isEqualTo(WebSocketWire.CLOSE);
    assertThat(close.closeCode()).isEqualTo(1001);
    assertThat(close.closeReason()).isEqualTo("by");
    assertThat(WebSocketWire.readFrame(in)).as("the end of the stream").isNull();
  }

  @Test
  void aFrameCutShortIsAnErrorAndACloseWithoutACodeIs1005() throws IOException {
    byte[] f = WebSocketWire.encode(WebSocketWire.TEXT, true, false, PING, null);
    DataInputStream cut = new DataInputStream(
        new ByteArrayInputStream(Arrays.copyOf(f, f.length - 1)));
    assertThatThrownBy(() -> WebSocketWire.readFrame(cut)).isInstanceOf(EOFException.class);
    assertThat(new WebSocketWire.Frame(WebSocketWire.CLOSE, new byte[0]).closeCode()).isEqualTo(1005);
  }

  @Test
  void theUpgradeRequestAsksForVersion13WithAKeyFromTheRandom() {
    String req = new String(WebSocketWire.upgradeRequest("ws://127.0.0.1:3000/websocket",
        new Random(5)), StandardCharsets.US_ASCII);
    byte[] key = new byte[16];
    new Random(5).nextBytes(key);
    assertThat(req).startsWith("GET /websocket HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n")
        .contains("Sec-WebSocket-Key: " + java.util.Base64.getEncoder().encodeToString(key))
        .contains("Sec-WebSocket-Version: 13").endsWith("\r\n\r\n");
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }
}
