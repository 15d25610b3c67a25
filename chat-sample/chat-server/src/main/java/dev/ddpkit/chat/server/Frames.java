package dev.ddpkit.chat.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/** JSON helpers of the server: one shared mapper, and builders for the frames DDP defines. */
final class Frames {
  /** Shared, thread-safe once configured; rejects trailing garbage after the JSON value. */
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Frames() {}

  /** A new empty object node. */
  static ObjectNode object() {
    return NODES.objectNode();
  }

  /** A DDP frame {@code {"msg": type}}. */
  static ObjectNode frame(String type) {
    ObjectNode n = object();
    n.put("msg", type);
    return n;
  }

  /** An EJSON date {@code {"$date": millis}}. */
  static ObjectNode date(long millis) {
    ObjectNode n = object();
    n.put("$date", millis);
    return n;
  }

  /** Serialises a tree; a tree built with the API always serialises. */
  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses a stored JSON object written by this server. */
  static ObjectNode readStored(String json) {
    try {
      JsonNode n = MAPPER.readTree(json);
      if (!(n instanceof ObjectNode)) {
        throw new IllegalStateException("stored value is not a JSON object");
      }
      return (ObjectNode) n;
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The text of a field, or null when it is missing or not a string. */
  static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }

  /**
   * Reads an EJSON date ({@code {"$date": millis}}); returns {@code absent} for JSON null or a
   * missing node, and throws MethodError for anything else.
   */
  static long dateOr(JsonNode node, long absent, String what) throws MethodError {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return absent;
    }
    JsonNode d = node.get("$date");
    if (d != null && d.canConvertToLong() && d.isIntegralNumber()) {
      return d.longValue();
    }
    if (d != null && d.isNumber() && d.canConvertToLong()) {
      return (long) d.doubleValue();
    }
    throw MethodError.invalid("error-invalid-date", what + " must be {\"$date\": millis} or null");
  }
}
