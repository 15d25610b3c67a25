package dev.ddpkit.bench.throughput;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.RoomTimeline;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The inbound path of a {@link ChatClient}, in memory: a real {@link DdpClient} on a {@link
 * StubServer} parses each frame and hands {@code stream-room-messages} events to the same steps
 * {@link ChatClient} takes for them (its {@code MessageParser}, one {@link RoomTimeline} per room
 * deduplicating by {@code _id}, an event queue drained outside the lock), then to a sink that
 * counts delivered messages.
 *
 * <p>Why not the {@link ChatClient} itself: it builds its {@link DdpClient} with the WebSocket
 * transport and offers no transport seam, so it cannot run without a socket. The steps below mirror
 * {@code ChatClient.onStreamEvent} (as of this commit) and call its package-private parser through a
 * method handle, so the parsing measured is the real one.
 *
 * <p>Two ways to run: {@link #sameThread} runs the client's event loop on the caller's thread (the
 * CPU cost of one message, no hand-off), {@link #ownThread} on the client's own thread as in
 * production (the caller is the socket thread; {@link #awaitDelivered} waits for the loop).
 */
public final class InboundPipeline implements AutoCloseable {
  /** The same limits as {@code ChatClient}'s timelines. */
  static final int MAX_SEEN_IDS = 10_000;

  static final int MAX_HELD = 10_000;

  private static final MethodHandle PARSE = parser();

  private final StubServer server = new StubServer();
  private final DdpClient ddp;
  private final Consumer<ChatMessage> sink;
  private final Object lock = new Object();
  // Guarded by lock.
  private final Map<String, RoomTimeline> timelines = new HashMap<>();
  private final ArrayDeque<Runnable> events = new ArrayDeque<>();
  private boolean draining;
  private long malformed;
  // Written by the one thread that drains, read by any.
  private volatile long delivered;
  private volatile Thread waiter;
  private volatile long waitingFor = Long.MAX_VALUE;

  private InboundPipeline(List<String> rooms, boolean sameThread, Consumer<ChatMessage> sink) {
    this.sink = sink;
    for (String rid : rooms) {
      timelines.put(rid, new RoomTimeline(rid, MAX_SEEN_IDS, MAX_HELD));
    }
    DdpClient.Builder b =
        DdpClient.builder()
            .url("ws://in-memory.invalid/websocket")
            .name(sameThread ? "bench-inbound-inline" : "bench-inbound-loop")
            .transportFactory(server)
            .heartbeatInterval(Duration.ZERO)
            .reconnection(
                ReconnectionManager.builder().backoff(Backoff.fixed(Duration.ofSeconds(1))).build());
    if (sameThread) {
      b.executor(Runnable::run);
    }
    this.ddp = b.build();
    ddp.onStreamEvent(ChatClient.STREAM, (collection, id, fields) -> onStreamEvent(fields));
  }

  /** A pipeline whose client runs every step on the thread that calls {@link #push}. */
  public static InboundPipeline sameThread(List<String> rooms, Consumer<ChatMessage> sink) {
    return new InboundPipeline(rooms, true, sink).start();
  }

  /** A pipeline whose client runs on its own event-loop thread, as in production. */
  public static InboundPipeline ownThread(List<String> rooms, Consumer<ChatMessage> sink) {
    return new InboundPipeline(rooms, false, sink).start();
  }

  private InboundPipeline start() {
    ddp.connect();
    List<Subscription> subs = new ArrayList<>();
    for (String rid : timelines.keySet()) {
      subs.add(ddp.subscribe(ChatClient.STREAM, rid, Map.of("useCollection", false, "args", List.of())));
    }
    for (Subscription s : subs) {
      s.ready().orTimeout(10, TimeUnit.SECONDS).join();
    }
    return this;
  }

  /** Hands one server frame to the client, as its socket would. */
  public void push(String frame) {
    server.push(frame);
  }

  /** Returns how many messages reached the sink. */
  public long delivered() {
    return delivered;
  }

  /** Returns how many stream events were not a well-formed message of a known room. */
  public long malformed() {
    synchronized (lock) {
      return malformed;
    }
  }

  /** Returns the client's count of protocol errors (0 unless a frame was refused). */
  public long protocolErrors() {
    return ddp.stats().protocolErrors();
  }

  /**
   * Waits until {@link #delivered()} reaches {@code count}.
   *
   * @throws IllegalStateException if it does not within {@code timeout}
   */
  public void awaitDelivered(long count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    waiter = Thread.currentThread();
    waitingFor = count;
    try {
      while (delivered < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(
              "delivered " + delivered + " of " + count + " within " + timeout);
        }
        LockSupport.parkNanos(this, left);
      }
    } finally {
      waitingFor = Long.MAX_VALUE;
      waiter = null;
    }
  }

  @Override
  public void close() {
    ddp.close();
  }

  // ---- the steps of ChatClient.onStreamEvent ----

  private void onStreamEvent(ObjectNode fields) {
    JsonNode eventName = fields.get("eventName");
    JsonNode args = fields.get("args");
    String rid = eventName != null && eventName.isTextual() ? eventName.textValue() : null;
    Optional<ChatMessage> parsed =
        args != null && args.isArray() && args.size() > 0
            ? parse(args.get(0), rid)
            : Optional.empty();
    synchronized (lock) {
      if (parsed.isEmpty() || rid == null || !rid.equals(parsed.get().rid())) {
        malformed++;
        return;
      }
      RoomTimeline t = timelines.get(rid);
      if (t == null) {
        return;
      }
      for (ChatMessage m : t.offerLive(parsed.get())) {
        events.add(() -> deliver(m));
      }
    }
    drain();
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (lock) {
        if (draining || events.isEmpty()) {
          return;
        }
        draining = true;
        next = events.poll();
      }
      try {
        next.run();
      } finally {
        synchronized (lock) {
          draining = false;
        }
      }
    }
  }

  private void deliver(ChatMessage m) {
    sink.accept(m);
    long n = delivered + 1; // one writer: the thread that drains
    delivered = n;
    if (n >= waitingFor) {
      Thread w = waiter;
      if (w != null) {
        LockSupport.unpark(w);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Optional<ChatMessage> parse(JsonNode doc, String rid) {
    try {
      return (Optional<ChatMessage>) PARSE.invokeExact(doc, rid);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private static MethodHandle parser() {
    try {
      Class<?> c = Class.forName("dev.ddpkit.chat.MessageParser");
      Method m = c.getDeclaredMethod("parse", JsonNode.class, String.class);
      m.setAccessible(true);
      return MethodHandles.lookup()
          .unreflect(m)
          .asType(MethodType.methodType(Optional.class, JsonNode.class, String.class));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("ChatClient's MessageParser.parse(JsonNode, String) moved", e);
    }
  }
}
