package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ConnectionListener}: one event per connection start and end, in order, on virtual time. */
@Timeout(value = 30, unit = SECONDS)
class ConnectionListenerTest {

  /** Records the events as text, and the reconnect hooks' runs, to check the order. */
  private static final class Events implements ConnectionListener {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void onConnected(boolean reconnect) {
      seen.add(reconnect ? "reconnected" : "connected");
    }

    @Override
    public void onDisconnected(int code, String reason) {
      seen.add("disconnected " + code + (reason.isEmpty() ? "" : " " + reason));
    }
  }

  @Test
  void eachConnectionIsToldOnceWhenItStartsAndOnceWhenItEnds() {
    Events events = new Events();
    try (Harness h = new Harness(b -> b.addConnectionListener(events))) {
      h.client.addReconnectHook(c -> events.seen.add("hook"));
      ServerEnd s1 = h.connect("s1");
      assertThat(events.seen).containsExactly("connected");

      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      assertThat(events.seen)
          .containsExactly("connected", "disconnected 1006", "reconnected", "hook");

      s2.closeFromServer(4000, "maintenance");
      assertThat(events.seen).endsWith("disconnected 4000 maintenance");
      h.client.close();
      assertThat(events.seen)
          .as("closing while not connected tells nothing more")
          .hasSize(5);
    }
  }

  @Test
  void aDeadSocketFoundByTheHeartbeatAndACloseByTheClientAreToldToo() {
    Events events = new Events();
    try (Harness h = new Harness(b -> b.heartbeatInterval(Duration.ofSeconds(5))
        .heartbeatTimeout(Duration.ofSeconds(2)))) {
      h.client.addConnectionListener(events);
      h.connect("s1");
      h.time.advance(Duration.ofSeconds(7)); // ping at 5 s, no answer by 7 s
      assertThat(events.seen).hasSize(2);
      assertThat(events.seen.get(1)).startsWith("disconnected 1006");

      h.redial();
      h.handshake(h.connectWithSession("s1"), "s2");
      h.client.close();
      assertThat(events.seen).containsExactly(events.seen.get(0), events.seen.get(1),
          "reconnected", "disconnected 1000 client closed");
    }
  }

  @Test
  void aListenerThatThrowsDoesNotStopTheOthersNorTheConnection() {
    Events events = new Events();
    try (Harness h = new Harness(b -> b.addConnectionListener(new ConnectionListener() {
      @Override
      public void onConnected(boolean reconnect) {
        throw new IllegalStateException("listener bug");
      }
    }).addConnectionListener(events))) {
      h.connect("s1");
      assertThat(events.seen).containsExactly("connected");
      assertThat(h.client.status().connected()).isTrue();
    }
  }

  @Test
  void aRemovedListenerIsToldNothingMore() {
    Events events = new Events();
    try (Harness h = new Harness()) {
      var handle = h.client.addConnectionListener(events);
      ServerEnd s1 = h.connect("s1");
      handle.cancel();
      s1.closeFromServer(1006, "");
      assertThat(events.seen).containsExactly("connected");
    }
  }
}
