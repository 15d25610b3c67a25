package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.java_websocket.exceptions.InvalidFrameException;
import org.junit.jupiter.api.Test;

/** The mask-bit walk on raw bytes, cut into reads at every place a socket could cut them. */
class MaskBitCheckTest {

  @Test
  void maskedFramesOfEveryLengthFormPassWhereverTheReadsAreCut() throws Exception {
    byte[] stream = concat(frame(true, 5), frame(true, 0), frame(true, 300), frame(true, 70_000),
        frame(true, 125));
    for (int cut = 1; cut < stream.length; cut += 7) {
      MaskBitCheck check = new MaskBitCheck();
      ByteBuffer first = ByteBuffer.wrap(stream, 0, cut);
      check.check(first);
      assertThat(first.position()).as("nothing moved").isZero();
      check.check(ByteBuffer.wrap(stream, cut, stream.length - cut));
    }
  }

  @Test
  void anUnmaskedFrameIsRefusedEvenWithItsHeaderCutInTwo() throws Exception {
    byte[] stream = concat(frame(true, 300), frame(false, 3));
    int secondHeader = frame(true, 300).length + 1; // its second byte holds the mask bit
    MaskBitCheck check = new MaskBitCheck();
    check.check(ByteBuffer.wrap(stream, 0, secondHeader));
    assertThatThrownBy(() -> check.check(
        ByteBuffer.wrap(stream, secondHeader, stream.length - secondHeader)))
        .isInstanceOf(InvalidFrameException.class).hasMessageContaining("unmasked");
  }

  @Test
  void anUnmaskedPayloadByteLookingLikeAHeaderIsPassedOver() throws Exception {
    byte[] f = frame(true, 10);
    // Masked bytes that, read as a header, would say "unmasked": the walk must skip them.
    for (int i = 6; i < f.length; i++) {
      f[i] = 0x01;
    }
    new MaskBitCheck().check(ByteBuffer.wrap(concat(f, frame(true, 1))));
  }

  @Test
  void aLengthTooLongToCountEndsTheWalkForTheLibraryToRefuse() throws Exception {
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    f.write(0x81);
    f.write(0x80 | 127);
    f.writeBytes(new byte[] {(byte) 0xFF, -1, -1, -1, -1, -1, -1, -1}); // negative as a long
    f.writeBytes(frame(false, 1)); // would be refused, were the walk still going
    new MaskBitCheck().check(ByteBuffer.wrap(f.toByteArray()));
  }

  /** A text frame of {@code length} payload bytes (their values do not matter here). */
  private static byte[] frame(boolean masked, int length) {
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    f.write(0x81);
    int mask = masked ? 0x80 : 0;
    if (length < 126) {
      f.write(mask | length);
    } else if (length < 65536) {
      f.write(mask | 126);
      f.write(length >>> 8);
      f.write(length);
    } else {
      f.write(mask | 127);
      for (int shift = 56; shift >= 0; shift -= 8) {
        f.write((int) ((long) length >>> shift));
      }
    }
    if (masked) {
      f.writeBytes(new byte[] {1, 2, 3, 4});
    }
    f.writeBytes(new byte[length]);
    return f.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
