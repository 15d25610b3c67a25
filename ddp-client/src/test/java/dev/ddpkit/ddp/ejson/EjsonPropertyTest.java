package dev.ddpkit.ddp.ejson;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** {@code fromJson(toJson(x))} gives {@code x} back for random nested values, as tree and text. */
class EjsonPropertyTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Key sets a decoder would take for a built-in type: user maps with them must be escaped. */
  private static final List<List<String>> LOOKALIKE_KEYS =
      List.of(
          List.of("$date"),
          List.of("$binary"),
          List.of("$InfNaN"),
          List.of("$escape"),
          List.of("$type", "$value"),
          List.of("$regexp", "$flags"));

  @Property(tries = 500)
  void roundTripsAsATree(@ForAll("values") Object value) {
    assertThat(comparable(Ejson.fromJson(Ejson.toJson(value)))).isEqualTo(comparable(value));
  }

  @Property(tries = 500)
  void roundTripsThroughText(@ForAll("values") Object value) throws Exception {
    String text = MAPPER.writeValueAsString(Ejson.toJson(value));
    assertThat(comparable(Ejson.fromJson(MAPPER.readTree(text)))).isEqualTo(comparable(value));
  }

  @Provide
  Arbitrary<Object> values() {
    return value(4);
  }

  private Arbitrary<Object> value(int depth) {
    if (depth == 0) {
      return leaf();
    }
    return Arbitraries.frequencyOf(
        Tuple.of(4, leaf()),
        Tuple.of(2, map(depth - 1)),
        Tuple.of(1, lookalike(depth - 1)),
        Tuple.of(2, list(depth - 1)));
  }

  private Arbitrary<Object> leaf() {
    return Arbitraries.oneOf(
        Arbitraries.just(null),
        Arbitraries.of(true, false),
        Arbitraries.longs(),
        Arbitraries.doubles(),
        Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0d),
        text(),
        Arbitraries.longs()
            .between(-8_640_000_000_000_000L, 8_640_000_000_000_000L)
            .map(Instant::ofEpochMilli),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(12));
  }

  private Arbitrary<String> text() {
    return Arbitraries.strings().alpha().numeric().withChars("$_ .é€\"\\\n").ofMaxLength(8);
  }

  private Arbitrary<Object> map(int depth) {
    Arbitrary<String> keys = Arbitraries.oneOf(text(), Arbitraries.of("$date", "$escape", "$type"));
    return Arbitraries.maps(keys, value(depth)).ofMaxSize(4).map(m -> m);
  }

  /** A user map shaped exactly like an EJSON type, with arbitrary values under its keys. */
  private Arbitrary<Object> lookalike(int depth) {
    return Arbitraries.of(LOOKALIKE_KEYS)
        .flatMap(
            keys ->
                Combinators.combine(value(depth).list().ofSize(keys.size()), Arbitraries.just(keys))
                    .as(
                        (vals, ks) -> {
                          Map<String, Object> m = new LinkedHashMap<>();
                          for (int i = 0; i < ks.size(); i++) {
                            m.put(ks.get(i), vals.get(i));
                          }
                          return (Object) m;
                        }));
  }

  private Arbitrary<Object> list(int depth) {
    return value(depth).list().ofMaxSize(4).map(l -> l);
  }

  /** Replaces byte arrays (which compare by identity) with their hex text, recursively. */
  private static Object comparable(Object value) {
    if (value instanceof byte[] bytes) {
      return "bytes:" + HexFormat.of().formatHex(bytes);
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(k, comparable(v)));
      return out;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(v -> out.add(comparable(v)));
      return out;
    }
    return value;
  }
}
