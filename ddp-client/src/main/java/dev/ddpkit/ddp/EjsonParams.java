package dev.ddpkit.ddp;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ddpkit.ddp.ejson.Ejson;
import dev.ddpkit.ddp.ejson.EjsonRegExp;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns method and subscription params into EJSON: {@code byte[]} as {@code $binary}, {@link
 * Instant} and {@link Date} as {@code $date}, NaN and infinities as {@code $InfNaN}, and a map
 * whose keys look like an EJSON type wrapped in {@code $escape}. Maps, collections and arrays are
 * walked by the EJSON codec; a {@link JsonNode} is sent as is; any other object (a record, a bean,
 * an enum) is serialised by the application's Jackson mapper, with the EJSON forms above for the
 * values inside it (but no {@code $escape} for a map inside it). Thread-safe.
 */
final class EjsonParams {
  private final ObjectMapper pojos;

  EjsonParams(ObjectMapper mapper) {
    // A copy: the application's mapper keeps its own behaviour for everything else it does.
    this.pojos = mapper.copy().registerModule(ejsonValues());
  }

  /**
   * Returns {@code params} as a JSON array of EJSON values.
   *
   * @throws IllegalArgumentException if a value cannot be encoded (say, a map with a non-string
   *     key, or a cycle)
   */
  ArrayNode encode(List<?> params) {
    return (ArrayNode) Ejson.toJson(prepare(params, 0));
  }

  /** Replaces every value the codec does not know by the JSON Jackson makes of it. */
  private Object prepare(Object value, int depth) {
    if (depth > Ejson.MAX_DEPTH) {
      throw new IllegalArgumentException(
          "params nested deeper than " + Ejson.MAX_DEPTH + " (a cycle?)");
    }
    if (value instanceof JsonNode) {
      return value; // already JSON (and an ArrayNode or ObjectNode is Iterable: not walked)
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(k, prepare(v, depth + 1)));
      return out;
    }
    if (value instanceof Collection<?> items) {
      // Collections only: another Iterable, such as a java.nio.file.Path, is Jackson's to write.
      List<Object> out = new ArrayList<>();
      items.forEach(v -> out.add(prepare(v, depth + 1)));
      return out;
    }
    if (value instanceof Object[] items) {
      List<Object> out = new ArrayList<>(items.length);
      for (Object v : items) {
        out.add(prepare(v, depth + 1));
      }
      return out;
    }
    if (codecKnows(value)) {
      return value;
    }
    return pojos.valueToTree(value);
  }

  private static boolean codecKnows(Object v) {
    return v == null
        || v instanceof CharSequence
        || v instanceof Character
        || v instanceof Boolean
        || v instanceof Number
        || v instanceof Instant
        || v instanceof Date
        || v instanceof EjsonRegExp
        || v.getClass().isArray(); // byte[] and the other primitive arrays
  }

  /** The EJSON forms of the values inside an object Jackson serialises. */
  private static SimpleModule ejsonValues() {
    SimpleModule m = new SimpleModule("ddpkit-ejson-params");
    m.addSerializer(byte[].class, new ViaEjson<>());
    m.addSerializer(Instant.class, new ViaEjson<>());
    m.addSerializer(Date.class, new ViaEjson<>());
    m.addSerializer(Double.class, new ViaEjson<>());
    m.addSerializer(Double.TYPE, new ViaEjson<>());
    m.addSerializer(Float.class, new ViaEjson<>());
    m.addSerializer(Float.TYPE, new ViaEjson<>());
    return m;
  }

  /** Writes a value as the EJSON codec encodes it. */
  private static final class ViaEjson<T> extends JsonSerializer<T> {
    @Override
    public void serialize(T value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      Ejson.toJson(value).serialize(gen, provider);
    }
  }
}
