package dev.ddpkit.ddp.ejson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Converts between Java values and Meteor's EJSON, the JSON dialect of DDP. Immutable and
 * thread-safe.
 *
 * <p>Encoding ({@link #encode}, or {@link #toJson} for the built-in types only) accepts {@code
 * null}, {@link Boolean}, {@link Number}, {@link CharSequence}, {@link Character}, {@link Instant}
 * and {@link Date} ({@code {"$date": millis}}, sub-millisecond precision dropped), {@code byte[]}
 * ({@code {"$binary": base64}}), infinite and NaN doubles ({@code {"$InfNaN": 1|-1|0}}), {@link
 * EjsonRegExp}, {@link Map} with string keys, {@link Iterable} and arrays, {@link JsonNode} (taken
 * as already-encoded JSON and inserted as is, not copied), and instances of registered {@link
 * EjsonType}s (checked first, in registration order). A map whose keys look like an EJSON type
 * ({@code {"$date": ...}}) is wrapped in {@code {"$escape": ...}} so that it comes back as a map.
 *
 * <p>Decoding ({@link #decode}, or {@link #fromJson}) returns {@code null} (for JSON null and for a
 * missing node), {@link Boolean}, {@link Long} (or {@link BigInteger} past the long range), {@link
 * Double} (or {@link BigDecimal} for a decimal node), {@link String}, {@link Instant}, {@code
 * byte[]}, {@link EjsonRegExp}, custom values, and unmodifiable {@link List}s and {@link Map}s
 * (keys in document order). Malformed EJSON throws an {@link EjsonException} naming the problem
 * and its path ({@code $.fields.ts}).
 */
public final class Ejson {
  /** The deepest nesting accepted either way; deeper input is rejected, not a stack overflow. */
  public static final int MAX_DEPTH = 1000;

  /** JavaScript's Date range: 100,000,000 days either side of the epoch, in milliseconds. */
  private static final long MAX_DATE_MILLIS = 8_640_000_000_000_000L;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Ejson STANDARD = new Ejson(List.of());

  private final List<EjsonType<?>> types;
  private final Map<String, EjsonType<?>> typesByName;

  private Ejson(List<EjsonType<?>> types) {
    this.types = List.copyOf(types);
    Map<String, EjsonType<?>> byName = new LinkedHashMap<>();
    for (EjsonType<?> t : types) {
      byName.put(t.name(), t);
    }
    this.typesByName = Collections.unmodifiableMap(byName);
  }

  /** Returns the converter with the built-in types only: any {@code $type} is rejected. */
  public static Ejson standard() {
    return STANDARD;
  }

  /** Returns a builder to register custom types. */
  public static Builder builder() {
    return new Builder();
  }

  /** Encodes {@code value} with the built-in types only (see {@link #encode}). */
  public static JsonNode toJson(Object value) {
    return STANDARD.encode(value);
  }

  /** Decodes {@code json} with the built-in types only (see {@link #decode}). */
  public static Object fromJson(JsonNode json) {
    return STANDARD.decode(json);
  }

  /** Returns {@code {"$date": millis}} for {@code instant}. */
  public static ObjectNode date(Instant instant) {
    Objects.requireNonNull(instant, "instant");
    return dateNode(instant);
  }

  /**
   * Returns the instant of an EJSON date {@code {"$date": millis}}.
   *
   * @throws EjsonException if {@code json} is not an EJSON date
   */
  public static Instant asInstant(JsonNode json) {
    if (json == null || !json.isObject() || json.size() != 1 || !json.has("$date")) {
      throw new EjsonException("expected an EJSON date {\"$date\": millis}, got " + describe(json));
    }
    return readDate(json.get("$date"), Path.ROOT);
  }

  /** Returns {@code {"$binary": base64}} for {@code bytes}. */
  public static ObjectNode binary(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return binaryNode(bytes);
  }

  /**
   * Returns the bytes of EJSON binary data {@code {"$binary": base64}}.
   *
   * @throws EjsonException if {@code json} is not EJSON binary data
   */
  public static byte[] asBytes(JsonNode json) {
    if (json == null || !json.isObject() || json.size() != 1 || !json.has("$binary")) {
      throw new EjsonException(
          "expected EJSON binary {\"$binary\": base64}, got " + describe(json));
    }
    return readBinary(json.get("$binary"), Path.ROOT);
  }

  /** Returns the custom types this converter knows, in registration order. */
  public List<EjsonType<?>> types() {
    return types;
  }

  /**
   * Encodes a Java value as EJSON.
   *
   * @throws EjsonException if the value (or a value inside it) has no EJSON form, a map key is not
   *     a string, or the nesting is deeper than {@link #MAX_DEPTH}
   */
  public JsonNode encode(Object value) {
    return encode(value, 0);
  }

  /**
   * Decodes EJSON into Java values.
   *
   * @throws EjsonException if the EJSON is malformed or uses an unknown {@code $type}
   */
  public Object decode(JsonNode json) {
    return decode(json, Path.ROOT, 0);
  }

  // ---- encoding ----

  private JsonNode encode(Object value, int depth) {
    if (depth > MAX_DEPTH) {
      throw new EjsonException("value nested deeper than " + MAX_DEPTH + " (a cycle?)");
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
      ObjectNode node = NODES.objectNode();
      node.put("$regexp", re.source());
      node.put("$flags", re.flags());
      return node;
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

  private static ObjectNode infNaN(int sign) {
    ObjectNode node = NODES.objectNode();
    node.put("$InfNaN", sign);
    return node;
  }

  private static ObjectNode dateNode(Instant instant) {
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

  private static ObjectNode binaryNode(byte[] bytes) {
    ObjectNode node = NODES.objectNode();
    node.put("$binary", Base64.getEncoder().encodeToString(bytes));
    return node;
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

  /** The key sets a decoder would take for a built-in type; a user map with one must be escaped. */
  private static boolean looksLikeEjsonType(ObjectNode object) {
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

  // ---- decoding ----

  private Object decode(JsonNode json, Path path, int depth) {
    if (depth > MAX_DEPTH) {
      throw new EjsonException("EJSON nested deeper than " + MAX_DEPTH + " at " + path);
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

  private List<Object> decodeArray(JsonNode json, Path path, int depth) {
    List<Object> list = new ArrayList<>(json.size());
    int i = 0;
    for (JsonNode element : json) {
      list.add(decode(element, path.index(i++), depth + 1));
    }
    return Collections.unmodifiableList(list);
  }

  private Object decodeObject(JsonNode json, Path path, int depth) {
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
  private Map<String, Object> decodeFields(JsonNode json, Path path, int depth) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : json.properties()) {
      map.put(e.getKey(), decode(e.getValue(), path.key(e.getKey()), depth + 1));
    }
    return Collections.unmodifiableMap(map);
  }

  private static Instant readDate(JsonNode value, Path path) {
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

  private static byte[] readBinary(JsonNode value, Path path) {
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

  private static double readInfNaN(JsonNode value, Path path) {
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

  private static EjsonRegExp readRegExp(JsonNode json, Path path) {
    JsonNode source = json.get("$regexp");
    JsonNode flags = json.get("$flags");
    if (!source.isTextual() || !flags.isTextual()) {
      throw new EjsonException("'$regexp' and '$flags' must be strings at " + path);
    }
    return new EjsonRegExp(source.textValue(), flags.textValue());
  }

  private Object readCustom(JsonNode name, JsonNode value, Path path) {
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

  private static String describe(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    String text = node.toString();
    String shown = text.length() <= 60 ? text : text.substring(0, 57) + "...";
    return node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " " + shown;
  }

  /** A JSON path built only when an error needs it. */
  private record Path(Path parent, String key, int index) {
    static final Path ROOT = new Path(null, null, -1);

    Path key(String k) {
      return new Path(this, k, -1);
    }

    Path index(int i) {
      return new Path(this, null, i);
    }

    @Override
    public String toString() {
      if (parent == null) {
        return "$";
      }
      return parent + (key != null ? "." + key : "[" + index + "]");
    }
  }

  /** Builds an {@link Ejson} with custom types. */
  public static final class Builder {
    private final List<EjsonType<?>> types = new ArrayList<>();

    private Builder() {}

    /**
     * Registers a custom type. Types are tried in registration order when encoding.
     *
     * @throws IllegalArgumentException if a type with the same name is already registered
     */
    public Builder addType(EjsonType<?> type) {
      Objects.requireNonNull(type, "type");
      String name = Objects.requireNonNull(type.name(), "type.name()");
      Objects.requireNonNull(type.javaType(), "type.javaType()");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("type name must not be empty");
      }
      for (EjsonType<?> t : types) {
        if (t.name().equals(name)) {
          throw new IllegalArgumentException("type: '" + name + "' is already registered");
        }
      }
      types.add(type);
      return this;
    }

    /** Returns the converter. */
    public Ejson build() {
      return new Ejson(types);
    }
  }
}
