package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.BACKOFF_BASE;
import static dev.ddpkit.ddp.loopback.Loopback.BACKOFF_CAP;
import static dev.ddpkit.ddp.loopback.Loopback.JITTER;
import static dev.ddpkit.ddp.loopback.Loopback.PATIENCE;
import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.ddp.testserver.ServerSubscription;
import dev.ddpkit.ddp.testserver.SilentServer;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import dev.ddpkit.reconnect.ReconnectStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Network faults between the client and the server, through a {@link FaultProxy}, and servers that
 * never finish the handshake: the client reconnects and resynchronises, or keeps backing off along
 * its curve (+-25 % around 100 ms, 200 ms, 400 ms, ... capped at 2 s) with a growing attempt count.
 */
@Timeout(value = 30, unit = SECONDS)
class FaultScenariosTest {
  /** Short, so that several hung attempts fit in a second or two. */
  private static final Duration SHORT_CONNECT_TIMEOUT = Duration.ofMillis(300);

  @Test
  void frameCutInTheMiddleMakesTheClientReconnectAndResync() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Map<String, ObjectNode> items = new ConcurrentHashMap<>();
      items.put("a", doc("small"));
      AtomicReference<ServerSubscription> live = new AtomicReference<>();
      server.publish("items", sub -> {
        items.forEach((id, fields) -> sub.added("items", id, fields));
        sub.ready();
        live.set(sub);
      });
      FaultProxy proxy = lb.proxy(server.port());
      Loopback.Client c = lb.client(Proxied.uri(proxy)).connected();
      Subscription sub = c.ddp.subscribe("items");
      sub.ready().get(PATIENCE.toSeconds(), SECONDS);

      ObjectNode big = doc("x".repeat(64 * 1024));
      items.put("big", big);
      assertThat(proxy.cutMidFrame()).isEqualTo(1);
      live.get().added("items", "big", big);

