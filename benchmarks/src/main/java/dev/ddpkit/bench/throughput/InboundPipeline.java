package dev.ddpkit.bench.throughput;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatClientBuilder;
import dev.ddpkit.chat.ChatLimits;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The inbound path of a real {@link ChatClient}, in memory: the client logs in to a {@link
 * StubServer} through its transport seam ({@link ChatClientBuilder#transportFactory}), joins its
 * rooms, and each pushed frame goes through everything a socket's frame goes through (the DDP
 * client's parse and dispatch, the chat client's message parser and per-room timeline
 * deduplicating by {@code _id}) to its listener, which hands the message to a sink.
 *
 * <p>Two ways to run: {@link #sameThread} runs the client's event loop on the caller's thread (the
 * CPU cost of one message, no hand-off), {@link #onDefaultLoop} on the client's default event loop
 * (the shared ddpkit-loop pool) as in production (the caller is the socket thread; {@link
 * #awaitDelivered} waits for the loop).
 */
public final class InboundPipeline implements AutoCloseable {
  /** How many ids a room's timeline remembers (the chat client's bound). */
  static final int MAX_SEEN_IDS = 10_000;

  private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

  private final StubServer server = new StubServer();
  private final ChatClient client;
  private final Consumer<ChatMessage> sink;
  // Written by the client's loop (one thread at a time), read by any.
  private volatile long delivered;
  private volatile Thread waiter;
  private volatile long waitingFor = Long.MAX_VALUE;

  private InboundPipeline(List<String> rooms, boolean sameThread, Consumer<ChatMessage> sink) {
    this.sink = sink;
    ChatClientBuilder b =
        ChatClient.builder()
            .url("ws://in-memory.invalid/websocket")
            .token("bench-token")
            .rooms(rooms)
            .historyLimit(0)
            .limits(ChatLimits.none())
            .heartbeatInterval(Duration.ofHours(1))
            .transportFactory(server)
            .name(sameThread ? "bench-inbound-inline" : "bench-inbound-loop")
            .listener(
                new ChatListener() {
                  @Override
                  public void onMessage(ChatMessage message) {
                    deliver(message);
                  }
                });
    if (sameThread) {
      b.executor(Runnable::run);
    }
    this.client = b.build();
  }

  /** A pipeline whose client runs every step on the thread that calls {@link #push}. */
  public static InboundPipeline sameThread(List<String> rooms, Consumer<ChatMessage> sink) {
    return new InboundPipeline(rooms, true, sink).start();
  }

  /** A pipeline whose client runs on the default event loop (the shared pool), as in production. */
  public static InboundPipeline onDefaultLoop(List<String> rooms, Consumer<ChatMessage> sink) {
    return new InboundPipeline(rooms, false, sink).start();
  }

  private InboundPipeline start() {
    client.start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (client.status().state() != ChatStatus.State.CONNECTED
        || client.joinedRooms().size() != client.rooms().size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not live within " + START_TIMEOUT + ": " + client);
      }
      LockSupport.parkNanos(1_000_000);
    }
    return this;
  }

  /** Hands one server frame to the client, as its socket would. */
  public void push(String frame) {
    server.push(frame);
  }

  /** Hands one server frame to the client as its UTF-8 bytes, as the WebSocket transport does. */
  public void pushUtf8(byte[] utf8) {
    server.pushUtf8(utf8);
  }

  /** Returns how many messages reached the sink. */
  public long delivered() {
    return delivered;
  }

  /** Returns how many stream events were not a well-formed message of a known room. */
  public long malformed() {
    return client.stats().malformed();
  }

  /** Returns the client's count of protocol errors (0 unless a frame was refused). */
  public long protocolErrors() {
    return client.connectionStats().protocolErrors();
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
    client.close();
  }

  private void deliver(ChatMessage m) {
    sink.accept(m);
    long n = delivered + 1; // one writer at a time: the client's loop
    delivered = n;
    if (n >= waitingFor) {
      Thread w = waiter;
      if (w != null) {
        LockSupport.unpark(w);
      }
    }
  }
}
