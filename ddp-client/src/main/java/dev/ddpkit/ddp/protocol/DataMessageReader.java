package dev.ddpkit.ddp.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link DdpMessages}' reader of data messages ({@code added}, {@code changed}, {@code removed},
 * {@code addedBefore}, {@code movedBefore}) as a token stream: the envelope's fields straight into
 * the message, only {@code fields} built as a tree, as the mapper would build it (with its node
 * factory; in place of Jackson's default one, a {@link CompactNodeFactory}: the same tree in
 * fewer bytes). It answers only for a plainly well-formed data message and returns {@code null}
 * for anything else (another {@code msg}, a field of the wrong type or missing, a repeated name, a
 * deep nesting, trailing content, invalid JSON): then the tree reader decides, so every answer
 * and every problem reported is the tree's. Thread-safe.
 */
final class DataMessageReader {
  /** Nesting deeper than this in {@code fields} is left to the tree reader (no recursion). */
  private static final int MAX_STREAMED_DEPTH = 100;

  /** Thrown inside the streaming read: the tree reader decides this frame. */
  private static final class TreeDecides extends Exception {
    private static final long serialVersionUID = 1L;

    TreeDecides() {
      super(null, null, /* enableSuppression= */ false, /* writableStackTrace= */ false);
    }
  }

  private static final TreeDecides TREE_DECIDES = new TreeDecides();

  private final ObjectReader reader;
  /** The reader of values the stream leaves to databind (floats): no trailing-token check. */
  private final ObjectReader valueReader;
  private final JsonNodeFactory nodes;

  private DataMessageReader(ObjectReader reader) {
    this.reader = reader;
    this.valueReader = reader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    JsonNodeFactory configured = reader.getConfig().getNodeFactory();
    this.nodes = CompactNodeFactory.replaces(configured) ? CompactNodeFactory.INSTANCE : configured;
  }

