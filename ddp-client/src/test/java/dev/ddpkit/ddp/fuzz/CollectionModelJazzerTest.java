package dev.ddpkit.ddp.fuzz;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;

/**
 * Tolerant decoding cannot corrupt state: a client fed any mix of well-formed data frames and
 * malformed or unknown ones ends with the local collections of a small reference model fed only
 * the well-formed frames (a map per collection: {@code added} puts, {@code changed} sets and clears
 * fields of a known document, {@code removed} removes a known one). The connection stays up.
 *
 * <p>An input is read as a byte sequence, a step per few bytes: the first byte picks the kind
 * (added, changed, removed, a frame cut short, a frame with a field of the wrong type or an
 * unknown {@code msg}, a harmless other frame, text that is not JSON), the next ones the
 * collection, document, fields and values, from small sets so that documents meet again.
 *
 * <p>Without {@code JAZZER_FUZZ} (the CI build) it runs once per committed input under {@code
 * src/test/resources/dev/ddpkit/ddp/fuzz/CollectionModelJazzerTestInputs/<method>/}; {@code
 * scripts/fuzz-jazzer.sh} fuzzes it.
 */
class CollectionModelJazzerTest {
  private static final int MAX_STEPS = 200;
  private static final List<String> COLLECTIONS = List.of("docs", "other");
  private static final List<String> IDS = List.of("a", "b", "c", "d");
  private static final List<String> FIELDS = List.of("x", "y", "z");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The client's collections equal the model's after every input. */
  @FuzzTest(maxDuration = "10m")
  // Per input; the first also pays the JVM and Jazzer warm-up (8 s seen under load).
  @Timeout(value = 30, unit = SECONDS)
  void localCollectionsAgreeWithTheModel(byte[] input) {
    InMemoryTransportFactory net = new InMemoryTransportFactory();
    VirtualScheduler time = new VirtualScheduler();
    DdpClient client = DdpClient.builder()
        .url("ws://localhost:3000/websocket")
        .name("model-client")
        .scheduler(time)
        .transportFactory(net)
        .executor(Runnable::run)
        .build();
    try {
      client.connect();
      ServerEnd server = net.last().open();
      server.send("{'msg':'connected','session':'s0'}");
      Map<String, Map<String, ObjectNode>> model = new HashMap<>();
      Steps steps = new Steps(input);
      for (int i = 0; i < MAX_STEPS && steps.more(); i++) {
        String frame = steps.next(model);
        server.sendRaw(frame);
      }
      for (String c : COLLECTIONS) {
        assertThat(client.collection(c).snapshot()).as("collection %s", c)
            .isEqualTo(model.getOrDefault(c, Map.of()));
      }
      assertThat(net.connections()).as("the connection stayed up").hasSize(1);
      assertThat(server.closedByClient()).isFalse();
    } finally {
      client.close();
    }
  }

  /** Reads steps from the input and keeps the model up to date with the well-formed ones. */
  private static final class Steps {
    private final byte[] in;
    private int pos;

    Steps(byte[] in) {
      this.in = in;
    }

    boolean more() {
      return pos < in.length;
    }

    private int next(int bound) {
      return pos < in.length ? Math.floorMod(in[pos++], bound) : 0;
    }

    private String pick(List<String> from) {
      return from.get(next(from.size()));
    }

    /** The next frame to send; applies it to {@code model} if it is well-formed. */
    String next(Map<String, Map<String, ObjectNode>> model) {
      int kind = next(8);
      return switch (kind) {
        case 0, 1, 2 -> wellFormed(kind, model);
        case 3 -> {
          String whole = wellFormed(next(3), new HashMap<>()); // not applied: it is cut
          yield whole.substring(0, next(whole.length() - 1) + 1);
        }
        case 4 -> wrongType();
        case 5 -> List.of("{\"msg\":\"ping\",\"id\":\"p\"}", "{\"msg\":\"pong\"}",
            "{\"msg\":\"nosuch\",\"collection\":\"docs\",\"id\":\"a\"}",
            "{\"msg\":\"ready\",\"subs\":[\"nosuch\"]}").get(next(4));
        case 6 -> garbage();
        default -> "{\"msg\":\"added\",\"collection\":\"docs\"}"; // no id
      };
    }

    /** Up to 15 bytes of the input as text, after a ']' (so never JSON). */
    private String garbage() {
      int n = Math.min(in.length - pos, next(16));
      String text = "]" + new String(in, pos, n, StandardCharsets.ISO_8859_1);
      pos += n;
      return text;
    }

    private String wellFormed(int kind, Map<String, Map<String, ObjectNode>> model) {
      String c = pick(COLLECTIONS);
      String id = pick(IDS);
      ObjectNode f = JSON.createObjectNode();
      f.put("msg", kind == 0 ? "added" : kind == 1 ? "changed" : "removed");
      f.put("collection", c);
      f.put("id", id);
      Map<String, ObjectNode> docs = model.computeIfAbsent(c, k -> new HashMap<>());
      if (kind == 0) {
        ObjectNode fields = fields();
        f.set("fields", fields);
        docs.put(id, fields.deepCopy());
      } else if (kind == 1) {
        ObjectNode fields = fields();
        ArrayNode cleared = JSON.createArrayNode();
        for (int n = next(3); n > 0; n--) {
          String name = pick(FIELDS);
          if (!fields.has(name)) {
            cleared.add(name);
          }
        }
        if (!fields.isEmpty() || next(2) == 0) {
          f.set("fields", fields);
        }
        if (!cleared.isEmpty()) {
          f.set("cleared", cleared);
        }
        ObjectNode doc = docs.get(id);
        if (doc != null) {
          doc.setAll(fields);
          cleared.forEach(name -> doc.remove(name.asText()));
        }
      } else {
        docs.remove(id);
      }
      return f.toString();
    }

    private ObjectNode fields() {
      ObjectNode fields = JSON.createObjectNode();
      for (int n = next(3); n > 0; n--) {
        String name = pick(FIELDS);
        switch (next(3)) {
          case 0 -> fields.put(name, next(100));
          case 1 -> fields.put(name, "v" + next(10));
          default -> fields.putObject(name).put("n", next(10));
        }
      }
      return fields;
    }

    /** A data frame with one part of the wrong type, or an unknown kind of data message. */
    private String wrongType() {
      ObjectNode f = JSON.createObjectNode();
      f.put("msg", "added");
      f.put("collection", pick(COLLECTIONS));
      f.put("id", pick(IDS));
      f.set("fields", fields());
      switch (next(5)) {
        case 0 -> f.put("id", next(10));
        case 1 -> f.put("fields", "not an object");
        case 2 -> f.put("msg", "changed").set("cleared", JSON.createObjectNode());
        case 3 -> f.putArray("collection");
        default -> f.put("msg", "addedd");
      }
      return f.toString();
    }
  }
}
