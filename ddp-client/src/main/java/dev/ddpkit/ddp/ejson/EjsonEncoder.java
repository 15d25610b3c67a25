package dev.ddpkit.ddp.ejson;

import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.NODES;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.binaryNode;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.dateNode;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.infNaN;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.looksLikeEjsonType;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.regExpNode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Java values to EJSON: the encoding half of {@link Ejson}. Immutable and thread-safe. */
final class EjsonEncoder {
  private final List<EjsonType<?>> types;

  /** {@code types} must be an immutable list, tried in order before the built-in types. */
  EjsonEncoder(List<EjsonType<?>> types) {
    this.types = types;
  }

  JsonNode encode(Object value, int depth) {
    if (depth > Ejson.MAX_DEPTH) {
      throw new EjsonException("value nested deeper than " + Ejson.MAX_DEPTH + " (a cycle?)");
    }
    if (value == null) {
      return NODES.nullNode();
    }
    if (value instanceof JsonNode node) {
      return node;
    }
    for (EjsonType<?> type : types) {
      if (type.javaType().isInstance(value)) {
        return encodeCustom(type, value);
      }
    }
    if (value instanceof CharSequence || value instanceof Character) {
      return NODES.textNode(value.toString());
    }
    if (value instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (value instanceof Number n) {
      return encodeNumber(n);
    }
    if (value instanceof Instant instant) {
      return dateNode(instant);
    }
    if (value instanceof Date date) {
      return dateNode(date.toInstant());
    }
    if (value instanceof byte[] bytes) {
      return binaryNode(bytes);
    }
    if (value instanceof EjsonRegExp re) {
      return regExpNode(re);
    }
    if (value instanceof Map<?, ?> map) {
      return encodeMap(map, depth);
    }
    if (value instanceof Iterable<?> iterable) {
      ArrayNode array = NODES.arrayNode();
      for (Object element : iterable) {
        array.add(encode(element, depth + 1));
      }
      return array;
    }
    if (value.getClass().isArray()) {
      ArrayNode array = NODES.arrayNode();
      int length = Array.getLength(value);
      for (int i = 0; i < length; i++) {
        array.add(encode(Array.get(value, i), depth + 1));
      }
      return array;
    }
    throw new EjsonException(
        "cannot encode a " + value.getClass().getName() + " as EJSON: register an EjsonType");
  }

  private static JsonNode encodeNumber(Number n) {
    if (n instanceof Integer || n instanceof Short || n instanceof Byte) {
      return NODES.numberNode(n.intValue());
    }
    if (n instanceof Long || n instanceof AtomicLong || n instanceof AtomicInteger) {
      return NODES.numberNode(n.longValue());
    }
    if (n instanceof BigInteger big) {
      return NODES.numberNode(big);
    }
    if (n instanceof BigDecimal dec) {
      return NODES.numberNode(dec);
    }
    // A Float goes through its decimal text: 0.1f is sent as 0.1, as a JavaScript peer reads it.
    double d = n instanceof Float f ? Double.parseDouble(f.toString()) : n.doubleValue();
    if (Double.isNaN(d)) {
      return infNaN(0);
    }
    if (Double.isInfinite(d)) {
      return infNaN(d > 0 ? 1 : -1);
    }
    return NODES.numberNode(d);
  }

  private JsonNode encodeMap(Map<?, ?> map, int depth) {
    ObjectNode object = NODES.objectNode();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      Object key = e.getKey();
      if (!(key instanceof CharSequence)) {
        throw new EjsonException(
            "map keys must be strings, got "
                + (key == null ? "null" : "a " + key.getClass().getName()));
      }
      object.set(key.toString(), encode(e.getValue(), depth + 1));
    }
    if (looksLikeEjsonType(object)) {
      ObjectNode escaped = NODES.objectNode();
      escaped.set("$escape", object);
      return escaped;
    }
    return object;
  }

  private static JsonNode encodeCustom(EjsonType<?> type, Object value) {
    JsonNode json = toJsonValueOf(type, value);
    if (json == null) {
      throw new EjsonException("EJSON type '" + type.name() + "' encoded a value as null");
    }
    ObjectNode node = NODES.objectNode();
    node.put("$type", type.name());
    node.set("$value", json);
    return node;
  }

  private static <T> JsonNode toJsonValueOf(EjsonType<T> type, Object value) {
    return type.toJsonValue(type.javaType().cast(value));
  }
}
