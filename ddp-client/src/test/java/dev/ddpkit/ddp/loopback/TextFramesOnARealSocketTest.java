package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.PATIENCE;
import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.java_websocket.framing.ContinuousFrame;
import org.java_websocket.framing.DataFrame;
import org.java_websocket.framing.TextFrame;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Text frames on a real socket, now that a whole frame is handed to the parser as the UTF-8 bytes
 * the library checked: text of every width arrives as it was sent, small or over the 16 KiB read
 * array; a message in fragments (which the library assembles and decodes) arrives too, and so does
 * the next whole frame; a text frame that is not UTF-8 still closes the connection (1007), and the
 * client redials and works.
 */
@Timeout(value = 30, unit = SECONDS)
class TextFramesOnARealSocketTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WIDE = "héllo wörld ✓ 日本語 😀 \u0000\u007f\u0080\u07ff\u0800\uffff";

  @Test
  void textOfEveryWidthArrivesAsSent() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Loopback.Client c = lb.client(server.uri()).connected();
      List<String> texts = new CopyOnWriteArrayList<>();
      c.ddp.addStreamListener("events", (coll, id, f) -> texts.add(f.path("text").asText()));
      List<String> sent = List.of("plain", WIDE, WIDE.repeat(2_000), "x".repeat(40_000) + WIDE);

      for (int i = 0; i < sent.size(); i++) {
        server.send(event("e" + i, sent.get(i)));
      }

      eventually().until(() -> texts.size() == sent.size());
      assertThat(texts).containsExactlyElementsOf(sent);
      assertThat(c.ddp.stats().protocolErrors()).isZero();
    }
  }

  @Test
  void aMessageInFragmentsArrivesAndSoDoesTheNextWholeFrame() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Loopback.Client c = lb.client(server.uri()).connected();
      List<String> texts = new CopyOnWriteArrayList<>();
      c.ddp.addStreamListener("events", (coll, id, f) -> texts.add(f.path("text").asText()));
      byte[] whole = event("e1", WIDE).getBytes(StandardCharsets.UTF_8);
      int cut1 = whole.length / 3;
      int cut2 = 2 * whole.length / 3 + 1; // inside a multi-byte character, very likely

      server.sendFrames(
          frame(new TextFrame(), whole, 0, cut1, false),
          frame(new ContinuousFrame(), whole, cut1, cut2, false),
          frame(new ContinuousFrame(), whole, cut2, whole.length, true));
      server.send(event("e2", "after the fragments"));

      eventually().until(() -> texts.size() == 2);
      assertThat(texts).containsExactly(WIDE, "after the fragments");
      assertThat(c.ddp.stats().reconnects()).isZero();
    }
  }

  @Test
  void aTextFrameThatIsNotUtf8ClosesTheConnectionAndTheClientWorksAfterwards() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.onMethodReturn("echo", params -> params.get(0));
      Loopback.Client c = lb.client(server.uri()).connected();
      List<String> texts = new CopyOnWriteArrayList<>();
      c.ddp.addStreamListener("events", (coll, id, f) -> texts.add(f.path("text").asText()));
      byte[] bad = event("e1", "ok").replace("ok", "o\u0001").getBytes(StandardCharsets.UTF_8);
      bad[bad.length - 5] = (byte) 0xC3; // a lead byte followed by an ASCII byte: not UTF-8

      server.sendFrames(frame(new TextFrame(), bad, 0, bad.length, true));

      eventually().until(() -> c.ddp.stats().reconnects() == 1 && c.ddp.status().connected());
      assertThat(texts).isEmpty();
      assertThat(c.ddp.call("echo", "after").get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(TextNode.valueOf("after"));
    }
  }

  private static String event(String id, String text) throws Exception {
    ObjectNode m = JSON.createObjectNode().put("msg", "changed").put("collection", "events")
        .put("id", id);
    m.putObject("fields").put("text", text);
    return JSON.writeValueAsString(m);
  }

  private static DataFrame frame(DataFrame f, byte[] bytes, int from, int to, boolean fin) {
    f.setPayload(ByteBuffer.wrap(bytes, from, to - from).slice());
    f.setFin(fin);
    return f;
  }
}
