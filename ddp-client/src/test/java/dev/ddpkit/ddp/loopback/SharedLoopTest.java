package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.PATIENCE;
import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.CollectionListener;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.ddp.testserver.ServerSubscription;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The default event loop on the JVM's shared pool, on real sockets: no thread of the client's own
 * (the socket's two while connected, none once closed; the fixture fails a test that leaves one),
 * frames and timers handled on the pool's threads, listeners that call the client queued rather
 * than run inside, a blocking listener holding back its own client only, and the reconnect
 * sequence (login hook, same subscription id, resync). Until issue 11 these tests ran with {@code
 * directExecution()}, which the shared pool replaced.
 */
@Timeout(value = 60, unit = SECONDS)
class SharedLoopTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Test
  void reconnectsLogsInAndResubscribesWithOnlyTheSocketsTwoThreads() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.onMethodReturn("login", params -> TextNode.valueOf("user-1"));
      server.publish("items", sub -> {
        sub.added("items", "a", doc("a"));
        sub.ready();
      });
      Loopback.Client c = lb.client(server.uri());
      List<String> listenerThreads = new CopyOnWriteArrayList<>();
      c.ddp.addReconnectHook(
          client -> client.call("login", List.of(Map.of("resume", "token-1")), CallOptions.WAIT));
      c.connected();
      Subscription sub = c.ddp.subscribe("items");
      sub.ready().get(PATIENCE.toSeconds(), SECONDS);
      c.ddp.collection("items").addListener(new CollectionListener() {
        @Override
        public void onAdded(String collection, String id, ObjectNode fields) {
          listenerThreads.add(Thread.currentThread().getName());
        }
      });

      assertThat(Loopback.threadsNamed(c.name))
          .as("a connected client: the socket's two threads, no loop thread")
          .containsExactlyInAnyOrder(c.name + "-ws-read", c.name + "-ws-write");
      Set<Thread> firstSocketThreads = threadsOf(c.name);
      String firstSession = server.connections().get(0).session();

      server.closeAbruptly();
      eventually().until(() -> c.ddp.stats().reconnects() == 1 && c.ddp.status().connected());
      eventually().until(() -> server.subscriptions().stream()
          .filter(s -> s.connection().id() == 2 && s.name().equals("items")).count() == 1);
      ServerSubscription revived = server.subscriptions().stream()
          .filter(s -> s.connection().id() == 2).findFirst().orElseThrow();
      assertThat(revived.id()).as("re-subscribed with its own id").isEqualTo(sub.id());
      assertThat(server.awaitFrame(f -> f.connectionId() == 2 && f.msg().equals("connect"),
              PATIENCE).json().path("session").asText())
          .as("the reconnect's connect carries the first session id").isEqualTo(firstSession);
      assertThat(server.count(dev.ddpkit.ddp.testserver.Counter.METHODS))
          .as("the login hook ran on the reconnect").isEqualTo(1);

      revived.added("items", "b", doc("b"));
      eventually().until(() -> c.ddp.collection("items").snapshot().containsKey("b"));
      eventually().until(() -> !listenerThreads.isEmpty());
      assertThat(listenerThreads).as("collection events on the shared pool's threads")
          .allMatch(t -> t.startsWith("ddpkit-loop-"));

      eventually().until(() -> firstSocketThreads.stream().noneMatch(Thread::isAlive));
      assertThat(Loopback.threadsNamed(c.name))
          .as("after the reconnect, still only the new socket's two threads")
          .containsExactlyInAnyOrder(c.name + "-ws-read", c.name + "-ws-write");
    }
  }

  @Test
  void closeFromAStreamListenerReturnsAtOnceAndLeavesNoThread()
      throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Loopback.Client c = lb.client(server.uri());
      AtomicReference<String> ranOn = new AtomicReference<>();
      AtomicLong closeNanos = new AtomicLong(-1);
      CompletableFuture<Void> closed = new CompletableFuture<>();
      c.ddp.addStreamListener("events", (collection, id, fields) -> {
        ranOn.set(Thread.currentThread().getName());
        long t0 = System.nanoTime();
        c.ddp.close();
        closeNanos.set(System.nanoTime() - t0);
        closed.complete(null);
      });
      c.connected();
      CompletableFuture<com.fasterxml.jackson.databind.JsonNode> pending = c.ddp.call("never");

      ObjectNode event = TestDdpServer.message("changed").put("collection", "events")
          .put("id", "e1");
      event.putObject("fields").put("eventName", "x");
      server.send(event);
      closed.get(PATIENCE.toSeconds(), SECONDS);

      assertThat(ranOn.get()).startsWith("ddpkit-loop-");
      assertThat(Duration.ofNanos(closeNanos.get()))
          .as("close() on the loop does not wait for the shutdown queued behind the listener")
          .isLessThan(Duration.ofSeconds(2));
      // The shutdown runs once the listener has returned.
      eventually().until(() -> c.ddp.status().state() == DdpStatus.State.OFFLINE);
      eventually().until(pending::isDone);
      assertThat(pending).isCompletedExceptionally();
      eventually().until(() -> Loopback.threadsNamed(c.name).isEmpty());
    }
  }

  @Test
  void awaitTerminationFromAnotherThreadWaitsForTheSocketThreads() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Loopback.Client c = lb.client(server.uri()).connected();
      assertThat(Loopback.threadsNamed(c.name)).hasSize(2);

      c.ddp.close();

      // No polling: awaitTermination() waited for the shutdown and for both socket threads.
      assertThat(c.ddp.awaitTermination(PATIENCE)).isTrue();
      assertThat(Loopback.threadsNamed(c.name)).isEmpty();
      assertThat(c.ddp.status().state()).isEqualTo(DdpStatus.State.OFFLINE);
    }
  }

  @Test
  void closeWhileAListenerRunsReturnsAtOnceAndAwaitTerminationOnceTheShutdownHasRun()
      throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      Loopback.Client c = lb.client(server.uri());
      java.util.concurrent.CountDownLatch inListener = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      c.ddp.addStreamListener("events", (collection, id, fields) -> {
        inListener.countDown();
        try {
          release.await(PATIENCE.toSeconds(), SECONDS); // a slow listener, released below
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      c.connected();
      ObjectNode event = TestDdpServer.message("changed").put("collection", "events")
          .put("id", "e1");
      event.putObject("fields").put("eventName", "x");
      server.send(event);
      assertThat(inListener.await(PATIENCE.toSeconds(), SECONDS)).isTrue();

      java.util.concurrent.atomic.AtomicBoolean closeReturned =
          new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicBoolean terminated =
          new java.util.concurrent.atomic.AtomicBoolean();
      Thread closer = new Thread(() -> {
        c.ddp.close();
        closeReturned.set(true);
        try {
          terminated.set(c.ddp.awaitTermination(PATIENCE));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "shared-loop-test-closer");
      closer.setDaemon(true);
      closer.start();
      // close() queued the shutdown behind the listener's frame and returned; awaitTermination()
      // waits for it to run.
      eventually().until(() -> closer.getState() == Thread.State.TIMED_WAITING
          || !closer.isAlive());
      assertThat(closeReturned).as("close() returned with the listener still running").isTrue();
      assertThat(closer.isAlive()).as("awaitTermination() still waiting").isTrue();
      assertThat(c.ddp.status().connected()).isTrue();

      release.countDown();
      closer.join(PATIENCE.toMillis());
      assertThat(closer.isAlive()).isFalse();
      assertThat(terminated).isTrue();
      assertThat(c.ddp.status().state()).isEqualTo(DdpStatus.State.OFFLINE);
      assertThat(Loopback.threadsNamed(c.name))
          .as("awaitTermination() returned after the socket threads ended").isEmpty();
    }
  }

  @Test
  void aHalfOpenSocketIsDroppedByTheHeartbeatOnALoopThreadThenRedialed()
      throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.onMethodReturn("echo", params -> params.get(0));
      Loopback.Client c = lb.client(server.uri());
      List<String> droppedOn = new CopyOnWriteArrayList<>();
      c.ddp.addStatusListener(s -> {
        if (!s.connected() && s.reason().contains("heartbeat")) {
          droppedOn.add(Thread.currentThread().getName());
        }
      });
      c.connected();

      server.blackhole(true);
      eventually().until(() -> c.ddp.stats().heartbeatTimeouts() == 1);
      eventually().until(() -> !droppedOn.isEmpty());
      assertThat(droppedOn.get(0))
          .as("the timeout's work, and the status listener, ran on the shared loop pool")
          .startsWith("ddpkit-loop-");

      server.blackhole(false);
      eventually().until(() -> c.ddp.stats().reconnects() == 1 && c.ddp.status().connected());
      assertThat(c.ddp.call("echo", "back").get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(TextNode.valueOf("back"));
      assertThat(Loopback.threadsNamed(c.name)).hasSize(2);
    }
  }

  private static Set<Thread> threadsOf(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(name + "-"))
        .collect(java.util.stream.Collectors.toSet());
  }

  private static ObjectNode doc(String id) {
    return NODES.objectNode().put("name", "item " + id);
  }
}
