package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.Cancellable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every listener of the client is added by an {@code addX} method (the builder's too, each call one
 * more) and removed by the handle it returns.
 */
@Timeout(value = 30, unit = SECONDS)
class ListenerHandlesTest {

  @Test
  void theBuildersAddStatusListenerAddsEachOne() {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (Harness h = new Harness(b -> b
        .addStatusListener(s -> seen.add("first " + s.state()))
        .addStatusListener(s -> seen.add("second " + s.state())))) {
      h.connect("s1");

      assertThat(seen).contains("first CONNECTED", "second CONNECTED");
    }
  }

  @Test
  void aRemovedReconnectHookIsNotRunOnTheNextReconnect() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      Cancellable hook = h.client.addReconnectHook(c -> c.call("hello"));
      hook.cancel();

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");

      s2.expectNothing();
    }
  }

  @Test
  void aRemovedStreamListenerHearsNothingMore() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      List<String> events = new CopyOnWriteArrayList<>();
      Cancellable listener = h.client.addStreamListener("events", (c, id, f) -> events.add(id));
      s.send("{'msg':'added','collection':'events','id':'e1','fields':{}}");
      listener.cancel();
      s.send("{'msg':'added','collection':'events','id':'e2','fields':{}}");

      assertThat(events).containsExactly("e1");
    }
  }

  @Test
  void aRemovedStatusListenerHearsNothingMore() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      List<DdpStatus> seen = new CopyOnWriteArrayList<>();
      Cancellable listener = h.client.addStatusListener(seen::add);
      s.closeFromServer(1006, "");
      listener.cancel();
      h.redial();

      assertThat(seen).extracting(DdpStatus::state).containsExactly(DdpStatus.State.WAITING);
    }
  }
}
