package dev.ddpkit.ddp.protocol;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.fuzz.FrameGen;
import dev.ddpkit.ddp.fuzz.FuzzTries;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Data messages are read as a token stream, every other frame as a tree: the streamed reading
 * gives the same message, or the same problem, as reading the whole tree ({@link
 * DdpMessages#treeOnly}), strictly and tolerantly, from text and from bytes.
 */
@Timeout(value = 60, unit = SECONDS)
@ExtendWith(FuzzTries.class)
class DdpMessagesStreamingTest {
  private final DdpMessages streamed = new DdpMessages();
  private final DdpMessages tree = DdpMessages.treeOnly(new ObjectMapper());

  private static String q(String singleQuoted) {
    return singleQuoted.replace('\'', '"');
  }

  @Test
  void anyFrameReadsAsItsTree() {
    FuzzTries.forAll(0x57EA4L, 3000, 1, FrameGen::anyFrame, this::assertSameAsTree);
  }

  @Test
  void mutatedFramesReadAsTheirTrees() {
    FuzzTries.forAll(0x57EA5L, 3000, 1, FrameGen::mutatedFrame, this::assertSameAsTree);
  }

  @Test
  void dataMessagesOfEveryShapeReadAsTheirTrees() {
    String[] frames = {
      "{'msg':'added','collection':'c','id':'1','fields':{'a':1,'b':[true,false,null],'c':{'d':'e'}}}",
      "{'id':'1','fields':{'n':2.5,'big':123456789012345678901234567890,'l':12345678901},"
          + "'collection':'c','msg':'changed','cleared':['x','y']}",
      "{'msg':'changed','collection':'c','id':'1','fields':null,'cleared':null}",
      "{'msg':'changed','collection':'c','id':'1'}",
      "{'msg':'removed','collection':'c','id':'1','fields':{'ignored':1},'extra':[1,{'a':[]}]}",
      "{'msg':'addedBefore','collection':'c','id':'1','fields':{},'before':null}",
      "{'msg':'addedBefore','collection':'c','id':'1','before':'0'}",
      "{'msg':'movedBefore','collection':'c','id':'1','before':'2'}",
      "{'msg':'movedBefore','collection':'c','id':'1'}",
      "{'msg':'added','collection':'c','id':'1','fields':{'a':1,'a':2}}",
      "{'msg':'added','msg':'added','collection':'c','id':'1'}",
      "{'msg':'added','collection':'c','id':'1','cleared':5}",
      "{'msg':'added','collection':'c','id':'1','before':7}",
      "{'msg':'changed','collection':'c','id':'1','cleared':['x',1]}",
      "{'msg':'changed','collection':'c','id':'1','fields':[]}",
      "{'msg':'changed','collection':7,'id':'1'}",
      "{'msg':'changed','id':'1'}",
      "{'msg':'changed','collection':'c','id':'1'} x",
      "{'msg':'changed','collection':'c','id':'1'}{'msg':'ping'}",
      "{'msg':'changed','collection':'c','id':'1','fields':{'s':'\\u00e9\\ud83d\\ude80\\n'}}",
      "{'msg':'changed','collection':'c','id':'1','fields':{'a':}}",
      "{'msg':'changed','collection':'c','id':'1','x':'\\q'}",
      "{'msg':'updated','id':'m1'}",
      "{'msg':'result','id':'m1','result':{'a':[1,2.0]}}",
      "[{'msg':'added','collection':'c','id':'1'}]",
      "'added'",
      "",
    };
    for (String f : frames) {
      assertSameAsTree(q(f));
    }
    assertSameAsTree(q("{'msg':'added','collection':'c','id':'1','fields':" + nested(150) + "}"));
    assertSameAsTree(q("{'msg':'added','collection':'c','id':'1','fields':{'a':"
        + "[".repeat(120) + "]".repeat(120) + "}}"));
  }

  @Test
  void plainDataMessagesAreStreamedAndTheRestAreNot() {
    String chat = q("{'msg':'changed','collection':'stream-room-messages','id':'id','fields':"
        + "{'eventName':'r1','args':[{'_id':'m1','rid':'r1','msg':'hi','ts':{'$date':1},"
        + "'u':{'_id':'u1','username':'ann'},'mentions':[],'_updatedAt':{'$date':1}}]}}");
    assertThat(streamed.streamed(chat)).isInstanceOf(DdpMessage.Changed.class)
        .isEqualTo(tree.read(chat));
    assertThat(streamed.streamed(q("{'msg':'added','collection':'c','id':'1'}")))
        .isEqualTo(new DdpMessage.Added("c", "1", JsonNodeFactory.instance.objectNode()));
    assertThat(streamed.streamed(q("{'msg':'removed','id':'1','collection':'c','x':{'y':[1]}}")))
        .isEqualTo(new DdpMessage.Removed("c", "1"));
    assertThat(tree.streamed(chat)).as("a tree-only parser never streams").isNull();
    for (String other : new String[] {
        "{'msg':'ping'}", "{'msg':'result','id':'1','result':1}", "{'server_id':'0'}",
        "{'msg':'added','collection':'c','id':'1','fields':{'a':1,'a':2}}",
        "{'msg':'added','collection':'c','id':'1'} x", "{'msg':'changed','id':'1'}"}) {
      assertThat(streamed.streamed(q(other))).as(other).isNull();
    }
    assertThat(new DdpMessages(new ObjectMapper()
        .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)).streamed(chat))
        .as("a mapper that refuses repeated names gets the tree").isNull();
  }

  @Test
  void fieldsAreTheTreesNodes() throws Exception {
    DdpMessage.Changed ch = (DdpMessage.Changed) streamed.parse(q(
        "{'msg':'changed','collection':'c','id':'1','fields':{'i':1,'l':12345678901,'d':2.5,"
            + "'args':[{'_id':'m','ts':{'$date':1900000000000}}]}}"));
    ObjectNode f = ch.fields();
    assertThat(f.get("i")).isEqualTo(IntNode.valueOf(1));
    assertThat(f.get("l")).isEqualTo(LongNode.valueOf(12345678901L));
    assertThat(f.get("d")).isEqualTo(DoubleNode.valueOf(2.5));
    JsonNode doc = f.get("args").get(0);
    assertThat(doc.get("ts").get("$date").longValue()).isEqualTo(1900000000000L);
    f.put("mine", true); // the listener's to change
    assertThat(f.get("mine").booleanValue()).isTrue();
  }

  @Test
  void aMapperThatRefusesRepeatedNamesStillRefusesThemInFields() {
    ObjectMapper strictKeys =
        new ObjectMapper().enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    DdpMessages parser = new DdpMessages(strictKeys);
    String frame = q("{'msg':'added','collection':'c','id':'1','fields':{'a':1,'a':2}}");
    assertThatThrownBy(() -> parser.parse(frame)).isInstanceOf(DdpProtocolException.class);
    assertThat(parser.read(frame)).isInstanceOf(DdpMessage.Invalid.class);
    ObjectNode f = ((DdpMessage.Added) new DdpMessages().read(frame)).fields();
    assertThat(f.get("a").intValue()).isEqualTo(2); // a default mapper: the last one wins
  }

  @Test
  void aMapperThatWidensIntegersWidensThemInFields() throws Exception {
    DdpMessages parser =
        new DdpMessages(new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS));
    DdpMessage.Added a = (DdpMessage.Added) parser.parse(
        q("{'msg':'added','collection':'c','id':'1','fields':{'a':1}}"));
    assertThat(a.fields().get("a")).isEqualTo(LongNode.valueOf(1));
  }

  private static String nested(int depth) {
    return "{'a':".repeat(depth) + "1" + "}".repeat(depth);
  }

  /** Strict and tolerant, text and bytes (inside a larger array): the tree's answer each time. */
  private void assertSameAsTree(String frame) {
    FuzzTries.count(1);
    assertThat(outcome(() -> streamed.parse(frame)))
        .as("parse %s", frame).isEqualTo(outcome(() -> tree.parse(frame)));
    assertThat(streamed.read(frame)).as("read %s", frame).isEqualTo(tree.read(frame));
    byte[] utf8 = frame.getBytes(StandardCharsets.UTF_8);
    if (!new String(utf8, StandardCharsets.UTF_8).equals(frame)) {
      return; // a lone surrogate: no transport delivers it as bytes
    }
    byte[] padded = new byte[utf8.length + 6];
    Arrays.fill(padded, (byte) '{');
    System.arraycopy(utf8, 0, padded, 3, utf8.length);
    assertThat(outcome(() -> streamed.parse(padded, 3, utf8.length)))
        .as("parse bytes %s", frame).isEqualTo(outcome(() -> tree.parse(padded, 3, utf8.length)));
    assertThat(streamed.read(padded, 3, utf8.length))
        .as("read bytes %s", frame).isEqualTo(tree.read(padded, 3, utf8.length));
  }

  private interface Parse {
    DdpMessage run() throws DdpProtocolException;
  }

  /** The message, or the problem's text: what a caller can see. */
  private static Object outcome(Parse p) {
    try {
      return p.run();
    } catch (DdpProtocolException e) {
      return "DdpProtocolException: " + e.getMessage();
    }
  }
}
