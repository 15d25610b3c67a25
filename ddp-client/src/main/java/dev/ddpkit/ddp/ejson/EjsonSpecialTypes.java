package dev.ddpkit.ddp.ejson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Base64;

/**
 * EJSON's special forms, both ways: {@code $date}, {@code $binary}, {@code $InfNaN}, {@code
 * $regexp}, and which key sets a decoder would take for one (so that a user map must be escaped).
 */
final class EjsonSpecialTypes {
  /** JavaScript's Date range: 100,000,000 days either side of the epoch, in milliseconds. */
  private static final long MAX_DATE_MILLIS = 8_640_000_000_000_000L;

  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private EjsonSpecialTypes() {}

  static ObjectNode infNaN(int sign) {
    ObjectNode node = NODES.objectNode();
    node.put("$InfNaN", sign);
    return node;
  }

  static ObjectNode dateNode(Instant instant) {
    long millis;
    try {
      millis = instant.toEpochMilli();
    } catch (ArithmeticException e) {
      throw new EjsonException("instant out of the EJSON date range: " + instant, e);
    }
    if (Math.abs(millis) > MAX_DATE_MILLIS) {
      throw new EjsonException("instant out of the EJSON date range: " + instant);
    }
    ObjectNode node = NODES.objectNode();
    node.put("$date", millis);
    return node;
  }

  static ObjectNode binaryNode(byte[] bytes) {
    ObjectNode node = NODES.objectNode();
    node.put("$binary", Base64.getEncoder().encodeToString(bytes));
    return node;
  }

  static ObjectNode regExpNode(EjsonRegExp re) {
    ObjectNode node = NODES.objectNode();
    node.put("$regexp", re.source());
    node.put("$flags", re.flags());
    return node;
  }

  /** The key sets a decoder would take for a built-in type; a user map with one must be escaped. */
  static boolean looksLikeEjsonType(ObjectNode object) {
    if (object.size() == 1) {
      String key = object.fieldNames().next();
      return key.equals("$date")
          || key.equals("$binary")
          || key.equals("$InfNaN")
          || key.equals("$escape");
    }
    if (object.size() == 2) {
      return (object.has("$type") && object.has("$value"))
          || (object.has("$regexp") && object.has("$flags"));
    }
    return false;
  }

  static Instant readDate(JsonNode value, EjsonPath path) {
    if (value == null || !value.isNumber()) {
      throw new EjsonException(
          "'$date' must be a number of milliseconds at " + path + ", got " + describe(value));
    }
    long millis;
    if (value.isIntegralNumber()) {
      if (!value.canConvertToLong()) {
        throw new EjsonException("'$date' out of range at " + path + ": " + value);
      }
      millis = value.longValue();
    } else {
      double d = value.doubleValue();
      if (!(Math.abs(d) <= MAX_DATE_MILLIS)) {
        throw new EjsonException("'$date' out of range at " + path + ": " + value);
      }
      // JavaScript's Date truncates a fractional time value toward zero; so do we.
      millis = (long) d;
    }
    if (Math.abs(millis) > MAX_DATE_MILLIS) {
      throw new EjsonException("'$date' out of range at " + path + ": " + value);
    }
    return Instant.ofEpochMilli(millis);
  }

  static byte[] readBinary(JsonNode value, EjsonPath path) {
    if (value == null || !value.isTextual()) {
      throw new EjsonException(
          "'$binary' must be a base64 string at " + path + ", got " + describe(value));
    }
    try {
      return Base64.getDecoder().decode(value.textValue());
    } catch (IllegalArgumentException e) {
      throw new EjsonException(
          "'$binary' is not valid base64 at " + path + ": " + e.getMessage(), e);
    }
  }

  static double readInfNaN(JsonNode value, EjsonPath path) {
    if (value != null && value.isNumber()) {
      double sign = value.doubleValue();
      if (sign == 1) {
        return Double.POSITIVE_INFINITY;
      }
      if (sign == -1) {
        return Double.NEGATIVE_INFINITY;
      }
      if (sign == 0) {
        return Double.NaN;
      }
    }
    throw new EjsonException(
        "'$InfNaN' must be 1, -1 or 0 at " + path + ", got " + describe(value));
  }

  static EjsonRegExp readRegExp(JsonNode json, EjsonPath path) {
    JsonNode source = json.get("$regexp");
    JsonNode flags = json.get("$flags");
    if (!source.isTextual() || !flags.isTextual()) {
      throw new EjsonException("'$regexp' and '$flags' must be strings at " + path);
    }
    return new EjsonRegExp(source.textValue(), flags.textValue());
  }

  static String describe(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    String text = node.toString();
    String shown = text.length() <= 60 ? text : text.substring(0, 57) + "...";
    return node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " " + shown;
  }
}
