package dev.ddpkit.ddp.ejson;

import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.describe;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.readBinary;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.readDate;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.readInfNaN;
import static dev.ddpkit.ddp.ejson.EjsonSpecialTypes.readRegExp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** EJSON to Java values: the decoding half of {@link Ejson}. Immutable and thread-safe. */
final class EjsonDecoder {
  private final Map<String, EjsonType<?>> typesByName;

  /** {@code typesByName} must be an unmodifiable map from type name to type. */
  EjsonDecoder(Map<String, EjsonType<?>> typesByName) {
    this.typesByName = typesByName;
  }

  Object decode(JsonNode json, EjsonPath path, int depth) {
    if (depth > Ejson.MAX_DEPTH) {
      throw new EjsonException("EJSON nested deeper than " + Ejson.MAX_DEPTH + " at " + path);
    }
    if (json == null) {
      return null;
    }
    JsonNodeType type = json.getNodeType();
    switch (type) {
      case NULL, MISSING:
        return null;
      case BOOLEAN:
        return json.booleanValue();
      case STRING:
        return json.textValue();
      case NUMBER:
        return decodeNumber(json);
      case BINARY:
        return ((BinaryNode) json).binaryValue().clone();
      case ARRAY:
        return decodeArray(json, path, depth);
      case OBJECT:
        return decodeObject(json, path, depth);
      case POJO:
        throw new EjsonException("not JSON at " + path + ": a Java object node");
      default:
        throw new AssertionError("Unexpected node type: " + type);
    }
  }

  private static Object decodeNumber(JsonNode json) {
    if (json.isIntegralNumber()) {
      return json.canConvertToLong() ? (Object) json.longValue() : json.bigIntegerValue();
    }
    if (json.isBigDecimal()) {
      return json.decimalValue();
    }
    return json.doubleValue();
  }

  private List<Object> decodeArray(JsonNode json, EjsonPath path, int depth) {
    List<Object> list = new ArrayList<>(json.size());
    int i = 0;
    for (JsonNode element : json) {
      list.add(decode(element, path.index(i++), depth + 1));
    }
    return Collections.unmodifiableList(list);
  }

  private Object decodeObject(JsonNode json, EjsonPath path, int depth) {
    if (json.size() == 1) {
      String key = json.fieldNames().next();
      JsonNode value = json.get(key);
      switch (key) {
        case "$date":
          return readDate(value, path);
        case "$binary":
          return readBinary(value, path);
        case "$InfNaN":
          return readInfNaN(value, path);
        case "$escape":
          if (!value.isObject()) {
            throw new EjsonException(
                "'$escape' must hold an object at " + path + ", got " + describe(value));
          }
          return decodeFields(value, path.key("$escape"), depth + 1);
        default:
          break;
      }
    } else if (json.size() == 2) {
      if (json.has("$type") && json.has("$value")) {
        return readCustom(json.get("$type"), json.get("$value"), path);
      }
      if (json.has("$regexp") && json.has("$flags")) {
        return readRegExp(json, path);
      }
    }
    return decodeFields(json, path, depth);
  }

  /** Decodes the fields of an object, taking its keys literally. */
  private Map<String, Object> decodeFields(JsonNode json, EjsonPath path, int depth) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : json.properties()) {
      map.put(e.getKey(), decode(e.getValue(), path.key(e.getKey()), depth + 1));
    }
    return Collections.unmodifiableMap(map);
  }

  private Object readCustom(JsonNode name, JsonNode value, EjsonPath path) {
    if (!name.isTextual()) {
      throw new EjsonException("'$type' must be a string at " + path + ", got " + describe(name));
    }
    EjsonType<?> type = typesByName.get(name.textValue());
    if (type == null) {
      throw new EjsonException(
          "unknown EJSON type '"
              + name.textValue()
              + "' at "
              + path
              + " (known: "
              + typesByName.keySet()
              + ")");
    }
    try {
      return type.fromJsonValue(value);
    } catch (RuntimeException e) {
      throw new EjsonException(
          "EJSON type '" + type.name() + "' rejected its $value at " + path + ": " + e, e);
    }
  }
}
