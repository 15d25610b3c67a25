package dev.ddpkit.ddp.fuzz;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.ddp.protocol.DdpMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Frame decoding on hostile input: {@link DdpMessages#parse} returns a message or throws a {@link
 * DdpProtocolException} whose text never quotes the frame; nothing else ever comes out of it. The
 * inputs come from a seeded {@link dev.ddpkit.ddp.gen.Gen} ({@link FrameGen}): a failure prints the
 * seed that replays it and the frame; {@code -Dfuzz.tries=N} runs about N frames per property.
 */
@ExtendWith(FuzzTries.class)
class DdpMessagesFuzzTest {
  /** A marker no generated frame contains by chance: it must never be echoed in an error. */
  private static final String SECRET = "SeCrEt-7f3a9c";

  private final DdpMessages parser = new DdpMessages();

  @Test
  void arbitraryTextIsAMessageOrAProtocolError() {
    FuzzTries.forAll(0x7E47F0L, 1500, 1, FrameGen::text, this::assertParsesOrFailsCleanly);
  }

  @Test
  void arbitraryJsonIsAMessageOrAProtocolError() {
    FuzzTries.forAll(0x150F0L, 1500, 1, g -> FrameGen.json(g, 4).toString(),
        this::assertParsesOrFailsCleanly);
  }

  @Test
  void mutatedFramesAreMessagesOrProtocolErrors() {
    FuzzTries.forAll(0x307A7EL, 3000, 1, FrameGen::mutatedFrame,
        this::assertParsesOrFailsCleanly);
  }

  @Test
  void mutatedFramesAsBytesReadAsTheirText() {
    FuzzTries.forAll(0xB17E5L, 1500, 1, FrameGen::mutatedFrame, this::assertBytesReadAsText);
  }

  @Test
  void arbitraryTextAsBytesReadsAsTheText() {
    FuzzTries.forAll(0xB17E6L, 1500, 1, FrameGen::text, this::assertBytesReadAsText);
  }

  /**
   * The frame's UTF-8 bytes, placed inside a larger array, read as the frame does: the same
   * message, or the same problem (the location in a JSON error aside: it counts bytes there).
   */
  private void assertBytesReadAsText(String frame) {
    FuzzTries.count(1);
    byte[] utf8 = frame.getBytes(StandardCharsets.UTF_8);
    if (!new String(utf8, StandardCharsets.UTF_8).equals(frame)) {
      return; // a lone surrogate: no UTF-8 encodes it, so no transport delivers it as bytes
    }
    byte[] padded = new byte[utf8.length + 7];
    Arrays.fill(padded, (byte) '}');
    System.arraycopy(utf8, 0, padded, 3, utf8.length);
    DdpMessage fromText = parser.read(frame);
    DdpMessage fromBytes = parser.read(padded, 3, utf8.length);
    if (fromText instanceof DdpMessage.Invalid t && fromBytes instanceof DdpMessage.Invalid b) {
      assertThat(withoutLocation(b.problem())).isEqualTo(withoutLocation(t.problem()));
    } else {
      assertThat(fromBytes).isEqualTo(fromText);
    }
  }

  private static String withoutLocation(String problem) {
    return problem.replaceAll(" at line \\d+, column \\d+", "");
  }

  @Test
  void validFramesParse() {
    FuzzTries.forAll(0x7A11DL, 1000, 1, g -> FrameGen.validFrame(g).toString(), frame -> {
      FuzzTries.count(1);
      assertThat(parser.parse(frame)).isNotNull();
    });
  }

  @Test
  @Timeout(value = 60, unit = SECONDS)
  void errorsNeverQuoteTheFrame() {
    String[] frames = {
      "{\"msg\":\"result\",\"id\":\"" + SECRET + "\"",
      "{\"msg\":\"result\",\"id\":[\"" + SECRET + "\"]}",
      "{\"msg\":\"login\",\"password\":\"" + SECRET + "\"} trailing",
      "{\"msg\":{\"" + SECRET + "\":1}}",
      "{\"msg\":\"added\",\"collection\":\"c\",\"id\":\"1\",\"fields\":\"" + SECRET + "\"}",
      "[\"" + SECRET + "\"]",
      "'" + SECRET + "'",
    };
    for (String f : frames) {
      DdpProtocolException e = parseFailure(f);
      assertThat(e.getMessage()).as("error for %s", f).doesNotContain(SECRET);
    }
  }

  @Test
  @Timeout(value = 60, unit = SECONDS)
  void extremeInputsFailCleanly() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    String deepObject = "{\"msg\":\"ping\",\"id\":" + "{\"a\":".repeat(50_000) + "1"
        + "}".repeat(50_000) + "}";
    String hugeNumber = "{\"msg\":\"result\",\"id\":\"1\",\"result\":" + "9".repeat(100_000) + "}";
    String longString = "{\"msg\":\"error\",\"reason\":\"" + "x".repeat(5_000_000) + "\"}";
    for (String f : new String[] {deep, deepObject, hugeNumber}) {
      assertThat(parseFailure(f).getMessage()).hasSizeLessThan(200);
    }
    assertParsesOrFailsCleanly(longString);
  }

  private void assertParsesOrFailsCleanly(String frame) {
    FuzzTries.count(1);
    DdpMessage m;
    try {
      m = parser.parse(frame);
    } catch (DdpProtocolException e) {
      assertThat(e.getMessage()).isNotBlank();
      if (frame.length() > 40) {
        assertThat(e.getMessage()).doesNotContain(frame);
      }
      return;
    }
    // Anything else (NPE, ClassCastException, StackOverflowError...) fails the property.
    assertThat(m).isNotNull();
    assertThat(m.toString()).isNotNull();
  }

  private DdpProtocolException parseFailure(String frame) {
    try {
      DdpMessage m = parser.parse(frame);
      throw new AssertionError("parsed: " + m.getClass().getSimpleName());
    } catch (DdpProtocolException e) {
      return e;
    }
  }
}
