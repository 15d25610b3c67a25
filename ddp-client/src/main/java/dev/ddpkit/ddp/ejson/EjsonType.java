package dev.ddpkit.ddp.ejson;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.function.Function;

/**
 * A user-defined EJSON type, sent as {@code {"$type": name, "$value": json}}. The {@code $value} is
 * plain JSON, opaque to EJSON: it is neither escaped nor decoded further.
 *
 * @param <T> the Java type
 */
public interface EjsonType<T> {

  /** Returns the type name sent in {@code $type}. */
  String name();

  /** Returns the Java class whose instances are encoded with this type. */
  Class<T> javaType();

  /** Returns the JSON form of {@code value}, sent as {@code $value}. */
  JsonNode toJsonValue(T value);

  /**
   * Returns the value read from a {@code $value}. May throw any {@link RuntimeException} on bad
   * input; the caller reports it as an {@link EjsonException} naming the type.
   */
  T fromJsonValue(JsonNode json);

  /** Returns a type made of two functions. */
  static <T> EjsonType<T> of(
      String name,
      Class<T> javaType,
      Function<? super T, ? extends JsonNode> toJson,
      Function<? super JsonNode, ? extends T> fromJson) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(javaType, "javaType");
    Objects.requireNonNull(toJson, "toJson");
    Objects.requireNonNull(fromJson, "fromJson");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    return new EjsonType<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Class<T> javaType() {
        return javaType;
      }

      @Override
      public JsonNode toJsonValue(T value) {
        return toJson.apply(value);
      }

      @Override
      public T fromJsonValue(JsonNode json) {
        return fromJson.apply(json);
      }

      @Override
      public String toString() {
        return "EjsonType{" + name + " <-> " + javaType.getName() + "}";
      }
    };
  }
}
