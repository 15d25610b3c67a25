package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression: call params went through plain Jackson, so bytes became a bare base64 string, NaN
 * the string "NaN", and an Instant or a Date threw. They are EJSON on the wire now.
 */
@Timeout(value = 30, unit = SECONDS)
class CallParamsAreEjsonTest {
  private static final Instant AT = Instant.ofEpochMilli(1_700_000_000_123L);

  /** A value type of the application, serialised by its mapper. */
  record Attachment(String name, byte[] data, Instant sent, double score) {}

  @Test
  void binaryAndNaNAreEjsonOnTheWire() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");

      h.client.call("m", new byte[] {1, 2}, Double.NaN, Double.NEGATIVE_INFINITY);

      s.expect("{'msg':'method','method':'m','id':'1','params':"
          + "[{'$binary':'AQI='},{'$InfNaN':0},{'$InfNaN':-1}]}");
    }
  }

  @Test
  void instantAndDateAreEjsonDates() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");

      h.client.call("m", AT, Date.from(AT));

      s.expect("{'msg':'method','method':'m','id':'1','params':"
          + "[{'$date':1700000000123},{'$date':1700000000123}]}");
    }
  }

  @Test
  void valuesNestedInMapsListsAndRecordsAreEncodedAndEjsonLookingKeysEscaped() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      Map<String, Object> nested = new LinkedHashMap<>();
      nested.put("at", AT);
      nested.put("scores", List.of(1, Double.POSITIVE_INFINITY));
      nested.put("literal", Map.of("$date", "not a date"));
      nested.put("file", new Attachment("a.bin", new byte[] {1, 2}, AT, Double.NaN));

      h.client.call("m", Map.of("meta", nested));

      s.expect("{'msg':'method','method':'m','id':'1','params':[{'meta':{"
          + "'at':{'$date':1700000000123},"
          + "'scores':[1,{'$InfNaN':1}],"
          + "'literal':{'$escape':{'$date':'not a date'}},"
          + "'file':{'name':'a.bin','data':{'$binary':'AQI='},'sent':{'$date':1700000000123},"
          + "'score':{'$InfNaN':0}}}}]}");
    }
  }

  @Test
  void subscriptionParamsAreEjsonToo() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");

      Subscription sub = h.client.subscribe("since", AT);

      s.expect("{'msg':'sub','id':'" + sub.id() + "','name':'since','params':"
          + "[{'$date':1700000000123}]}");
    }
  }

  @Test
  void aParamWithNoJsonFormIsTheCallersErrorAndNothingIsSent() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");

      assertThatThrownBy(() -> h.client.call("m", Map.of(1, "x")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("map keys must be strings");

      s.expectNothing();
    }
  }
}
