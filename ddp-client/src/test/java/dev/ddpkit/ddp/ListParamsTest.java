package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;

import dev.ddpkit.ddp.memory.ServerEnd;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression: {@code call("m", List.of(1, 2))} picked the varargs overload and sent {@code
 * [[1,2]]}, while {@code subscribe("s", List.of(1, 2))} sent {@code [1,2]}. A single list is the
 * params list for both now; a list meant as one param is wrapped.
 */
@Timeout(value = 30, unit = SECONDS)
class ListParamsTest {

  @Test
  void aSingleListIsTheParamsListForCallAndSubscribeAlike() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");

      h.client.call("m", List.of(1, 2));
      Subscription sub = h.client.subscribe("s", List.of(1, 2));

      s.expect("{'msg':'method','method':'m','id':'1','params':[1,2]}",
          "{'msg':'sub','id':'" + sub.id() + "','name':'s','params':[1,2]}");
    }
  }

  @Test
  void aListMeantAsOneParamIsWrapped() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");

      h.client.call("m", List.of(List.of(1, 2)));
      Subscription sub = h.client.subscribe("s", List.of(List.of(1, 2)));

      s.expect("{'msg':'method','method':'m','id':'1','params':[[1,2]]}",
          "{'msg':'sub','id':'" + sub.id() + "','name':'s','params':[[1,2]]}");
    }
  }

  @Test
  void varargsStillSendOneParamEach() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");

      h.client.call("m", 1, List.of(2, 3));
      Subscription sub = h.client.subscribe("s", "a", List.of(2, 3));

      s.expect("{'msg':'method','method':'m','id':'1','params':[1,[2,3]]}",
          "{'msg':'sub','id':'" + sub.id() + "','name':'s','params':['a',[2,3]]}");
    }
  }
}
