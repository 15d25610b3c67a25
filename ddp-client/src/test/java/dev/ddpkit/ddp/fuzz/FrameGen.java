package dev.ddpkit.ddp.fuzz;

import static dev.ddpkit.ddp.gen.Gen.weight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.gen.Gen;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Generators of server frames for the fuzz tests, on the seeded {@link Gen}: valid DDP frames of
 * every type, the same frames mutated (a field removed, a field of the wrong type, huge numbers,
 * deep nesting, long and non-ASCII strings, duplicate keys, truncation), arbitrary JSON and
 * arbitrary text.
 *
 * <p>Ids in the generated frames may be the placeholders {@link #MID}, {@link #SUB} and {@link
 * #DOC}: a test that keeps a client replaces them with the id of a call it made, a subscription it
 * holds or a document the client stores, so that frames hit known as well as unknown ids.
 */
public final class FrameGen {
  /** Stands for the id of a method call the client made. */
  static final String MID = "$MID";
  /** Stands for the id of a subscription the client holds. */
  static final String SUB = "$SUB";
  /** Stands for the id of a document the client may store. */
  static final String DOC = "$DOC";
  /** The collection a test stores documents in. */
  static final String DOCS = "docs";
  /** The collection a test treats as a stream. */
  static final String STREAM = "stream";

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final List<String> TYPES =
      List.of("connected", "failed", "ping", "pong", "nosub", "ready", "added", "changed",
          "removed", "addedBefore", "movedBefore", "result", "updated", "error");
  private static final List<String> FIELDS =
      List.of("msg", "id", "collection", "fields", "result", "error", "subs", "methods",
          "session", "version", "cleared", "before");
  private static final List<String> ODD_TEXT =
      List.of("", " ", "null", "{}", "[]", "\"msg\"", "{\"msg\"}", "\uFEFF{}",
          "{\"msg\":\"ping\"}{\"msg\":\"ping\"}", "{\"msg\":\"ping\",}", "{'msg':'ping'}",
          "{\"msg\":\"ping\" /* c */}", "{\"msg\":\"pi\\ud800ng\"}", "NaN", "-");
  private static final List<String> FIXED_IDS =
      List.of(MID, SUB, DOC, "unknown", "", "1", "0", "-1", "\u00e9\u4e2d\ud83d\ude00");
  private static final List<Character> PUNCTUATION =
      List.of('{', '}', '[', ']', '"', ',', ':', '\\', '0', ' ', '\u0000');
  private static final List<String> TAILS =
      List.of(" x", "}", "]", ",{}", " {\"msg\":\"ping\"}", "\u0000");

  private FrameGen() {}

  /** Any frame: valid, mutated, plain JSON or text, weighted towards the interesting ones. */
  public static String anyFrame(Gen g) {
    return g.frequency(
        weight(4, h -> validFrame(h).toString()),
        weight(5, FrameGen::mutatedFrame),
        weight(1, h -> json(h, 3).toString()),
        weight(1, FrameGen::text));
  }

  /** A well-formed DDP frame of a random type with random (sometimes unknown) ids. */
  static ObjectNode validFrame(Gen g) {
    switch (g.nextInt(15)) {
      case 0:
        return frame("connected").put("session", ids(g));
      case 1:
        return frame("failed").put("version", g.pick(List.of("1", "pre2", "pre1", "2", "")));
      case 2: {
        ObjectNode f = frame(g.pick(List.of("ping", "pong")));
        String id = g.orNull(0.5, FrameGen::ids);
        return id == null ? f : f.put("id", id);
      }
      case 3: {
        ObjectNode f = frame("nosub").put("id", subIds(g));
        ObjectNode e = g.orNull(0.5, FrameGen::methodError);
        return e == null ? f : f.set("error", e);
      }
      case 4:
        return withList(frame("ready"), "subs", g.listOf(3, FrameGen::subIds));
      case 5:
        return data("added", collections(g), docIds(g)).set("fields", jsonObject(g, 2));
      case 6: {
        ObjectNode f = data("changed", collections(g), docIds(g));
        ObjectNode fields = g.orNull(0.2, h -> jsonObject(h, 2));
        List<String> cleared = g.orNull(0.5, h -> h.listOf(3, k -> k.unicode(6)));
        if (fields != null) {
          f.set("fields", fields);
        }
        return cleared == null ? f : withList(f, "cleared", cleared);
      }
      case 7:
        return data("removed", collections(g), docIds(g));
      case 8: {
        ObjectNode f = data("addedBefore", collections(g), docIds(g)).set("fields", jsonObject(g, 2));
        String before = g.orNull(0.5, FrameGen::docIds);
        return f.set("before", before == null ? F.nullNode() : F.textNode(before));
      }
      case 9: {
        ObjectNode f = data("movedBefore", collections(g), docIds(g));
        String before = g.orNull(0.5, FrameGen::docIds);
        return f.set("before", before == null ? F.nullNode() : F.textNode(before));
      }
      case 10: {
        ObjectNode f = frame("result").put("id", methodIds(g));
        JsonNode r = g.orNull(0.3, h -> json(h, 2));
        ObjectNode e = g.orNull(0.7, FrameGen::methodError);
        if (r != null) {
          f.set("result", r);
        }
        return e == null ? f : f.set("error", e);
      }
      case 11:
        return withList(frame("updated"), "methods", g.listOf(3, FrameGen::methodIds));
      case 12:
        return frame("error").put("reason", g.unicode(20));
      case 13:
        return frame(g.unicode(10));
      default:
        return F.objectNode().put("server_id", ids(g));
    }
  }

  /** A valid frame, mutated once or a few times, as text. */
  public static String mutatedFrame(Gen g) {
    return g.frequency(
        weight(6, h -> {
          ObjectNode f = validFrame(h);
          int n = h.between(1, 3);
          for (int i = 0; i < n; i++) {
            treeMutation(h, f);
          }
          return f.toString();
        }),
        weight(3, h -> textMutation(h, validFrame(h).toString())),
        weight(1, h -> duplicateKey(validFrame(h), h.between(0, 3))));
  }

  /** Arbitrary text: random unicode, JSON-ish punctuation, or odd fixed strings. */
  public static String text(Gen g) {
    return g.oneOf(
        h -> h.unicode(40),
        h -> h.string("{}[]\":,0123456789.eE-+ntrufalse\\", 60),
        h -> h.pick(ODD_TEXT));
  }

  /** Arbitrary JSON values, nested up to {@code depth}. */
  public static JsonNode json(Gen g, int depth) {
    if (depth <= 0) {
      return leaf(g);
    }
    return g.frequency(
        weight(3, FrameGen::leaf),
        weight(1, h -> array(h.listOf(4, k -> json(k, depth - 1)))),
        weight(1, h -> jsonObject(h, depth - 1)));
  }

  /** Arbitrary JSON objects, nested up to {@code depth}. */
  static ObjectNode jsonObject(Gen g, int depth) {
    int valueDepth = depth <= 0 ? 0 : depth - 1;
    ObjectNode o = F.objectNode();
    int n = g.nextInt(5);
    for (int i = 0; i < n; i++) {
      o.set(g.unicode(8), json(g, valueDepth));
    }
    return o;
  }

  private static JsonNode leaf(Gen g) {
    return g.oneOf(
        h -> F.textNode(h.unicode(12)),
        h -> F.numberNode(h.anyInt()),
        h -> F.numberNode(h.anyLong()),
        h -> F.numberNode(h.anyFiniteDouble()),
        h -> F.booleanNode(h.chance(0.5)),
        h -> F.nullNode(),
        FrameGen::ejson);
  }

  /** EJSON-looking values, well or badly formed. */
  private static JsonNode ejson(Gen g) {
    return switch (g.nextInt(6)) {
      case 0 -> F.objectNode().put("$date", g.anyLong());
      case 1 -> F.objectNode().put("$date", g.unicode(8));
      case 2 -> F.objectNode().put("$binary", g.unicode(8));
      case 3 -> F.objectNode().put("$InfNaN", g.pick(List.of(0, 1, 7)));
      case 4 -> F.objectNode().put("$type", "t").put("$value", 1);
      default -> F.objectNode().set("$escape", F.objectNode().put("$date", 1));
    };
  }

  // ---- mutations ----

  /** Changes a parsed frame once. */
  private static void treeMutation(Gen g, ObjectNode f) {
    switch (g.nextInt(5)) {
      case 0 -> removeField(f, g.between(0, 1000));
      case 1 -> replaceField(f, g.between(0, 1000), oddValue(g));
      case 2 -> f.set(g.pick(FIELDS), oddValue(g));
      case 3 -> f.put("msg", g.pick(TYPES));
      default -> {
        JsonNode v = oddValue(g);
        JsonNode e = f.get("error");
        if (e instanceof ObjectNode eo) {
          eo.set("error", v);
        } else {
          f.putObject("error").set("reason", v);
        }
      }
    }
  }

  /** Values a well-formed frame does not have where they land (fresh nodes: they get mutated). */
  private static JsonNode oddValue(Gen g) {
    return switch (g.nextInt(6)) {
      case 0 -> switch (g.nextInt(16)) {
        case 0 -> F.nullNode();
        case 1 -> F.booleanNode(true);
        case 2 -> F.numberNode(0);
        case 3 -> F.numberNode(-1);
        case 4 -> F.numberNode(Long.MAX_VALUE);
        case 5 -> F.numberNode(Double.MAX_VALUE);
        case 6 -> F.numberNode(1e-300);
        case 7 -> F.numberNode(new BigInteger("9".repeat(300)));
        case 8 -> F.numberNode(new BigDecimal("1e999999"));
        case 9 -> F.arrayNode();
        case 10 -> F.objectNode();
        case 11 -> F.textNode("");
        case 12 -> F.textNode("\u0000\u001f\"\\");
        case 13 -> F.textNode("\ud83d\ude00\u202e\uFFFF");
        case 14 -> F.textNode("\ud800");
        default -> F.arrayNode().add(1).add("x").addNull();
      };
      case 1 -> F.textNode("x".repeat(g.between(1, 30_000)));
      case 2 -> F.textNode(g.unicode(1, 200));
      case 3 -> nestedArrays(g.between(1, 400));
      case 4 -> nestedObjects(g.between(1, 400));
      default -> json(g, 2);
    };
  }

  /** Changes a frame's text once. */
  private static String textMutation(Gen g, String s) {
    int p = g.between(0, 10_000);
    return switch (g.nextInt(9)) {
      case 0 -> s.substring(0, p % (s.length() + 1));
      case 1 -> insert(s, p % (s.length() + 1), anyChar(g));
      case 2 -> s.isEmpty() ? s : delete(s, p % s.length());
      case 3 -> {
        char c = anyChar(g);
        yield s.isEmpty() ? s : delete(insert(s, p % s.length(), c), p % s.length() + 1);
      }
      case 4 -> s + g.pick(TAILS);
      case 5 -> "[".repeat(g.between(400, 3000)) + s;
      case 6 -> {
        int n = g.between(400, 3000);
        yield "{\"msg\":\"ping\",\"id\":" + "[".repeat(n) + "]".repeat(n) + "}";
      }
      case 7 -> "{\"msg\":\"result\",\"id\":\"1\",\"result\":" + "9".repeat(g.between(900, 1200)) + "}";
      default -> "[" + s + "]";
    };
  }

  private static char anyChar(Gen g) {
    return g.chance(0.5) ? g.pick(PUNCTUATION) : (char) g.nextInt(0x10000);
  }

  /** Repeats a key of the frame (the JSON parser keeps the last one). */
  private static String duplicateKey(ObjectNode f, int which) {
    String body = f.toString();
    if (body.length() < 2) {
      return body;
    }
    String extra = switch (which) {
      case 0 -> "\"msg\":\"result\",";
      case 1 -> "\"id\":7,";
      case 2 -> "\"msg\":null,";
      default -> "\"fields\":\"x\",\"collection\":[],";
    };
    boolean empty = body.equals("{}");
    return which % 2 == 0 || empty
        ? "{" + extra + body.substring(1)
        : body.substring(0, body.length() - 1) + "," + extra.substring(0, extra.length() - 1) + "}";
  }

  private static void removeField(ObjectNode f, int i) {
    List<String> names = new ArrayList<>();
    f.fieldNames().forEachRemaining(names::add);
    if (!names.isEmpty()) {
      f.remove(names.get(i % names.size()));
    }
  }

  private static void replaceField(ObjectNode f, int i, JsonNode v) {
    List<String> names = new ArrayList<>();
    f.fieldNames().forEachRemaining(names::add);
    if (!names.isEmpty()) {
      f.set(names.get(i % names.size()), v);
    }
  }

  private static JsonNode nestedArrays(int depth) {
    ArrayNode root = F.arrayNode();
    ArrayNode a = root;
    for (int i = 1; i < depth; i++) {
      a = a.addArray();
    }
    return root;
  }

  private static JsonNode nestedObjects(int depth) {
    ObjectNode root = F.objectNode();
    ObjectNode o = root;
    for (int i = 1; i < depth; i++) {
      o = o.putObject("a");
    }
    return root;
  }

  private static String insert(String s, int at, char c) {
    return s.substring(0, at) + c + s.substring(at);
  }

  private static String delete(String s, int at) {
    return s.substring(0, at) + s.substring(Math.min(s.length(), at + 1));
  }

  // ---- pieces ----

  private static String ids(Gen g) {
    return g.chance(0.5) ? g.pick(FIXED_IDS) : g.unicode(20);
  }

  private static String methodIds(Gen g) {
    return g.frequency(weight(4, h -> MID), weight(1, FrameGen::ids));
  }

  private static String subIds(Gen g) {
    return g.frequency(weight(4, h -> SUB), weight(1, FrameGen::ids));
  }

  private static String docIds(Gen g) {
    return g.frequency(weight(4, h -> DOC), weight(1, FrameGen::ids));
  }

  private static String collections(Gen g) {
    return g.frequency(
        weight(4, h -> DOCS),
        weight(2, h -> STREAM),
        weight(1, h -> h.pick(List.of("other", "", "$date"))),
        weight(1, h -> h.unicode(10)));
  }

  private static ObjectNode methodError(Gen g) {
    JsonNode code = g.oneOf(
        h -> F.textNode(h.unicode(10)), h -> F.numberNode(h.anyInt()), h -> F.nullNode());
    String reason = g.orNull(0.3, h -> h.unicode(20));
    JsonNode details = g.orNull(0.5, h -> json(h, 1));
    ObjectNode e = F.objectNode().set("error", code);
    if (reason != null) {
      e.put("reason", reason);
    }
    return details == null ? e : e.set("details", details);
  }

  private static ObjectNode frame(String type) {
    return F.objectNode().put("msg", type);
  }

  private static ObjectNode data(String type, String collection, String id) {
    return frame(type).put("collection", collection).put("id", id);
  }

  private static ObjectNode withList(ObjectNode f, String field, List<String> items) {
    ArrayNode a = f.putArray(field);
    items.forEach(a::add);
    return f;
  }

  private static JsonNode array(List<JsonNode> items) {
    ArrayNode a = F.arrayNode();
    items.forEach(a::add);
    return a;
  }
}
