package dev.ddpkit.ddp.ejson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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

  private static final Ejson STANDARD = new Ejson(List.of());

  private final List<EjsonType<?>> types;
  private final EjsonEncoder encoder;
  private final EjsonDecoder decoder;

  private Ejson(List<EjsonType<?>> types) {
    this.types = List.copyOf(types);
    Map<String, EjsonType<?>> byName = new LinkedHashMap<>();
    for (EjsonType<?> t : types) {
      byName.put(t.name(), t);
    }
    this.encoder = new EjsonEncoder(this.types);
    this.decoder = new EjsonDecoder(Collections.unmodifiableMap(byName));
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
    return EjsonSpecialTypes.dateNode(instant);
  }

  /**
   * Returns the instant of an EJSON date {@code {"$date": millis}}.
   *
   * @throws EjsonException if {@code json} is not an EJSON date
   */
  public static Instant asInstant(JsonNode json) {
    if (json == null || !json.isObject() || json.size() != 1 || !json.has("$date")) {
      throw new EjsonException("expected an EJSON date {\"$date\": millis}, got " + EjsonSpecialTypes.describe(json));
    }
    return EjsonSpecialTypes.readDate(json.get("$date"), EjsonPath.ROOT);
  }

  /** Returns {@code {"$binary": base64}} for {@code bytes}. */
  public static ObjectNode binary(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return EjsonSpecialTypes.binaryNode(bytes);
  }

  /**
   * Returns the bytes of EJSON binary data {@code {"$binary": base64}}.
   *
   * @throws EjsonException if {@code json} is not EJSON binary data
   */
  public static byte[] asBytes(JsonNode json) {
    if (json == null || !json.isObject() || json.size() != 1 || !json.has("$binary")) {
      throw new EjsonException(
          "expected EJSON binary {\"$binary\": base64}, got " + EjsonSpecialTypes.describe(json));
    }
    return EjsonSpecialTypes.readBinary(json.get("$binary"), EjsonPath.ROOT);
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
    return encoder.encode(value, 0);
  }

  /**
   * Decodes EJSON into Java values.
   *
   * @throws EjsonException if the EJSON is malformed or uses an unknown {@code $type}
   */
  public Object decode(JsonNode json) {
    return decoder.decode(json, EjsonPath.ROOT, 0);
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
