package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.PATIENCE;
import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.testing.LiveThreads;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11's target: two threads per idle client by default, without giving up ordering. Clients
 * built with the defaults share one small loop pool; each keeps its events in order; a listener
 * that blocks holds back its own client, not the others; {@code close()} still waits for the
 * socket's threads, even those of a dial the server never answered.
 */
@Timeout(value = 90, unit = SECONDS)
class SharedPoolThreadsTest {
  private static final String POOL = "ddpkit-loop-";
  private static final int CLIENTS = 50;

  @Test
  void fiftyDefaultClientsCostTheirSocketsTwoThreadsEachPlusTheSharedPool() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      DdpClient first = lb.client(server.uri()).connected().ddp; // starts the shared threads
      first.close();
      assertThat(first.awaitTermination(PATIENCE)).isTrue();
      Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());

      List<Loopback.Client> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        Loopback.Client c = lb.client(server.uri());
        c.ddp.connect();
        clients.add(c);
      }
      eventually().until(() -> clients.stream().allMatch(c -> c.ddp.status().connected()));

      List<String> added = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.isAlive() && !before.contains(t))
          .map(Thread::getName)
          .filter(n -> !n.startsWith(server.name()) && !n.startsWith("awaitility"))
          .collect(Collectors.toList());
      for (Loopback.Client c : clients) {
        assertThat(added.stream().filter(n -> n.startsWith(c.name + "-")))
            .as("%s's threads", c.name)
            .containsExactlyInAnyOrder(c.name + "-ws-read", c.name + "-ws-write");
        assertThat(added).as("no loop thread of its own").doesNotContain(c.name);
      }
      List<String> others = added.stream()
          .filter(n -> clients.stream().noneMatch(c -> n.startsWith(c.name + "-")))
          .collect(Collectors.toList());
      assertThat(others).as("besides the sockets' threads, only the shared pool's")
          .allMatch(n -> n.startsWith(POOL));
      assertThat(LiveThreads.startingWith(POOL).size())
          .as("the shared pool stays small").isBetween(1, Math.max(2,
              Runtime.getRuntime().availableProcessors()));
    }
  }

  @Test
  void eachClientsEventsKeepTheirOrderOnTheSharedPool() throws Exception {
    int events = 300;
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      List<List<Integer>> seen = new ArrayList<>();
      List<Loopback.Client> clients = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        List<Integer> mine = new CopyOnWriteArrayList<>();
        seen.add(mine);
        Loopback.Client c = lb.client(server.uri());
        c.ddp.addStreamListener("events",
            (collection, id, fields) -> mine.add(fields.path("n").asInt()));
        clients.add(c.connected());
      }

      for (int n = 0; n < events; n++) {
        server.send(event(n));
      }

      eventually().until(() -> seen.stream().allMatch(l -> l.size() == events));
      List<Integer> expected = IntStream.range(0, events).boxed().collect(Collectors.toList());
      for (List<Integer> l : seen) {
        assertThat(l).as("one client's events, in the order sent").isEqualTo(expected);
      }
    }
  }

  @Test
  void aBlockingListenerHoldsBackItsOwnClientOnly() throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      CountDownLatch blocked = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      List<Integer> slow = new CopyOnWriteArrayList<>();
      List<Integer> fast = new CopyOnWriteArrayList<>();
      Loopback.Client a = lb.client(server.uri());
      a.ddp.addStreamListener("events", (collection, id, fields) -> {
        slow.add(fields.path("n").asInt());
        blocked.countDown();
        try {
          release.await(PATIENCE.toSeconds(), SECONDS); // a listener that blocks
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      Loopback.Client b = lb.client(server.uri());
      b.ddp.addStreamListener("events", (collection, id, fields) -> fast.add(fields.path("n").asInt()));
      a.connected();
      b.connected();

      server.send(event(0));
      assertThat(blocked.await(PATIENCE.toSeconds(), SECONDS)).isTrue();
      for (int n = 1; n <= 20; n++) {
        server.send(event(n));
      }

      eventually().until(() -> fast.size() == 21);
      assertThat(slow).as("the blocked client's later events wait behind its listener")
          .containsExactly(0);
      release.countDown();
      eventually().until(() -> slow.size() == 21);
      assertThat(slow).isEqualTo(fast);
    }
  }

  @Test
  void closeWaitsForTheSocketThreadsOfADialTheServerNeverAnswered() throws Exception {
    try (Loopback lb = new Loopback();
        ServerSocket mute = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new CopyOnWriteArrayList<>();
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            accepted.add(mute.accept()); // TCP accepted, the upgrade never answered
          }
        } catch (java.io.IOException e) {
          // closed at the end of the test
        }
      }, "mute-server");
      acceptor.setDaemon(true);
      acceptor.start();
      lb.closeLater(() -> {
        mute.close();
        for (Socket s : accepted) {
          s.close();
        }
      }, "mute-server");
      Loopback.Client c =
          lb.client(java.net.URI.create("ws://127.0.0.1:" + mute.getLocalPort() + "/websocket"));
      c.ddp.connect();
      // The reader is named by the transport; the writer keeps the library's name until the
      // server answers the upgrade, which this one never does.
      eventually().until(() -> !accepted.isEmpty()
          && !LiveThreads.startingWith("WebSocketWriteThread").isEmpty());

      c.ddp.close();

      // No polling: awaitTermination() waited for both socket threads.
      assertThat(c.ddp.awaitTermination(PATIENCE)).isTrue();
      assertThat(LiveThreads.startingWith(c.name)).isEmpty();
      assertThat(LiveThreads.startingWith("WebSocketWriteThread", "WebSocketConnectReadThread"))
          .isEmpty();
    }
  }

  private static ObjectNode event(int n) {
    ObjectNode e = TestDdpServer.message("changed").put("collection", "events")
        .put("id", "e" + n);
    e.putObject("fields").put("n", n);
    return e;
  }
}
