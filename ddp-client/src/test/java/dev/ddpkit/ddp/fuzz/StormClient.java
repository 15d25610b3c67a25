package dev.ddpkit.ddp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.CollectionListener;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpClientBuilder;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;

/**
 * A DDP client on the in-memory transport and virtual time, with pending calls, live
 * subscriptions, a stored collection and a stream, that a fuzz test feeds with hostile frames and
 * events. It keeps every future it made, and the error lines the client logged, for the checks at
 * the end.
 */
final class StormClient implements AutoCloseable {
  static final List<String> DOC_IDS = List.of("d1", "d2", "d3");

  final VirtualScheduler time = new VirtualScheduler();
  final InMemoryTransportFactory net = new InMemoryTransportFactory();
  final DdpClient client;
  final List<CompletableFuture<?>> futures = new ArrayList<>();
  final List<String> callIds = new ArrayList<>();
  final List<Subscription> subs = new ArrayList<>();
  final AtomicLong streamEvents = new AtomicLong();
  final AtomicLong collectionEvents = new AtomicLong();
  private final ListAppender<ILoggingEvent> errors = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger("dev.ddpkit.ddp");
  private final Level levelBefore;
  private long frames;

  /**
   * A client whose loop runs on {@code executor} ({@code Runnable::run}: the test thread), or on
   * its own thread named {@code name} if {@code executor} is null.
   */
  StormClient(String name, Executor executor) {
    this(name, executor, /* strict= */ false);
  }

  /** As {@link #StormClient(String, Executor)}, reading frames strictly if {@code strict}. */
  StormClient(String name, Executor executor, boolean strict) {
    DdpClientBuilder b =
        DdpClient.builder()
            .url("ws://localhost:3000/websocket")
            .name(name)
            .reconnection(ReconnectPolicy.builder().backoff(Backoff.fixed(Duration.ofSeconds(1)))
                .stableAfter(Duration.ofSeconds(10)).build())
            .scheduler(time)
            .transportFactory(net)
            .maxFrameBytes(256 * 1024)
            .strictProtocol(strict);
    if (executor != null) {
      b.executor(executor);
    }
    client = b.build();
    errors.setName("storm-errors");
    errors.start();
    // The storm makes thousands of protocol-error warnings on purpose; only errors matter here.
    levelBefore = logger.getLevel();
    logger.setLevel(Level.ERROR);
    logger.addAppender(errors);
    client.addStreamListener(FrameGen.STREAM, (c, id, fields) -> streamEvents.incrementAndGet());
    client.collection(FrameGen.DOCS).addListener(new CollectionListener() {
      @Override
      public void onAdded(String collection, String id, ObjectNode f) {
        collectionEvents.incrementAndGet();
      }

      @Override
      public void onRemoved(String collection, String id) {
        collectionEvents.incrementAndGet();
      }
    });
  }

  /** Connects and sets up two calls, two subscriptions (one ready) and two documents. */
  void setUp() {
    client.connect();
    ServerEnd s = net.last().open();
    s.send("{'msg':'connected','session':'s0'}");
    call(CallOptions.DEFAULT);
    call(CallOptions.DEFAULT.withNoRetry(true));
    subscribe();
    subscribe();
    s.sendRaw("{\"msg\":\"ready\",\"subs\":[\"" + subs.get(0).id() + "\"]}");
    s.sendRaw("{\"msg\":\"added\",\"collection\":\"docs\",\"id\":\"d1\",\"fields\":{\"a\":1}}");
    s.sendRaw("{\"msg\":\"added\",\"collection\":\"docs\",\"id\":\"d2\",\"fields\":{\"b\":2}}");
  }

  /** Makes a call and keeps its future. */
  void call(CallOptions options) {
    futures.add(client.call("m", List.of(1), options));
    callIds.add(String.valueOf(callIds.size() + 1));
  }

  /** Subscribes and keeps the subscription. */
  void subscribe() {
    Subscription s = client.subscribe("pub", 1);
    subs.add(s);
    futures.add(s.ready());
  }

  /** Asks for a health check and keeps its future. */
  void checkHealth() {
    futures.add(client.checkHealth());
  }

