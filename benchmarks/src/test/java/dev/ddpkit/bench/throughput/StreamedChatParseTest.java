package dev.ddpkit.bench.throughput;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The token reader measured beside the tree parse reads what the tree holds, for every frame. */
class StreamedChatParseTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void readsTheSameValuesAsTheTreeForEveryFrameOfAMix() throws Exception {
    MessageMix mix = MessageMix.generate(2_000, 4, 0.02, 7);
    StreamedChatParse reader = new StreamedChatParse();
    for (String frame : mix.frames()) {
      byte[] utf8 = frame.getBytes(StandardCharsets.UTF_8);
      StreamedChatParse.Event e = reader.parse(utf8, 0, utf8.length);
      JsonNode tree = MAPPER.readTree(frame);
      JsonNode doc = tree.path("fields").path("args").get(0);
      assertThat(e).as(frame).isNotNull();
      assertThat(e.collection()).isEqualTo(tree.path("collection").asText());
      assertThat(e.eventName()).isEqualTo(tree.path("fields").path("eventName").asText());
      assertThat(e.id()).isEqualTo(doc.path("_id").asText());
      assertThat(e.rid()).isEqualTo(doc.path("rid").asText());
      assertThat(e.text()).isEqualTo(doc.path("msg").asText());
      assertThat(e.username()).isEqualTo(doc.path("u").path("username").asText());
      assertThat(e.ts()).isEqualTo(doc.path("ts").path("$date").asLong());
      assertThat(e.updatedAt()).isEqualTo(doc.path("_updatedAt").path("$date").asLong());
    }
  }

  @Test
  void aFrameThatIsNotARoomEventIsNull() throws Exception {
    StreamedChatParse reader = new StreamedChatParse();
    for (String frame : new String[] {"[]", "{\"msg\":\"ping\"}",
        "{\"msg\":\"changed\",\"collection\":\"c\",\"id\":\"i\",\"fields\":{\"args\":[]}}"}) {
      byte[] utf8 = frame.getBytes(StandardCharsets.UTF_8);
      assertThat(reader.parse(utf8, 0, utf8.length)).as(frame).isNull();
    }
  }
}
