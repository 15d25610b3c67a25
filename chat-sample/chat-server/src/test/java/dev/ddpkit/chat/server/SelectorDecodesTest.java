package dev.ddpkit.chat.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.server.testing.WebSocketWire;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The shapes of a read that {@link SelectorDecodes} lets the selector decode. */
class SelectorDecodesTest {
  private static final Random RANDOM = new Random(7);

  private static ByteBuffer frame(int opcode, boolean fin, boolean masked, int payloadBytes) {
    return ByteBuffer.wrap(WebSocketWire.encode(opcode, fin, masked, new byte[payloadBytes],
        RANDOM));
  }

  @Test
  void oneCompleteFinalFrameUpToTheLimitIs() {
    assertThat(SelectorDecodes.isOneSmallFrame(frame(WebSocketWire.TEXT, true, true, 0))).isTrue();
    assertThat(SelectorDecodes.isOneSmallFrame(frame(WebSocketWire.TEXT, true, true, 125)))
        .isTrue();
    assertThat(SelectorDecodes.isOneSmallFrame(frame(WebSocketWire.TEXT, true, true, 126)))
        .isTrue(); // 16-bit length
    assertThat(SelectorDecodes.isOneSmallFrame(frame(WebSocketWire.PING, true, true, 4))).isTrue();
    assertThat(SelectorDecodes.isOneSmallFrame(frame(WebSocketWire.TEXT, true, false, 10)))
        .isTrue(); // unmasked: the draft refuses it, cheaply
    assertThat(SelectorDecodes.isOneSmallFrame(
        frame(WebSocketWire.TEXT, true, true, SelectorDecodes.MAX_FRAME_BYTES))).isTrue();
  }

  @Test
  void aPartOfAFrameMoreThanOneALargeOneOrAFragmentIsNot() {
    ByteBuffer whole = frame(WebSocketWire.TEXT, true, true, 300);
    ByteBuffer part = ByteBuffer.wrap(Arrays.copyOf(whole.array(), whole.limit() - 1));
    assertThat(SelectorDecodes.isOneSmallFrame(part)).isFalse();
    ByteBuffer header = ByteBuffer.wrap(Arrays.copyOf(whole.array(), 3));
    assertThat(SelectorDecodes.isOneSmallFrame(header)).isFalse(); // 16-bit length cut
    byte[] two = new byte[2 * whole.limit()];
    System.arraycopy(whole.array(), 0, two, 0, whole.limit());
    System.arraycopy(whole.array(), 0, two, whole.limit(), whole.limit());
    assertThat(SelectorDecodes.isOneSmallFrame(ByteBuffer.wrap(two))).isFalse();
    assertThat(SelectorDecodes.isOneSmallFrame(
        frame(WebSocketWire.TEXT, true, true, SelectorDecodes.MAX_FRAME_BYTES + 1))).isFalse();
    assertThat(SelectorDecodes.isOneSmallFrame(frame(WebSocketWire.TEXT, true, true, 70_000)))
        .isFalse(); // 64-bit length
    assertThat(SelectorDecodes.isOneSmallFrame(frame(WebSocketWire.TEXT, false, true, 10)))
        .isFalse();
    assertThat(SelectorDecodes.isOneSmallFrame(ByteBuffer.wrap(new byte[] {0}))).isFalse();
  }

  @Test
  void theFrameIsReadFromTheBuffersPositionWhichItLeavesAlone() {
    ByteBuffer whole = frame(WebSocketWire.TEXT, true, true, 20);
    ByteBuffer shifted = ByteBuffer.allocate(whole.limit() + 5);
    shifted.position(5);
    shifted.put(whole.array(), 0, whole.limit()).position(5);
    assertThat(SelectorDecodes.isOneSmallFrame(shifted)).isTrue();
    assertThat(shifted.position()).isEqualTo(5);
  }

  @Test
  void anHttpHeadWithNothingAfterItIsWholeAndOneWithBytesAfterItIsNot() {
    String head = "GET /websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n";
    assertThat(SelectorDecodes.isWholeHead(ByteBuffer.wrap(head.getBytes(US_ASCII)))).isTrue();
    assertThat(SelectorDecodes.isWholeHead(ByteBuffer.wrap((head + "x").getBytes(US_ASCII))))
        .isFalse();
    // Bytes after the head that end with a blank line of their own are still bytes after it.
    assertThat(SelectorDecodes.isWholeHead(
        ByteBuffer.wrap((head + "more\r\n\r\n").getBytes(US_ASCII)))).isFalse();
    assertThat(SelectorDecodes.isWholeHead(
        ByteBuffer.wrap(head.substring(0, head.length() - 2).getBytes(US_ASCII)))).isFalse();
  }
}
