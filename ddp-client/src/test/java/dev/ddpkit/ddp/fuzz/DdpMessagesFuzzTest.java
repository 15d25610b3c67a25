package dev.ddpkit.ddp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.ddp.protocol.DdpMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Frame decoding on hostile input: {@link DdpMessages#parse} returns a message or throws a {@link
 * DdpProtocolException} whose text never quotes the frame; nothing else ever comes out of it.
 */
@AddLifecycleHook(FuzzTries.class)
class DdpMessagesFuzzTest {
  /** A marker no generated frame contains by chance: it must never be echoed in an error. */
  private static final String SECRET = "SeCrEt-7f3a9c";

  private final DdpMessages parser = new DdpMessages();

  @Property(tries = 1500)
  void arbitraryTextIsAMessageOrAProtocolError(@ForAll("text") String frame) {
    assertParsesOrFailsCleanly(frame);
  }

  @Property(tries = 1500)
  void arbitraryJsonIsAMessageOrAProtocolError(@ForAll("json") String frame) {
    assertParsesOrFailsCleanly(frame);
  }

  @Property(tries = 3000)
  void mutatedFramesAreMessagesOrProtocolErrors(@ForAll("mutated") String frame) {
    assertParsesOrFailsCleanly(frame);
  }

  @Property(tries = 1000)
  void validFramesParse(@ForAll("valid") String frame) throws DdpProtocolException {
    FuzzTries.count(1);
    assertThat(parser.parse(frame)).isNotNull();
  }

  @Example
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

  @Example
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

  @Provide
  Arbitrary<String> text() {
    return FrameArbitraries.text();
  }

  @Provide
  Arbitrary<String> json() {
    return FrameArbitraries.json(4).map(Object::toString);
  }

  @Provide
  Arbitrary<String> mutated() {
    return FrameArbitraries.mutatedFrame();
  }

  @Provide
  Arbitrary<String> valid() {
    return FrameArbitraries.validFrame().map(Object::toString);
  }
}
