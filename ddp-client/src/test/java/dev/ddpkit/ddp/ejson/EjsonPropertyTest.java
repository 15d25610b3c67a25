package dev.ddpkit.ddp.ejson;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.gen.Gen;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code fromJson(toJson(x))} gives {@code x} back for random nested values, as tree and text. The
 * values come from a seeded {@link Gen}: a failure prints the seed that replays it.
 */
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

  private static final String TEXT_CHARS =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789$_ .\u00e9\u20ac\"\\\n";

  @Test
  void roundTripsAsATree() {
    Gen.forEachSeed(
        0xE750AL,
        500,
        (gen, seed) -> {
          Object value = value(gen, 4);
          assertThat(comparable(Ejson.fromJson(Ejson.toJson(value))))
              .as("seed %d", seed)
              .isEqualTo(comparable(value));
        });
  }

  @Test
  void roundTripsThroughText() {
    Gen.forEachSeed(
        0x7E47L,
        500,
        (gen, seed) -> {
          Object value = value(gen, 4);
          String text = MAPPER.writeValueAsString(Ejson.toJson(value));
          assertThat(comparable(Ejson.fromJson(MAPPER.readTree(text))))
              .as("seed %d", seed)
              .isEqualTo(comparable(value));
        });
  }

  private static Object value(Gen gen, int depth) {
    if (depth == 0) {
      return leaf(gen);
    }
    return gen.frequency(
        Gen.weight(4, EjsonPropertyTest::leaf),
        Gen.weight(2, g -> map(g, depth - 1)),
        Gen.weight(1, g -> lookalike(g, depth - 1)),
        Gen.weight(2, g -> g.listOf(4, h -> value(h, depth - 1))));
  }

  private static Object leaf(Gen gen) {
    return switch (gen.nextInt(8)) {
      case 0 -> null;
      case 1 -> gen.chance(0.5);
      case 2 -> gen.anyLong();
      case 3 -> gen.anyDouble();
      case 4 -> gen.pick(List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0d));
      case 5 -> text(gen);
      case 6 -> Instant.ofEpochMilli(gen.between(-8_640_000_000_000_000L, 8_640_000_000_000_000L));
      default -> gen.bytes(gen.nextInt(13));
    };
  }

  private static String text(Gen gen) {
    return gen.string(TEXT_CHARS, 8);
  }

  private static Object map(Gen gen, int depth) {
    Map<String, Object> m = new LinkedHashMap<>();
    int n = gen.nextInt(5);
    for (int i = 0; i < n; i++) {
      String key = gen.chance(0.75) ? text(gen) : gen.pick(List.of("$date", "$escape", "$type"));
      m.put(key, value(gen, depth));
    }
    return m;
  }

  /** A user map shaped exactly like an EJSON type, with arbitrary values under its keys. */
  private static Object lookalike(Gen gen, int depth) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (String key : gen.pick(LOOKALIKE_KEYS)) {
      m.put(key, value(gen, depth));
    }
    return m;
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
