package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream event's fields are each listener's own: what one listener does to them no other
 * listener sees (the last listener gets the parsed tree itself, the others a copy each).
 */
@Timeout(value = 30, unit = SECONDS)
class StreamListenersOwnTheirFieldsTest {
  @Test
  void aListenerThatChangesItsFieldsChangesNothingTheOthersSee() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      List<String> seen = new CopyOnWriteArrayList<>();
      for (String who : List.of("first", "second", "third")) {
        h.client.addStreamListener("events", (c, id, f) -> {
          seen.add(who + ":" + f.path("text").asText() + ":" + f.size());
          f.put("text", "changed by " + who);
          f.put(who, true);
        });
      }
      s.send("{'msg':'changed','collection':'events','id':'e1','fields':{'text':'hi'}}");

      assertThat(seen).containsExactly("first:hi:1", "second:hi:1", "third:hi:1");
    }
  }

  @Test
  void aListenerMayKeepItsFields() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      List<ObjectNode> kept = new CopyOnWriteArrayList<>();
      h.client.addStreamListener("events", (c, id, f) -> kept.add(f));
      h.client.addStreamListener("events", (c, id, f) -> f.removeAll());
      s.send("{'msg':'added','collection':'events','id':'e1','fields':{'n':1}}");
      s.send("{'msg':'added','collection':'events','id':'e2','fields':{'n':2}}");

      assertThat(kept).extracting(f -> f.path("n").asInt()).containsExactly(1, 2);
    }
  }
}
