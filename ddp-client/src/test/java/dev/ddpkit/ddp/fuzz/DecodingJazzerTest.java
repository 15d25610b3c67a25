package dev.ddpkit.ddp.fuzz;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.ejson.Ejson;
import dev.ddpkit.ddp.ejson.EjsonException;
import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.ddp.protocol.DdpMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing (Jazzer) of the client's decoders: {@link DdpMessages#parse} and {@link
 * Ejson#decode}. Any input is a value or the documented exception ({@link DdpProtocolException},
 * {@link EjsonException}); anything else (a NullPointerException, a ClassCastException, a
 * StackOverflowError on deep nesting) is a finding.
 *
 * <p>Without {@code JAZZER_FUZZ} (the CI build) each method runs once per committed input under
 * {@code src/test/resources/dev/ddpkit/ddp/fuzz/DecodingJazzerTestInputs/<method>/}; {@code
 * scripts/fuzz-jazzer.sh} fuzzes one of them. An input is the frame's text, in UTF-8.
 */
class DecodingJazzerTest {
  private static final DdpMessages PARSER = new DdpMessages();
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * Any text is a DDP message or a protocol error that does not quote the frame; the tolerant
   * {@link DdpMessages#read} never throws, agrees with {@link DdpMessages#parse} where it parses,
   * and otherwise reads a deviation or drops the frame for the same reason.
   */
  @FuzzTest(maxDuration = "10m")
  // Per input; the first also pays the JVM and Jazzer warm-up (8 s seen under load).
  @Timeout(value = 30, unit = SECONDS)
  void framesParseOrFailWithAProtocolError(byte[] input) {
    String frame = new String(input, StandardCharsets.UTF_8);
    DdpMessage tolerant = PARSER.read(frame); // never throws
    assertThat(tolerant).isNotNull();
    DdpMessage m;
    try {
      m = PARSER.parse(frame);
    } catch (DdpProtocolException e) {
      assertThat(e.getMessage()).as("protocol error text").isNotBlank();
      if (frame.length() > 40) {
        assertThat(e.getMessage()).as("protocol error text").doesNotContain(frame);
      }
      // What the strict parser refuses, the tolerant reader drops or reads as a deviation.
      assertThat(tolerant).isInstanceOfAny(DdpMessage.Invalid.class, DdpMessage.Deviation.class);
      if (tolerant instanceof DdpMessage.Invalid bad) {
        assertThat(bad.problem()).isEqualTo(e.getMessage());
      }
      return;
    }
    assertThat(m).isNotNull();
    assertThat(m.toString()).isNotNull();
    assertThat(tolerant).as("what parses strictly reads the same tolerantly").isEqualTo(m);
  }

  /**
   * Any JSON decodes as EJSON or fails with an {@link EjsonException}; what decodes, encodes
   * again, and the encoded form is stable: decoding and encoding it once more gives the same JSON.
   */
  @FuzzTest(maxDuration = "10m")
  // Per input; the first also pays the JVM and Jazzer warm-up (8 s seen under load).
  @Timeout(value = 30, unit = SECONDS)
  void ejsonDecodesOrFailsWithAnEjsonException(byte[] input) {
    JsonNode json;
    try {
      json = MAPPER.readTree(new String(input, StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      return; // not JSON: the frame decoder's business, above
    }
    Ejson ejson = Ejson.standard();
    Object value;
    try {
      value = ejson.decode(json);
    } catch (EjsonException e) {
      assertThat(e.getMessage()).as("EJSON error text").isNotBlank();
      return;
    }
    JsonNode encoded = ejson.encode(value);
    JsonNode again = ejson.encode(ejson.decode(encoded));
    assertThat(again).as("encode(decode(x)) of %s", encoded).isEqualTo(encoded);
  }
}
