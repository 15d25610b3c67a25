package dev.ddpkit.ddp.protocol;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.NullNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The typed message layer: every field's type checked, clear messages, no frame quoted. */
@Timeout(value = 30, unit = SECONDS)
class DdpMessagesTest {
  private final DdpMessages parser = new DdpMessages();

  private DdpMessage parse(String singleQuoted) throws DdpProtocolException {
    return parser.parse(singleQuoted.replace('\'', '"'));
  }

  @Test
  void parsesEveryServerMessage() throws Exception {
    assertThat(parse("{'msg':'connected','session':'s'}"))
        .isEqualTo(new DdpMessage.Connected("s"));
    assertThat(parse("{'msg':'failed','version':'pre1'}"))
        .isEqualTo(new DdpMessage.Failed("pre1"));
    assertThat(parse("{'msg':'ping'}")).isEqualTo(new DdpMessage.Ping(null));
    assertThat(parse("{'msg':'pong','id':'x'}")).isEqualTo(new DdpMessage.Pong("x"));
    assertThat(parse("{'msg':'ready','subs':['a','b']}"))
        .isEqualTo(new DdpMessage.Ready(List.of("a", "b")));
    assertThat(parse("{'msg':'updated','methods':['1']}"))
        .isEqualTo(new DdpMessage.Updated(List.of("1")));
    assertThat(parse("{'server_id':'0'}")).isEqualTo(new DdpMessage.ServerId("0"));
    assertThat(parse("{'msg':'whatever'}")).isEqualTo(new DdpMessage.Unknown("whatever"));
    assertThat(parse("{'msg':'error','reason':'bad','offendingMessage':{}}"))
        .isEqualTo(new DdpMessage.ServerError("bad"));
    DdpMessage.Changed ch =
        (DdpMessage.Changed) parse("{'msg':'changed','collection':'c','id':'1','cleared':['x']}");
    assertThat(ch.fields().isEmpty()).isTrue();
    assertThat(ch.cleared()).containsExactly("x");
    DdpMessage.Result r = (DdpMessage.Result) parse("{'msg':'result','id':'1'}");
    assertThat(r.result()).isEqualTo(NullNode.getInstance());
    assertThat(r.error()).isNull();
  }

  @Test
  void resultErrorCodeMayBeANumberOrAString() throws Exception {
    DdpMessage.Result num =
        (DdpMessage.Result) parse("{'msg':'result','id':'1','error':{'error':403}}");
    assertThat(num.error().error()).isEqualTo("403");
    assertThat(num.error().reason()).isEmpty();
    DdpMessage.NoSub str =
        (DdpMessage.NoSub)
            parse("{'msg':'nosub','id':'1','error':{'error':'not-allowed','reason':'No'}}");
    assertThat(str.error()).isEqualTo(new DdpError("not-allowed", "No", null));
  }

  @Test
  void wrongTypesAreClearProtocolErrors() {
    assertThatThrownBy(() -> parse("{'msg':'result','id':7}"))
        .isInstanceOf(DdpProtocolException.class)
        .hasMessage("field 'id' of 'result' must be a string, got number");
    assertThatThrownBy(() -> parse("{'msg':'ready','subs':'a'}"))
        .hasMessage("field 'subs' of 'ready' must be an array of strings, got string");
    assertThatThrownBy(() -> parse("{'msg':'added','collection':'c'}"))
        .hasMessage("'added' has no 'id' field");
    assertThatThrownBy(() -> parse("[]")).hasMessage("frame is not a JSON object but array");
    assertThatThrownBy(() -> parse("{}")).hasMessage("frame has no 'msg' field");
  }

  @Test
  void replyWithReadableIdsButAMalformedFieldTargetsOnlyThoseIds() throws Exception {
    assertThat(parse("{'msg':'result','id':'1','error':{'error':true}}"))
        .isEqualTo(new DdpMessage.Malformed("result", List.of("1"),
            "field 'error.error' of 'result' must be a string or an integer, got boolean"));
    assertThat(parse("{'msg':'result','id':'1','error':'boom'}"))
        .isEqualTo(new DdpMessage.Malformed("result", List.of("1"),
            "field 'error' of 'result' must be an object, got string"));
    assertThat(parse("{'msg':'nosub','id':'s','error':[]}"))
        .isEqualTo(new DdpMessage.Malformed("nosub", List.of("s"),
            "field 'error' of 'nosub' must be an object, got array"));
    assertThat(parse("{'msg':'ready','subs':['a',1,'b']}"))
        .isEqualTo(new DdpMessage.Malformed("ready", List.of("a", "b"),
            "field 'subs[]' of 'ready' must be a string, got number"));
    assertThat(parse("{'msg':'updated','methods':[null]}"))
        .isEqualTo(new DdpMessage.Malformed("updated", List.of(),
            "field 'methods[]' of 'updated' must be a string, got null"));
    assertThatThrownBy(() -> parse("{'msg':'nosub','error':'boom'}"))
        .hasMessage("'nosub' has no 'id' field");
  }

  @Test
  void invalidJsonErrorDoesNotQuoteTheFrame() {
    assertThatThrownBy(() -> parser.parse("{\"msg\":\"method\",\"params\":[\"hunter2\""))
        .isInstanceOf(DdpProtocolException.class)
        .hasMessageStartingWith("invalid JSON")
        .message()
        .doesNotContain("hunter2");
  }

  private DdpMessage read(String singleQuoted) {
    return parser.read(singleQuoted.replace('\'', '"'));
  }

  @Test
  void readingTolerantlyTakesTheWellKnownDeviationsForWhatTheyMean() {
    assertThat(read("{'msg':'updated','id':'7'}"))
        .isEqualTo(new DdpMessage.Deviation(new DdpMessage.Updated(List.of("7")),
            "'updated' with 'id' instead of 'methods'"));
    DdpMessage.Deviation d =
        (DdpMessage.Deviation) read("{'id':'3','error':{'error':500,'reason':'boom'}}");
    assertThat(d.problem()).isEqualTo("a method error without 'msg'");
    DdpMessage.Result r = (DdpMessage.Result) d.meaning();
    assertThat(r.id()).isEqualTo("3");
    assertThat(r.error().error()).isEqualTo("500");
    assertThat(r.error().reason()).isEqualTo("boom");
    DdpMessage.Result named =
        (DdpMessage.Result) ((DdpMessage.Deviation) read("{'id':'4','error':'nope'}")).meaning();
    assertThat(named.error().error()).isEqualTo("nope");
  }

  @Test
  void readingTolerantlyNeverThrowsAndAgreesWithTheStrictParserWhereItParses() throws Exception {
    assertThat(read("not json")).isInstanceOf(DdpMessage.Invalid.class);
    assertThat(read("{'no':'msg'}"))
        .isEqualTo(new DdpMessage.Invalid("frame has no 'msg' field"));
    assertThat(read("{'id':1,'error':{}}")).isInstanceOf(DdpMessage.Invalid.class);
    assertThat(read("{'msg':'updated'}")).isInstanceOf(DdpMessage.Invalid.class);
    assertThat(read("{'msg':'error','id':'1','error':{'error':1}}"))
        .isEqualTo(parse("{'msg':'error','id':'1','error':{'error':1}}"));
    assertThat(read("{'msg':'updated','methods':['1'],'id':'2'}"))
        .isEqualTo(new DdpMessage.Updated(List.of("1")));
  }
}