  /** Replaces the id placeholders of a generated frame with ids the client knows. */
  String resolve(String frame, int pick) {
    if (frame.indexOf('$') < 0) {
      return frame;
    }
    String mid = callIds.isEmpty() ? "999" : callIds.get(pick % callIds.size());
    String sub = subs.isEmpty() ? "nosuch" : subs.get(pick % subs.size()).id();
    return frame
        .replace(FrameGen.MID, mid)
        .replace(FrameGen.SUB, sub)
        .replace(FrameGen.DOC, DOC_IDS.get(pick % DOC_IDS.size()));
  }

  /** Sends a frame on the latest connection, as the server. */
  void frame(String text) {
    frames++;
    net.last().sendRaw(text);
  }

  /** Sends a frame on an earlier connection: the client must ignore it. */
  void frameOnOld(String text, int pick) {
    frames++;
    List<ServerEnd> all = net.connections();
    all.get(pick % all.size()).sendRaw(text);
  }

  /** Returns how many frames were pushed. */
  long frames() {
    return frames;
  }

  /** Returns the ERROR lines logged by the client so far, formatted. */
  List<String> errorLines() {
    List<String> out = new ArrayList<>();
    for (ILoggingEvent e : new CopyOnWriteArrayList<>(errors.list)) {
      if (e.getLevel().isGreaterOrEqual(Level.ERROR)) {
        out.add(e.getFormattedMessage()
            + (e.getThrowableProxy() == null ? "" : ": " + e.getThrowableProxy().getMessage()));
      }
    }
    return out;
  }

  /**
   * After the storm: brings the client to a fresh connection (restarting it if it failed for
   * good), makes a call and answers it. The call must round-trip. Runs on virtual time; the
   * client's loop must be {@code Runnable::run}.
   */
  void assertStillWorks() {
    int before = net.count();
    if (net.count() > 0) {
      net.last().closeFromServer(1006, "storm over");
    }
    for (int i = 0; i < 600 && net.count() == before; i++) {
      if (client.status().state() == DdpStatus.State.FAILED
          || client.status().state() == DdpStatus.State.OFFLINE) {
        client.connect();
      }
      if (net.count() == before) {
        time.advance(Duration.ofSeconds(1));
      }
    }
    assertThat(net.count()).as("the client dials again after the storm").isGreaterThan(before);
    ServerEnd s = net.last().open();
    List<JsonNode> sent = s.drain();
    assertThat(sent).as("frames after open").isNotEmpty();
    assertThat(sent.get(0).path("msg").asText()).isEqualTo("connect");
    s.send("{'msg':'connected','session':'after'}");
    CompletableFuture<JsonNode> f = client.call("afterStorm", "x");
    futures.add(f);
    // Calls from the storm go out again first (a wait call holds the later ones, so each wait
    // call takes a round of its own): answer them all, as long as the client sends new ones.
    boolean progress = true;
    for (int round = 0; round < 10_000 && progress && !f.isDone(); round++) {
      progress = false;
      for (JsonNode n : s.drain()) {
        if (n.path("msg").asText().equals("method")) {
          progress = true;
          String id = n.path("id").asText();
          String result = n.path("method").asText().equals("afterStorm") ? "\"pong\"" : "0";
          s.sendRaw("{\"msg\":\"result\",\"id\":\"" + id + "\",\"result\":" + result + "}");
          s.sendRaw("{\"msg\":\"updated\",\"methods\":[\"" + id + "\"]}");
        }
      }
    }
    assertThat(f).as("the call after the storm").isCompleted();
    assertThat(f.join().asText()).isEqualTo("pong");
    assertThat(client.status().connected()).isTrue();
  }

  /** Asserts that every future made is complete (call after {@link #close()}). */
  void assertEveryFutureComplete() {
    for (CompletableFuture<?> f : futures) {
      assertThat(f).as("a future the test made").isDone();
    }
  }

  @Override
  public void close() {
    try {
      client.close();
      // The shutdown runs on the client's loop (its own thread here, or the test thread): wait
      // for it, so that every future it fails is complete when this returns.
      if (!client.awaitTermination(Duration.ofSeconds(10))) {
        throw new AssertionError(client.name() + " did not shut down within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while closing " + client.name(), e);
    } finally {
      logger.detachAppender(errors);
      logger.setLevel(levelBefore);
      errors.stop();
    }
  }
}
