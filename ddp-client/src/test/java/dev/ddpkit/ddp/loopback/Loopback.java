package dev.ddpkit.ddp.loopback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpClientBuilder;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.ddp.testing.LiveThreads;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectStatus;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionFactory;

/**
 * A real-socket fixture on loopback: test servers, fault proxies and DDP clients made here are
 * closed by {@link #close()}, which then fails the test if a thread of any of them is left (the
 * clients' own and socket threads, the servers' and proxies' threads, and any Java-WebSocket client
 * thread still carrying the library's name).
 *
 * <p>The clients use a short but realistic configuration: the RFC-shaped curve scaled down ({@link
 * #BACKOFF}, +-25 %), stable after 1 s, a 400 ms heartbeat with a 500 ms timeout, a 1 s connect
 * timeout.
 */
final class Loopback implements AutoCloseable {
  static final Duration BACKOFF_BASE = Duration.ofMillis(100);
  static final Duration BACKOFF_CAP = Duration.ofSeconds(2);
  static final double JITTER = 0.25;
  static final Backoff BACKOFF = Backoff.proportional(BACKOFF_BASE, BACKOFF_CAP, JITTER);
  static final Duration HEARTBEAT = Duration.ofMillis(400);
  static final Duration HEARTBEAT_TIMEOUT = Duration.ofMillis(500);
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  /** Awaitility's limit: generous, the machine is loaded; what matters is asserted separately. */
  static final Duration PATIENCE = Duration.ofSeconds(15);

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final List<String> LIBRARY_CLIENT_THREADS =
      List.of("WebSocketConnectReadThread", "WebSocketWriteThread");

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  /** A thread named {@code n} or {@code n-...} for one of these belongs to the fixture. */
  private final List<String> threadOwners = new ArrayList<>();

  /** Awaitility with the fixture's patience and a short poll interval. */
  static ConditionFactory eventually() {
    return await().atMost(PATIENCE).pollInterval(Duration.ofMillis(10));
  }

  /** Starts a test server, stopped at {@link #close()}. */
  TestDdpServer server() {
    TestDdpServer s = TestDdpServer.builder().name("lb-server-" + IDS.incrementAndGet()).start();
    resources.push(s);
    threadOwners.add(s.name());
    return s;
  }

  /** Starts a fault proxy to {@code port}, closed at {@link #close()}. */
  FaultProxy proxy(int port) throws IOException {
    FaultProxy p = FaultProxy.forward(port);
    resources.push(p);
    threadOwners.add("fault-proxy");
    return p;
  }

  /**
   * Registers something else to close (before what was registered earlier), whose threads are
   * named {@code threadOwner} or {@code threadOwner-...}.
   */
  <T extends AutoCloseable> T closeLater(T resource, String threadOwner) {
    resources.push(resource);
    threadOwners.add(threadOwner);
    return resource;
  }

  /** A client of {@code uri} with the fixture's configuration, not connected yet. */
  Client client(URI uri) {
    return client(uri, b -> {});
  }

  /** A client of {@code uri}; {@code config} may change the builder's settings. */
  Client client(URI uri, Consumer<DdpClientBuilder> config) {
    Client c = new Client("lb-client-" + IDS.incrementAndGet(), uri, config);
    resources.push(c.ddp);
    threadOwners.add(c.name);
    return c;
  }

  /** Closes everything, newest first, then fails if a thread of any of it is left. */
  @Override
  public void close() throws Exception {
    Exception first = null;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
    // Closing waits for the threads; the short wait covers a thread between its last line and
    // its end.
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .untilAsserted(() -> assertThat(leftThreads()).as("threads left after close").isEmpty());
  }

  private List<String> leftThreads() {
    return LiveThreads.matching(n -> LIBRARY_CLIENT_THREADS.stream().anyMatch(n::startsWith)
        || threadOwners.stream().anyMatch(o -> n.equals(o) || n.startsWith(o + "-")));
  }

  /** Names of the live threads that start with {@code prefix}. */
  static Set<String> threadsNamed(String prefix) {
    return Set.copyOf(LiveThreads.startingWith(prefix));
  }

  /** A status as the listener saw it, with the {@link System#nanoTime()} it arrived at. */
  record Seen(long nanos, DdpStatus status) {}

  /** A DDP client with recorders of its statuses and of its reconnection manager's. */
  static final class Client {
    final String name;
    final DdpClient ddp;
    final ReconnectionManager manager;
    final List<Seen> statuses = new CopyOnWriteArrayList<>();
    final List<ReconnectStatus> attempts = new CopyOnWriteArrayList<>();

    private Client(String name, URI uri, Consumer<DdpClientBuilder> config) {
      this.name = name;
      DdpClientBuilder b =
          DdpClient.builder()
              .url(uri)
              .name(name)
              .reconnection(
                  ReconnectPolicy.builder()
                      .backoff(BACKOFF)
                      .closePolicy(ClosePolicy.ddp())
                      .stableAfter(Duration.ofSeconds(1))
                      .build())
              .heartbeatInterval(HEARTBEAT)
              .heartbeatTimeout(HEARTBEAT_TIMEOUT)
              .connectTimeout(CONNECT_TIMEOUT)
              .addStatusListener(s -> statuses.add(new Seen(System.nanoTime(), s)));
      config.accept(b);
      this.ddp = b.build();
      this.manager = ddp.reconnectionManager();
      manager.addListener(attempts::add);
    }

    /** Connects and waits until connected. */
    Client connected() {
      ddp.connect();
      awaitConnected();
      return this;
    }

    void awaitConnected() {
      eventually().until(() -> ddp.status().connected());
    }

    /** The highest attempt number the manager has reported so far. */
    int maxAttempt() {
      return attempts.stream().mapToInt(ReconnectStatus::attempt).max().orElse(0);
    }

    /** The manager's WAITING snapshots, in order. */
    List<ReconnectStatus> waits() {
      return attempts.stream()
          .filter(s -> s.state() == ReconnectionManager.State.WAITING)
          .collect(Collectors.toList());
    }
  }
}