      // isReady() stays true through a reconnect: wait for the resynchronised store instead.
      eventually().until(() -> c.ddp.collection("items").snapshot().containsKey("big"));
      assertThat(c.ddp.stats().reconnects()).isEqualTo(1);
      Map<String, ObjectNode> shown = c.ddp.collection("items").snapshot();
      assertThat(shown.keySet()).containsExactlyInAnyOrder("a", "big");
      assertThat(shown.get("a")).isEqualTo(doc("small"));
      assertThat(shown.get("big").equals(big)).as("the big document, whole").isTrue();
      assertThat(sub.ended()).isNotDone();
    }
  }

  @Test
  void connectionResetMakesTheClientReconnect() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.onMethodReturn("echo", params -> params.get(0));
      FaultProxy proxy = lb.proxy(server.port());
      Loopback.Client c = lb.client(Proxied.uri(proxy)).connected();

      assertThat(proxy.reset()).isEqualTo(1);

      eventually().until(() -> c.ddp.stats().reconnects() == 1 && c.ddp.status().connected());
      assertThat(c.ddp.call("echo", "again").get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(TextNode.valueOf("again"));
      assertThat(c.statuses).extracting(s -> s.status().reason())
          .anyMatch(r -> r.contains("1006"));
    }
  }

  @Test
  void serverThatAcceptsButNeverAnswersTheUpgradeTimesOutAndBackoffGoesOn() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      FaultProxy proxy = lb.proxy(server.port());
      proxy.mode(FaultProxy.Mode.HANG_ON_ACCEPT);
      Loopback.Client c =
          lb.client(Proxied.uri(proxy), b -> b.connectTimeout(SHORT_CONNECT_TIMEOUT));

      c.ddp.connect();

      eventually().until(() -> c.maxAttempt() >= 3);
      assertThat(c.ddp.stats().connectTimeouts()).isGreaterThanOrEqualTo(3);
      assertThat(proxy.acceptedConnections()).isGreaterThanOrEqualTo(3);
      assertThat(server.count(dev.ddpkit.ddp.testserver.Counter.OPENED)).isZero();
      assertDelaysFollowTheCurve(c.waits());
      assertThat(c.ddp.status().state()).isNotEqualTo(DdpStatus.State.CONNECTED);

      proxy.mode(FaultProxy.Mode.PASS);
      c.awaitConnected();
    }
  }

  @Test
  void serverThatUpgradesButNeverSaysConnectedTimesOutAndBackoffGoesOn() throws Exception {
    try (Loopback lb = new Loopback()) {
      SilentServer silent = SilentServer.launch("lb-silent");
      lb.closeLater(silent, silent.name());
      Loopback.Client c = lb.client(silent.uri(), b -> b.connectTimeout(SHORT_CONNECT_TIMEOUT));

      c.ddp.connect();

      // Under load a dial can time out before its upgrade reaches the silent server (then it is
      // not a DDP connect timeout): wait for three of each rather than for the third attempt.
      eventually().until(() -> c.maxAttempt() >= 3 && silent.upgrades() >= 3
          && silent.connectFrames() >= 3 && c.ddp.stats().connectTimeouts() >= 3);
      assertThat(silent.upgrades()).as("the WebSocket opened every time")
          .isGreaterThanOrEqualTo(3);
      assertThat(silent.connectFrames()).isGreaterThanOrEqualTo(3);
      assertThat(c.ddp.stats().connectTimeouts()).isGreaterThanOrEqualTo(3);
      assertDelaysFollowTheCurve(c.waits());
      assertThat(c.ddp.status().state()).isNotEqualTo(DdpStatus.State.CONNECTED);
    }
  }

  @Test
  void refusedDialsLeaveTheClientWaitingWithGrowingAttemptsUntilTheServerIsBack()
      throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.onMethodReturn("echo", params -> params.get(0));
      FaultProxy proxy = lb.proxy(server.port());
      proxy.mode(FaultProxy.Mode.REFUSE);
      Loopback.Client c = lb.client(Proxied.uri(proxy));

      c.ddp.connect();

      eventually().until(() -> c.maxAttempt() >= 3);
      List<Integer> waitingRetries = c.statuses.stream()
          .map(Loopback.Seen::status)
          .filter(s -> s.state() == DdpStatus.State.WAITING)
          .map(DdpStatus::attempt)
          .collect(Collectors.toList());
      assertThat(waitingRetries).startsWith(1, 2, 3).isSorted();
      assertThat(c.ddp.stats().connectTimeouts()).as("refused fast, not timed out").isZero();
      assertThat(proxy.refusedConnections()).isGreaterThanOrEqualTo(3);
      assertDelaysFollowTheCurve(c.waits());

      proxy.mode(FaultProxy.Mode.PASS);
      c.awaitConnected();
      assertThat(c.ddp.call("echo", "in").get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(TextNode.valueOf("in"));
    }
  }

  @Test
  void hundredMillisecondsOfLatencyEachWayChangeNothing() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.onMethodReturn("echo", params -> params.get(0));
      server.publish("items", sub -> {
        sub.added("items", "a", doc("a"));
        sub.ready();
      });
      FaultProxy proxy = lb.proxy(server.port());
      proxy.latency(Duration.ofMillis(100));
      Loopback.Client c = lb.client(Proxied.uri(proxy)).connected();
      Subscription sub = c.ddp.subscribe("items");

      sub.ready().get(PATIENCE.toSeconds(), SECONDS);
      assertThat(c.ddp.call("echo", "slowly").get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(TextNode.valueOf("slowly"));
      // Longer than the heartbeat's interval plus its timeout: pings answered 200 ms late are fine.
      long until = System.nanoTime() + Duration.ofMillis(1200).toNanos();
      eventually().until(() -> System.nanoTime() >= until);
      assertThat(c.ddp.stats().heartbeatTimeouts()).isZero();
      assertThat(proxy.reset()).isEqualTo(1);
      eventually().until(() -> c.ddp.stats().reconnects() == 1
          && server.subscriptions().size() == 1
          && server.subscriptions().get(0).connection().id() > 1);
      assertThat(c.ddp.collection("items").snapshot()).containsOnlyKeys("a");
      assertThat(c.ddp.call("echo", "still").get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(TextNode.valueOf("still"));
    }
  }

  /** Attempts 1, 2, 3, ... each waited +-25 % around min(2 s, 100 ms * 2^(n-1)). */
  private static void assertDelaysFollowTheCurve(List<ReconnectStatus> waits) {
    assertThat(waits).hasSizeGreaterThanOrEqualTo(3);
    for (int i = 0; i < waits.size(); i++) {
      ReconnectStatus w = waits.get(i);
      assertThat(w.attempt()).as("attempt of wait #%d", i).isEqualTo(i + 1);
      long nominal = Math.min(BACKOFF_CAP.toMillis(), BACKOFF_BASE.toMillis() << (w.attempt() - 1));
      assertThat(w.delay().toMillis())
          .as("delay before attempt %d", w.attempt())
          .isBetween((long) Math.floor(nominal * (1 - JITTER)),
              (long) Math.ceil(nominal * (1 + JITTER)));
    }
  }

  private static ObjectNode doc(String value) {
    ObjectNode n = (ObjectNode) TestDdpServer.json("{}");
    n.put("v", value);
    return n;
  }
}
