package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.ddp.testing.LiveThreads;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** close(): everything pending fails, nothing runs afterwards, no thread is left. */
@Timeout(value = 30, unit = SECONDS)
class CloseTest {

  @Test
  void closeFailsPendingCallsAndSubscriptionsAndClosesTheSocket() {
    Harness h = new Harness();
    ServerEnd s = h.connect("s1");
    CompletableFuture<JsonNode> sent = h.client.call("a");
    CompletableFuture<JsonNode> held = h.client.call("b", java.util.List.of(), CallOptions.WAIT);
    Subscription sub = h.client.subscribe("c");

    h.client.close();

    assertThat(failure(sent, DdpException.class)).hasMessageContaining("closed");
    failure(held, DdpException.class);
    failure(sub.ready(), DdpException.class);
    assertThat(s.closedByClient()).isTrue();
    assertThat(s.clientCloseCode()).isEqualTo(1000);
    assertThat(h.client.status().state()).isEqualTo(DdpStatus.State.OFFLINE);
    failure(h.client.call("after"), DdpException.class);
    failure(h.client.subscribe("after").ready(), DdpException.class);
    assertThatThrownBy(h.client::connect).isInstanceOf(IllegalStateException.class);
    h.time.advance(java.time.Duration.ofMinutes(5));
    assertThat(h.net.count()).isEqualTo(1);
    h.client.close(); // idempotent
  }

  @Test
  void closeLeavesNoThreadBehindAndTheClientNeverHadOneOfItsOwn() throws Exception {
    List<String> before = threadNames();
    VirtualScheduler time = new VirtualScheduler();
    InMemoryTransportFactory net = new InMemoryTransportFactory();
    DdpClient client =
        DdpClient.builder()
            .url(Harness.URL)
            .name("close-test-client")
            .reopen(java.time.Duration.ofSeconds(1))
            .scheduler(time)
            .transportFactory(net)
            .build();
    client.connect();
    // Issue 11: the loop runs on the shared pool (until then: a thread named after the client).
    assertThat(threadNames()).doesNotContain("close-test-client");
    CompletableFuture<JsonNode> call = client.call("x");
    Subscription sub = client.subscribe("y");

    client.close();

    assertThat(client.awaitTermination(Duration.ofSeconds(10))).isTrue();
    assertThat(threadNames()).doesNotContain("close-test-client");
    assertThat(threadNames()).as("new threads: only the shared pool's, which serves every client")
        .allMatch(n -> before.contains(n) || n.startsWith(LoopPool.THREAD_PREFIX));
    assertThatThrownBy(() -> call.get(5, SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(DdpException.class);
    assertThatThrownBy(() -> sub.ready().get(5, SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(DdpException.class);
  }

  @Test
  void closeFromAListenerOnTheLoopDoesNotDeadlock() throws Exception {
    VirtualScheduler time = new VirtualScheduler();
    InMemoryTransportFactory net = new InMemoryTransportFactory();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    DdpClient[] holder = new DdpClient[1];
    DdpClient client =
        DdpClient.builder()
            .url(Harness.URL)
            .name("close-in-listener")
            .reopen(java.time.Duration.ofSeconds(1))
            .scheduler(time)
            .transportFactory(net)
            .addStatusListener(st -> {
              if (st.state() == DdpStatus.State.CONNECTED) {
                holder[0].close();
                closed.complete(null);
              }
            })
            .build();
    holder[0] = client;
    client.connect();
    // Play the server from the test thread; the client works on the shared pool.
    ServerEnd s = awaitDial(client, net);
    s.open();
    s.send("{'msg':'connected','session':'s1'}");
    closed.get(5, SECONDS);
    client.close(); // closed already: nothing more to do
    assertThat(client.awaitTermination(Duration.ofSeconds(10))).isTrue();
    assertThat(threadNames()).doesNotContain("close-in-listener");
    assertThat(client.status().state()).isEqualTo(DdpStatus.State.OFFLINE);
  }

  @Test
  void closeReturnsAtOnceWhileTheLoopIsBusyAndAwaitTerminationSaysWhenItIsDone() throws Exception {
    VirtualScheduler time = new VirtualScheduler();
    InMemoryTransportFactory net = new InMemoryTransportFactory();
    DdpClient client =
        DdpClient.builder()
            .url(Harness.URL)
            .name("close-busy-loop")
            .reopen(Duration.ofSeconds(1))
            .scheduler(time)
            .transportFactory(net)
            .build();
    client.connect();
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    client.execute(() -> {
      busy.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertThat(busy.await(10, SECONDS)).isTrue();
    CompletableFuture<JsonNode> call = client.call("x");

    client.close(); // the loop is held by the task above: close() must not wait for it

    assertThat(client.awaitTermination(Duration.ofMillis(50))).as("still busy").isFalse();
    assertThat(call).isNotDone();
    release.countDown();
    assertThat(client.awaitTermination(Duration.ofSeconds(10))).isTrue();
    assertThat(threadNames()).doesNotContain("close-busy-loop");
    failure(call, DdpException.class);
  }

  @Test
  void awaitTerminationFromAListenerIsRefusedSinceItWouldWaitForItself() {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    DdpClient[] holder = new DdpClient[1];
    try (Harness h = new Harness(b -> b.addStatusListener(st -> {
      if (st.connected()) {
        try {
          holder[0].awaitTermination(Duration.ofSeconds(1));
        } catch (InterruptedException | RuntimeException e) {
          thrown.compareAndSet(null, e);
        }
      }
    }))) {
      holder[0] = h.client;
      h.connect("s1");
    }
    assertThat(thrown.get())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("event loop");
  }

  private static ServerEnd awaitDial(DdpClient client, InMemoryTransportFactory net)
      throws Exception {
    // The first barrier runs after connect()'s task, which queued the dial; the second after it.
    client.checkHealth().get(5, SECONDS);
    client.checkHealth().get(5, SECONDS);
    return net.last();
  }

  private static List<String> threadNames() {
    return LiveThreads.matching(name -> true);
  }
}
