package dev.ddpkit.ddp.ejson;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 30, unit = SECONDS)
class EjsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text.replace('\'', '"'));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Compares as JSON text, so that an int node and a long node holding 5 are the same. */
  private static void assertJson(JsonNode actual, String expected) {
    assertThat(actual).as("encoded").isNotNull();
    assertThat(actual.toString()).isEqualTo(json(expected).toString());
  }

  @Nested
  class Dates {
    @Test
    void instantEncodesAsMillisAndDecodesBack() {
      Instant t = Instant.ofEpochMilli(1358205756553L);
      assertJson(Ejson.toJson(t), "{'$date': 1358205756553}");
      assertThat(Ejson.fromJson(json("{'$date': 1358205756553}"))).isEqualTo(t);
    }

    @Test
    void utilDateEncodesLikeInstant() {
      assertJson(Ejson.toJson(new Date(32491L)), "{'$date': 32491}");
    }

    @Test
    void subMillisecondPrecisionIsDroppedAndBeforeEpochWorks() {
      assertJson(Ejson.toJson(Instant.ofEpochSecond(1, 999_999_999)), "{'$date': 1999}");
      assertThat(Ejson.fromJson(json("{'$date': -86400000}")))
          .isEqualTo(Instant.parse("1969-12-31T00:00:00Z"));
    }

    @Test
    void fractionalMillisAreTruncatedTowardZeroAsJavaScriptDoes() {
      assertThat(Ejson.fromJson(json("{'$date': 1000.9}"))).isEqualTo(Instant.ofEpochMilli(1000));
      assertThat(Ejson.fromJson(json("{'$date': -1000.9}")))
          .isEqualTo(Instant.ofEpochMilli(-1000));
    }

    @Test
    void typedHelpersRoundTrip() {
      Instant t = Instant.parse("2024-05-01T12:00:00.123Z");
      assertThat(Ejson.asInstant(Ejson.date(t))).isEqualTo(t);
    }

    @Test
    void asInstantRejectsWhatIsNotADate() {
      assertThatThrownBy(() -> Ejson.asInstant(json("{'$date': 1, 'x': 2}")))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("expected an EJSON date");
      assertThatThrownBy(() -> Ejson.asInstant(MissingNode.getInstance()))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("got nothing");
      assertThatThrownBy(() -> Ejson.asInstant(null)).isInstanceOf(EjsonException.class);
    }

    @Test
    void instantOutsideTheJavaScriptRangeCannotBeEncoded() {
      assertThatThrownBy(() -> Ejson.toJson(Instant.MAX))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("out of the EJSON date range");
      assertThatThrownBy(() -> Ejson.toJson(Instant.ofEpochMilli(8_640_000_000_000_001L)))
          .isInstanceOf(EjsonException.class);
    }
  }

  @Nested
  class Binary {
    @Test
    void bytesEncodeAsStandardBase64AndDecodeBack() {
      byte[] bytes = {(byte) 0xfb, (byte) 0xff, 0x00, 0x41};
      assertJson(Ejson.toJson(bytes), "{'$binary': '+/8AQQ=='}");
      assertThat((byte[]) Ejson.fromJson(json("{'$binary': '+/8AQQ=='}"))).isEqualTo(bytes);
    }

    @Test
    void missingPaddingIsAccepted() {
      assertThat((byte[]) Ejson.fromJson(json("{'$binary': 'c3VyZS4'}")))
          .isEqualTo("sure.".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void typedHelpersRoundTrip() {
      byte[] bytes = "hello".getBytes(StandardCharsets.UTF_8);
      assertThat(Ejson.asBytes(Ejson.binary(bytes))).isEqualTo(bytes);
      assertThatThrownBy(() -> Ejson.asBytes(json("'aGVsbG8='")))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("expected EJSON binary");
    }

    @Test
    void emptyBytes() {
      assertJson(Ejson.toJson(new byte[0]), "{'$binary': ''}");
      assertThat((byte[]) Ejson.fromJson(json("{'$binary': ''}"))).isEmpty();
    }
  }

  @Nested
  class SpecialNumbers {
    @ParameterizedTest
    @CsvSource({"Infinity, 1", "-Infinity, -1", "NaN, 0"})
    void infinitiesAndNaNUseInfNaN(double value, int sign) {
      JsonNode encoded = Ejson.toJson(value);
      assertThat(encoded).isEqualTo(json("{'$InfNaN': " + sign + "}"));
      assertThat(Ejson.fromJson(encoded)).isEqualTo(value);
      assertThat(Ejson.toJson((float) value)).isEqualTo(encoded);
    }

    @Test
    void finiteNumbersStayPlain() {
      assertThat(Ejson.toJson(42)).isEqualTo(IntNode.valueOf(42));
      assertThat(Ejson.fromJson(json("42"))).isEqualTo(42L);
      assertThat(Ejson.fromJson(json("1.5"))).isEqualTo(1.5d);
      assertThat(Ejson.fromJson(Ejson.toJson(-0.0d))).isEqualTo(-0.0d);
      assertJson(Ejson.toJson(0.1f), "0.1");
      BigInteger big = BigInteger.TWO.pow(80);
      assertThat(Ejson.fromJson(json(big.toString()))).isEqualTo(big);
    }
  }

  @Nested
  class Escaping {
    @Test
    void aMapThatLooksLikeADateIsEscapedAndComesBackAsAMap() {
      Map<String, Object> map = Map.of("$date", 10000L);
      JsonNode encoded = Ejson.toJson(map);
      assertJson(encoded, "{'$escape': {'$date': 10000}}");
      assertThat(Ejson.fromJson(encoded)).isEqualTo(map);
    }

    @Test
    void escapingMakesKeysLiteralOneLevelDownOnly() {
      Object decoded = Ejson.fromJson(json("{'$escape': {'$date': {'$date': 32491}}}"));
      assertThat(decoded).isEqualTo(Map.of("$date", Instant.ofEpochMilli(32491)));
      assertJson(Ejson.toJson(decoded), "{'$escape': {'$date': {'$date': 32491}}}");
    }

    @Test
    void everyLookalikeIsEscaped() {
      List<Map<String, Object>> lookalikes =
          List.of(
              Map.of("$binary", "not base64!"),
              Map.of("$InfNaN", 7L),
              Map.of("$escape", "x"),
              ordered("$type", "thing", "$value", 1L),
              ordered("$regexp", "a+", "$flags", "g"));
      for (Map<String, Object> map : lookalikes) {
        JsonNode encoded = Ejson.toJson(map);
        assertThat(encoded.has("$escape")).as("%s", map).isTrue();
        assertThat(Ejson.fromJson(encoded)).as("%s", map).isEqualTo(map);
      }
    }

    @Test
    void anEscapeInsideAnEscapeRoundTrips() {
      Map<String, Object> map = Map.of("$escape", Map.of("$date", "soon"));
      JsonNode encoded = Ejson.toJson(map);
      assertJson(encoded, "{'$escape': {'$escape': {'$escape': {'$date': 'soon'}}}}");
      assertThat(Ejson.fromJson(encoded)).isEqualTo(map);
    }

    @Test
    void mapsThatDoNotLookLikeATypeAreNotEscaped() {
      assertJson(Ejson.toJson(ordered("$date", 1L, "other", 2L)), "{'$date': 1, 'other': 2}");
      assertJson(Ejson.toJson(Map.of("$foo", 1L)), "{'$foo': 1}");
      assertThat(Ejson.fromJson(json("{'$foo': 1}"))).isEqualTo(Map.of("$foo", 1L));
      assertThat(Ejson.fromJson(json("{'$date': 1, 'other': 2}")))
          .isEqualTo(ordered("$date", 1L, "other", 2L));
    }
  }

  @Nested
  class Nesting {
    @Test
    void nestedStructuresRoundTripThroughText() throws Exception {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("ts", Instant.ofEpochMilli(1_700_000_000_000L));
      doc.put("msg", "hi");
      doc.put("nothing", null);
      doc.put("flags", List.of(true, false));
      doc.put("attachments", List.of(Map.of("$date", "literal"), Map.of("n", Double.NaN)));
      doc.put("deep", Map.of("deeper", List.of(List.of(Instant.ofEpochMilli(5)))));

      String text = MAPPER.writeValueAsString(Ejson.toJson(doc));
      Object back = Ejson.fromJson(MAPPER.readTree(text));

      assertThat(back).isEqualTo(doc);
      assertThat(List.copyOf(((Map<?, ?>) back).keySet())).isEqualTo(List.copyOf(doc.keySet()));
    }

    @Test
    void arraysAndIterablesEncodeAsArrays() {
      assertJson(Ejson.toJson(new int[] {1, 2}), "[1, 2]");
      assertJson(Ejson.toJson(new Object[] {"a", null}), "['a', null]");
      assertJson(Ejson.toJson(new TreeSet<>(List.of("b", "a"))), "['a', 'b']");
    }

    @Test
    void jsonNodesPassThroughUnchanged() {
      ObjectNode raw = (ObjectNode) json("{'$date': 'kept as is'}");
      assertThat(Ejson.toJson(raw)).isSameAs(raw);
      assertThat(Ejson.toJson(Map.of("raw", raw)).get("raw")).isSameAs(raw);
    }

    @Test
    void decodedContainersAreUnmodifiable() {
      Map<?, ?> decoded = (Map<?, ?>) Ejson.fromJson(json("{'a': [1]}"));
      assertThatThrownBy(decoded::clear).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(((List<?>) decoded.get("a"))::clear)
          .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void missingAndNullDecodeToNull() {
      assertThat(Ejson.fromJson(MissingNode.getInstance())).isNull();
      assertThat(Ejson.fromJson(JsonNodeFactory.instance.nullNode())).isNull();
      assertThat(Ejson.fromJson(null)).isNull();
      assertThat(Ejson.toJson(null).isNull()).isTrue();
    }

    @Test
    void regExpRoundTrips() {
      EjsonRegExp re = new EjsonRegExp("^a.*z$", "gi");
      assertJson(Ejson.toJson(re), "{'$regexp': '^a.*z$', '$flags': 'gi'}");
      assertThat(Ejson.fromJson(Ejson.toJson(re))).isEqualTo(re);
    }
  }

  @Nested
  class CustomTypes {
    record Point(int x, int y) {}

    private final EjsonType<Point> pointType =
        EjsonType.of(
            "point",
            Point.class,
            p -> JsonNodeFactory.instance.arrayNode().add(p.x()).add(p.y()),
            j -> new Point(j.get(0).intValue(), j.get(1).intValue()));

    private final Ejson ejson = Ejson.builder().addType(pointType).build();

    @Test
    void registeredTypeRoundTrips() {
      Map<String, Object> doc = Map.of("where", new Point(3, 4));
      JsonNode encoded = ejson.encode(doc);
      assertJson(encoded, "{'where': {'$type': 'point', '$value': [3, 4]}}");
      assertThat(ejson.decode(encoded)).isEqualTo(doc);
    }

    @Test
    void valueIsOpaqueJsonNotDecodedFurther() {
      EjsonType<JsonNode> raw =
          EjsonType.of("raw", JsonNode.class, j -> j, j -> j);
      Ejson withRaw = Ejson.builder().addType(raw).build();
      Object decoded = withRaw.decode(json("{'$type': 'raw', '$value': {'$date': 'x'}}"));
      assertThat(decoded).isEqualTo(json("{'$date': 'x'}"));
    }

    @Test
    void unknownTypeIsRejectedWithItsName() {
      assertThatThrownBy(() -> Ejson.fromJson(json("{'a': {'$type': 'oid', '$value': 'ff'}}")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("unknown EJSON type 'oid'")
          .hasMessageContaining("$.a");
    }

    @Test
    void codecFailureIsReportedAsEjsonException() {
      assertThatThrownBy(() -> ejson.decode(json("{'$type': 'point', '$value': 'oops'}")))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("EJSON type 'point' rejected its $value");
    }

    @Test
    void duplicateNamesAreRejectedAtRegistration() {
      Ejson.Builder builder = Ejson.builder().addType(pointType);
      assertThatThrownBy(() -> builder.addType(pointType))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("type: 'point' is already registered");
    }

    @Test
    void standardConverterCannotEncodeAnUnregisteredObject() {
      assertThatThrownBy(() -> Ejson.toJson(new Point(1, 2)))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("cannot encode a " + Point.class.getName());
    }
  }

  @Nested
  class Malformed {
    @ParameterizedTest
    @CsvSource(
        delimiter = '|',
        quoteCharacter = '"',
        value = {
          "{'$date': 'yesterday'} | '$date' must be a number of milliseconds at $",
          "{'x': {'$date': null}} | '$date' must be a number of milliseconds at $.x",
          "{'$date': 1e300} | '$date' out of range",
          "{'$date': 8640000000000001} | '$date' out of range",
          "{'$binary': '@@@'} | '$binary' is not valid base64 at $",
          "[{'$binary': 12}] | '$binary' must be a base64 string at $[0]",
          "{'$InfNaN': 2} | '$InfNaN' must be 1, -1 or 0 at $, got number 2",
          "{'$InfNaN': '1'} | '$InfNaN' must be 1, -1 or 0",
          "{'$escape': 5} | '$escape' must hold an object",
          "{'$type': 7, '$value': 1} | '$type' must be a string",
          "{'$regexp': 1, '$flags': ''} | '$regexp' and '$flags' must be strings",
          "{'a': [{'b': {'$type': 'x', '$value': 1}}]} | unknown EJSON type 'x' at $.a[0].b",
        })
    void malformedInputIsAClearIllegalArgument(String input, String message) {
      assertThatThrownBy(() -> Ejson.fromJson(json(input)))
          .isInstanceOf(IllegalArgumentException.class)
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining(message);
    }

    @Test
    void nonStringMapKeysAreRejected() {
      Map<Object, Object> map = new HashMap<>();
      map.put(1, "one");
      assertThatThrownBy(() -> Ejson.toJson(map))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("map keys must be strings, got a java.lang.Integer");
    }

    @Test
    void cyclesAreRejectedNotAStackOverflow() {
      List<Object> list = new ArrayList<>();
      list.add(list);
      assertThatThrownBy(() -> Ejson.toJson(list))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("deeper than " + Ejson.MAX_DEPTH);
    }

    @Test
    void tooDeepInputIsRejected() {
      JsonNode node = JsonNodeFactory.instance.nullNode();
      for (int i = 0; i <= Ejson.MAX_DEPTH + 1; i++) {
        node = JsonNodeFactory.instance.arrayNode().add(node);
      }
      JsonNode deep = node;
      assertThatThrownBy(() -> Ejson.fromJson(deep))
          .isInstanceOf(EjsonException.class)
          .hasMessageContaining("nested deeper than");
    }
  }

  private static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put(k1, v1);
    map.put(k2, v2);
    return map;
  }
}
