package dev.ddpkit.ddp.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generators of server frames for the fuzz tests: valid DDP frames of every type, the same frames
 * mutated (a field removed, a field of the wrong type, huge numbers, deep nesting, long and
 * non-ASCII strings, duplicate keys, truncation), arbitrary JSON and arbitrary text.
 *
 * <p>Ids in the generated frames may be the placeholders {@link #MID}, {@link #SUB} and {@link
 * #DOC}: a test that keeps a client replaces them with the id of a call it made, a subscription it
 * holds or a document the client stores, so that frames hit known as well as unknown ids.
 */
final class FrameArbitraries {
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

  private FrameArbitraries() {}

  /** Any frame: valid, mutated, plain JSON or text, weighted towards the interesting ones. */
  static Arbitrary<String> anyFrame() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, validFrame().map(JsonNode::toString)),
        Tuple.of(5, mutatedFrame()),
        Tuple.of(1, json(3).map(JsonNode::toString)),
        Tuple.of(1, text()));
  }

  /** A well-formed DDP frame of a random type with random (sometimes unknown) ids. */
  static Arbitrary<ObjectNode> validFrame() {
    return Arbitraries.oneOf(List.of(
        ids().map(s -> frame("connected").put("session", s)),
        Arbitraries.of("1", "pre2", "pre1", "2", "").map(v -> frame("failed").put("version", v)),
        // combine, not flatMap: jqwik memoizes the generator of every arbitrary a flatMap makes,
        // which ran a million-try run out of heap.
        Combinators.combine(Arbitraries.of("ping", "pong"), ids().injectNull(0.5))
            .as((t, id) -> id == null ? frame(t) : frame(t).put("id", id)),
        Combinators.combine(subIds(), methodError().injectNull(0.5)).as((id, e) -> {
          ObjectNode f = frame("nosub").put("id", id);
          return e == null ? f : f.set("error", e);
        }),
        subIds().list().ofMaxSize(3).map(ids -> withList(frame("ready"), "subs", ids)),
        Combinators.combine(collections(), docIds(), jsonObject(2)).as(
            (c, id, fields) -> data("added", c, id).set("fields", fields)),
        Combinators.combine(collections(), docIds(), jsonObject(2).injectNull(0.2),
            Arbitraries.strings().ofMaxLength(6).list().ofMaxSize(3).injectNull(0.5)).as(
                (c, id, fields, cleared) -> {
                  ObjectNode f = data("changed", c, id);
                  if (fields != null) {
                    f.set("fields", fields);
                  }
                  return cleared == null ? f : withList(f, "cleared", cleared);
                }),
        Combinators.combine(collections(), docIds()).as((c, id) -> data("removed", c, id)),
        Combinators.combine(collections(), docIds(), jsonObject(2), docIds().injectNull(0.5)).as(
            (c, id, fields, before) -> {
              ObjectNode f = data("addedBefore", c, id).set("fields", fields);
              return f.set("before", before == null ? F.nullNode() : F.textNode(before));
            }),
        Combinators.combine(collections(), docIds(), docIds().injectNull(0.5)).as(
            (c, id, before) -> data("movedBefore", c, id)
                .set("before", before == null ? F.nullNode() : F.textNode(before))),
        Combinators.combine(methodIds(), json(2).injectNull(0.3), methodError().injectNull(0.7))
            .as((id, r, e) -> {
              ObjectNode f = frame("result").put("id", id);
              if (r != null) {
                f.set("result", r);
              }
              return e == null ? f : f.set("error", e);
            }),
        methodIds().list().ofMaxSize(3).map(ids -> withList(frame("updated"), "methods", ids)),
        Arbitraries.strings().ofMaxLength(20).map(r -> frame("error").put("reason", r)),
        Arbitraries.strings().ofMaxLength(10).map(FrameArbitraries::frame),
        ids().map(s -> F.objectNode().put("server_id", s))));
  }

  /** A valid frame, mutated once or a few times, as text. */
  static Arbitrary<String> mutatedFrame() {
    Arbitrary<ObjectNode> treeMutated =
        Combinators.combine(validFrame(), treeMutation().list().ofMinSize(1).ofMaxSize(3))
            .as((f, ms) -> {
              ObjectNode copy = f.deepCopy();
              ms.forEach(m -> m.apply(copy));
              return copy;
            });
    return Arbitraries.frequencyOf(
        Tuple.of(6, treeMutated.map(JsonNode::toString)),
        Tuple.of(3, Combinators.combine(validFrame(), textMutation()).as(
            (f, m) -> m.apply(f.toString()))),
        Tuple.of(1, Combinators.combine(validFrame(), Arbitraries.integers().between(0, 3))
            .as(FrameArbitraries::duplicateKey)));
  }

  /** Arbitrary text: random unicode, JSON-ish punctuation, or nothing at all. */
  static Arbitrary<String> text() {
    return Arbitraries.oneOf(List.of(
        Arbitraries.strings().ofMaxLength(40),
        Arbitraries.strings().withChars("{}[]\":,0123456789.eE-+ntrufalse\\").ofMaxLength(60),
        Arbitraries.of("", " ", "null", "{}", "[]", "\"msg\"", "{\"msg\"}", "\uFEFF{}",
            "{\"msg\":\"ping\"}{\"msg\":\"ping\"}", "{\"msg\":\"ping\",}", "{'msg':'ping'}",
            "{\"msg\":\"ping\" /* c */}", "{\"msg\":\"pi\\ud800ng\"}", "NaN", "-")));
  }

  /** Arbitrary JSON values, nested up to {@code depth}. */
  static Arbitrary<JsonNode> json(int depth) {
    Arbitrary<JsonNode> leaf = Arbitraries.oneOf(List.of(
        Arbitraries.strings().ofMaxLength(12).map(F::textNode),
        Arbitraries.integers().map(F::numberNode),
        Arbitraries.longs().map(F::numberNode),
        Arbitraries.doubles().map(F::numberNode),
        Arbitraries.of(true, false).map(F::booleanNode),
        Arbitraries.just(F.nullNode()),
        ejson()));
    if (depth <= 0) {
      return leaf;
    }
    return Arbitraries.frequencyOf(
        Tuple.of(3, leaf),
        Tuple.of(1, json(depth - 1).list().ofMaxSize(4).map(FrameArbitraries::array)),
        Tuple.of(1, jsonObject(depth - 1).map(o -> (JsonNode) o)));
  }

  /** Arbitrary JSON objects, nested up to {@code depth}. */
  static Arbitrary<ObjectNode> jsonObject(int depth) {
    Arbitrary<JsonNode> values = depth <= 0 ? json(0) : json(depth - 1);
    return Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), values).ofMaxSize(4).map(m -> {
      ObjectNode o = F.objectNode();
      m.forEach(o::set);
      return o;
    });
  }

  /** EJSON-looking values, well or badly formed. */
  private static Arbitrary<JsonNode> ejson() {
    return Arbitraries.oneOf(List.of(
        Arbitraries.longs().map(l -> (JsonNode) F.objectNode().put("$date", l)),
        Arbitraries.strings().ofMaxLength(8).map(s -> (JsonNode) F.objectNode().put("$date", s)),
        Arbitraries.strings().ofMaxLength(8).map(s -> (JsonNode) F.objectNode().put("$binary", s)),
        Arbitraries.of("NaN", "Infinity", "x").map(s -> (JsonNode) F.objectNode()
            .put("$InfNaN", s.equals("x") ? 7 : s.equals("NaN") ? 0 : 1)),
        Arbitraries.just((JsonNode) F.objectNode().put("$type", "t").put("$value", 1)),
        Arbitraries.just(F.objectNode().set("$escape", F.objectNode().put("$date", 1)))));
  }

  // ---- mutations ----

  /** A change to a parsed frame. */
  @FunctionalInterface
  interface TreeMutation {
    void apply(ObjectNode frame);
  }

  /** A change to a frame's text. */
  @FunctionalInterface
  interface TextMutation {
    String apply(String frame);
  }

  private static Arbitrary<TreeMutation> treeMutation() {
    Arbitrary<Integer> pick = Arbitraries.integers().between(0, 1000);
    return Arbitraries.oneOf(List.of(
        pick.map(i -> (TreeMutation) f -> removeField(f, i)),
        Combinators.combine(pick, oddValue()).as((i, v) -> (TreeMutation) f -> replaceField(f, i, v)),
        Combinators.combine(Arbitraries.of("msg", "id", "collection", "fields", "result",
            "error", "subs", "methods", "session", "version", "cleared", "before"), oddValue())
            .as((k, v) -> (TreeMutation) f -> f.set(k, v)),
        Arbitraries.of(TYPES).map(t -> (TreeMutation) f -> f.put("msg", t)),
        oddValue().map(v -> (TreeMutation) f -> {
          JsonNode e = f.get("error");
          if (e instanceof ObjectNode eo) {
            eo.set("error", v);
          } else {
            f.putObject("error").set("reason", v);
          }
        })));
  }

  /** Values a well-formed frame does not have where they land. */
  private static Arbitrary<JsonNode> oddValue() {
    return Arbitraries.oneOf(List.of(
        Arbitraries.of(
            F.nullNode(), F.booleanNode(true), F.numberNode(0), F.numberNode(-1),
            F.numberNode(Long.MAX_VALUE), F.numberNode(Double.MAX_VALUE), F.numberNode(1e-300),
            F.numberNode(new BigInteger("9".repeat(300))),
            F.numberNode(new BigDecimal("1e999999")), F.arrayNode(), F.objectNode(),
            F.textNode(""), F.textNode("\u0000\u001f\"\\"), F.textNode("\ud83d\ude00\u202e\uFFFF"),
            F.textNode("\ud800"), F.arrayNode().add(1).add("x").addNull()),
        Arbitraries.integers().between(1, 30_000).map(n -> F.textNode("x".repeat(n))),
        Arbitraries.strings().ofMinLength(1).ofMaxLength(200).map(F::textNode),
        Arbitraries.integers().between(1, 400).map(FrameArbitraries::nestedArrays),
        Arbitraries.integers().between(1, 400).map(FrameArbitraries::nestedObjects),
        json(2)));
  }

  private static Arbitrary<TextMutation> textMutation() {
    Arbitrary<Integer> pos = Arbitraries.integers().between(0, 10_000);
    Arbitrary<Character> ch = Arbitraries.oneOf(List.of(
        Arbitraries.chars().with('{', '}', '[', ']', '"', ',', ':', '\\', '0', ' ', '\u0000'),
        Arbitraries.chars()));
    return Arbitraries.oneOf(List.of(
        pos.map(p -> (TextMutation) s -> s.substring(0, p % (s.length() + 1))),
        Combinators.combine(pos, ch).as((p, c) -> (TextMutation) s -> insert(s, p % (s.length() + 1), c)),
        pos.map(p -> (TextMutation) s -> s.isEmpty() ? s : delete(s, p % s.length())),
        Combinators.combine(pos, ch).as((p, c) -> (TextMutation) s -> s.isEmpty() ? s
            : delete(insert(s, p % s.length(), c), p % s.length() + 1)),
        Arbitraries.of(" x", "}", "]", ",{}", " {\"msg\":\"ping\"}", "\u0000")
            .map(t -> (TextMutation) s -> s + t),
        Arbitraries.integers().between(400, 3000).map(n -> (TextMutation) s -> "[".repeat(n) + s),
        Arbitraries.integers().between(400, 3000).map(
            n -> (TextMutation) s -> "{\"msg\":\"ping\",\"id\":" + "[".repeat(n) + "]".repeat(n) + "}"),
        Arbitraries.integers().between(900, 1200).map(
            n -> (TextMutation) s -> "{\"msg\":\"result\",\"id\":\"1\",\"result\":" + "9".repeat(n) + "}"),
        Arbitraries.just((TextMutation) s -> "[" + s + "]")));
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

  private static Arbitrary<String> ids() {
    return Arbitraries.oneOf(List.of(
        Arbitraries.of(MID, SUB, DOC, "unknown", "", "1", "0", "-1", "\u00e9\u4e2d\ud83d\ude00"),
        Arbitraries.strings().ofMaxLength(20)));
  }

  private static Arbitrary<String> methodIds() {
    return Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(MID)), Tuple.of(1, ids()));
  }

  private static Arbitrary<String> subIds() {
    return Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(SUB)), Tuple.of(1, ids()));
  }

  private static Arbitrary<String> docIds() {
    return Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(DOC)), Tuple.of(1, ids()));
  }

  private static Arbitrary<String> collections() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.just(DOCS)),
        Tuple.of(2, Arbitraries.just(STREAM)),
        Tuple.of(1, Arbitraries.of("other", "", "$date")),
        Tuple.of(1, Arbitraries.strings().ofMaxLength(10)));
  }

  private static Arbitrary<ObjectNode> methodError() {
    return Combinators.combine(
            Arbitraries.oneOf(List.of(
                Arbitraries.strings().ofMaxLength(10).map(s -> (JsonNode) F.textNode(s)),
                Arbitraries.integers().map(i -> (JsonNode) F.numberNode(i)),
                Arbitraries.just((JsonNode) F.nullNode()))),
            Arbitraries.strings().ofMaxLength(20).injectNull(0.3),
            json(1).injectNull(0.5))
        .as((code, reason, details) -> {
          ObjectNode e = F.objectNode().set("error", code);
          if (reason != null) {
            e.put("reason", reason);
          }
          return details == null ? e : e.set("details", details);
        });
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