  /**
   * A reader for frames {@code reader} (with trailing tokens refused) would read as trees, or
   * {@code null} if its configuration changes how trees are read (repeated names refused,
   * integers widened, null properties dropped): such a mapper always gets the tree.
   */
  static DataMessageReader forReader(ObjectReader reader) {
    DeserializationConfig config = reader.getConfig();
    boolean asDefault = !config.isEnabled(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
        && !config.isEnabled(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
        && !config.isEnabled(DeserializationFeature.USE_LONG_FOR_INTS)
        && config.isEnabled(JsonNodeFeature.READ_NULL_PROPERTIES);
    return asDefault ? new DataMessageReader(reader) : null;
  }

  /** The data message {@code frame} holds, or {@code null} if the tree must decide. */
  DdpMessage read(String frame) {
    try (JsonParser p = reader.createParser(frame)) {
      return envelope(p);
    } catch (IOException | TreeDecides e) {
      return null; // invalid JSON, a constraint passed, or not plain: the tree says what
    }
  }

  /** As {@link #read(String)}, from UTF-8 bytes (checked by the caller). */
  DdpMessage read(byte[] utf8, int offset, int length) {
    try (JsonParser p = reader.createParser(utf8, offset, length)) {
      return envelope(p);
    } catch (IOException | TreeDecides e) {
      return null;
    }
  }

  // Bits of the envelope's names read once: a name seen twice is left to the tree.
  private static final int MSG = 1;
  private static final int COLLECTION = 2;
  private static final int ID = 4;
  private static final int FIELDS = 8;
  private static final int CLEARED = 16;
  private static final int BEFORE = 32;

  /**
   * A data message from the envelope's tokens, with the checks {@link DdpMessages} makes of it, or
   * {@code null} for any other frame. Names a data message does not read are skipped unbuilt.
   */
  private DdpMessage envelope(JsonParser p) throws IOException, TreeDecides {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    String msg = null;
    String collection = null;
    String id = null;
    String before = null;
    ObjectNode fields = null;
    List<String> cleared = null;
    int seen = 0;
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      int bit;
      switch (name) {
        case "msg" -> {
          bit = MSG;
          msg = string(p, t, false);
          if (!isData(msg)) {
            return null; // not a data message: the tree reads it, so read no further here
          }
        }
        case "collection" -> {
          bit = COLLECTION;
          collection = string(p, t, false);
        }
        case "id" -> {
          bit = ID;
          id = string(p, t, false);
        }
        case "before" -> {
          bit = BEFORE;
          before = string(p, t, true);
        }
        case "fields" -> {
          bit = FIELDS;
          if (t == JsonToken.START_OBJECT) {
            fields = object(p, 0);
          } else if (t != JsonToken.VALUE_NULL) {
            throw TREE_DECIDES;
          }
        }
        case "cleared" -> {
          bit = CLEARED;
          if (t == JsonToken.START_ARRAY) {
            cleared = strings(p);
          } else if (t != JsonToken.VALUE_NULL) {
            throw TREE_DECIDES;
          }
        }
        default -> {
          bit = 0;
          p.skipChildren(); // still tokenized, so still checked as JSON
        }
      }
      if ((seen & bit) != 0) {
        throw TREE_DECIDES;
      }
      seen |= bit;
    }
    if (p.nextToken() != null || msg == null || collection == null || id == null) {
      return null; // trailing content, or not a data message with its ids
    }
    return switch (msg) {
      case "added" -> new DdpMessage.Added(collection, id, orEmpty(fields));
      case "changed" ->
          new DdpMessage.Changed(
              collection, id, orEmpty(fields), cleared == null ? List.of() : cleared);
      case "removed" -> new DdpMessage.Removed(collection, id);
      case "addedBefore" ->
          new DdpMessage.AddedBefore(collection, id, orEmpty(fields), before);
      case "movedBefore" -> new DdpMessage.MovedBefore(collection, id, before);
      default -> null;
    };
  }

  /** Whether {@code msg} names one of the five data messages this reader builds. */
  private static boolean isData(String msg) {
    return switch (msg) {
      case "added", "changed", "removed", "addedBefore", "movedBefore" -> true;
      default -> false;
    };
  }

  private ObjectNode orEmpty(ObjectNode fields) {
    return fields != null ? fields : nodes.objectNode();
  }

  /** A string value; {@code null} for JSON null if {@code nullable}; else the tree decides. */
  private static String string(JsonParser p, JsonToken t, boolean nullable) throws IOException,
      TreeDecides {
    if (t == JsonToken.VALUE_STRING) {
      return p.getText();
    }
    if (nullable && t == JsonToken.VALUE_NULL) {
      return null;
    }
    throw TREE_DECIDES;
  }

  /** An array of strings, its start read; anything else in it and the tree decides. */
  private static List<String> strings(JsonParser p) throws IOException, TreeDecides {
    List<String> out = new ArrayList<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      out.add(string(p, t, false));
    }
    return out;
  }

  /** An object, its start read, built as the mapper's tree reader builds it. */
  private ObjectNode object(JsonParser p, int depth) throws IOException, TreeDecides {
    if (depth > MAX_STREAMED_DEPTH) {
      throw TREE_DECIDES;
    }
    ObjectNode o = nodes.objectNode();
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      if (o.replace(name, value(p, p.nextToken(), depth)) != null) {
        throw TREE_DECIDES; // a repeated name
      }
    }
    return o;
  }

  private JsonNode value(JsonParser p, JsonToken t, int depth) throws IOException, TreeDecides {
    if (t == null) {
      throw TREE_DECIDES; // the input ended: the parser throws first, but never loop on it
    }
    switch (t) {
      case START_OBJECT:
        return object(p, depth + 1);
      case START_ARRAY: {
        if (depth + 1 > MAX_STREAMED_DEPTH) {
          throw TREE_DECIDES;
        }
        ArrayNode a = nodes.arrayNode();
        for (JsonToken item = p.nextToken(); item != JsonToken.END_ARRAY; item = p.nextToken()) {
          a.add(value(p, item, depth + 1));
        }
        return a;
      }
      case VALUE_STRING:
        return nodes.textNode(p.getText());
      case VALUE_TRUE:
        return nodes.booleanNode(true);
      case VALUE_FALSE:
        return nodes.booleanNode(false);
      case VALUE_NULL:
        return nodes.nullNode();
      case VALUE_NUMBER_INT:
        switch (p.getNumberType()) {
          case INT:
            return nodes.numberNode(p.getIntValue());
          case LONG:
            return nodes.numberNode(p.getLongValue());
          default:
            return nodes.numberNode(p.getBigIntegerValue());
        }
      default:
        return valueReader.readTree(p); // floats: as databind reads them, with the mapper's rules
    }
  }
}
