package dev.ddpkit.bench.throughput;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.protocol.DdpMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Inbound throughput in memory: frames per second through the DDP parser alone, and through the
 * whole inbound path of a chat client ({@link InboundPipeline}: DDP parse and dispatch, message
 * parse, deduplication by {@code _id}, delivery), on the caller's thread and on the client's own
 * event loop. One operation is one frame; the {@code delivered} counter is the messages that
 * reached the application, per second (frames minus the repeats dropped by deduplication).
 *
 * <p>The frames: {@value #UNIQUE} messages over {@value #ROOMS} rooms, 2 % of them sent twice
 * ({@link MessageMix}), replayed in a loop, each as its UTF-8 bytes (as the WebSocket transport
 * hands them to the client, which parses them without making a string). Each room sees more distinct ids per lap than its
 * timeline remembers ({@value InboundPipeline#MAX_SEEN_IDS}), so every lap's messages are new
 * again and only the repeats are dropped, as in a long-running client.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class InboundBenchmark {
  /** Distinct messages in the replayed stream. */
  public static final int UNIQUE = 100_000;

  /** Rooms the messages are spread over. */
  public static final int ROOMS = 8;

  /** Frames per benchmark invocation. */
  public static final int BATCH = 1_000;

  /** The frames, shared by every state of a fork. */
  @State(Scope.Benchmark)
  public static class Frames {
    MessageMix mix;
    /** Each frame as its UTF-8 bytes: what the WebSocket transport hands the client. */
    List<byte[]> frames;
    int cursor;

    /** Builds the mix once per fork. */
    @Setup(Level.Trial)
    public void build() {
      mix = MessageMix.generate(UNIQUE, ROOMS, 0.02, 42);
      frames = mix.frames().stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toList();
    }

    /** Returns the index of the next batch's first frame and moves on (wrapping around). */
    int nextBatch() {
      if (cursor + BATCH > frames.size()) {
        cursor = 0; // a repeat never precedes its original, so a lap may end anywhere
      }
      int from = cursor;
      cursor += BATCH;
      return from;
    }
  }

  /** The DDP frame parser. */
  @State(Scope.Benchmark)
  public static class Parser {
    DdpMessages parser;

    /** Creates the parser. */
    @Setup(Level.Trial)
    public void create() {
      parser = new DdpMessages(new ObjectMapper());
    }
  }

  /** The token reader of room events. */
  @State(Scope.Benchmark)
  public static class Streamed {
    StreamedChatParse parser;

    /** Creates the reader. */
    @Setup(Level.Trial)
    public void create() {
      parser = new StreamedChatParse();
    }
  }

  /** A pipeline whose client runs on the benchmark thread. */
  @State(Scope.Benchmark)
  public static class Inline {
    InboundPipeline pipeline;

    /** Connects the client to the in-memory server and joins the rooms. */
    @Setup(Level.Trial)
    public void start(Frames f) {
      pipeline = InboundPipeline.sameThread(f.mix.rooms(), m -> {});
    }

    /** Closes the client; fails if a frame was refused. */
    @TearDown(Level.Trial)
    public void stop() {
      check(pipeline);
      pipeline.close();
    }
  }

  /** A pipeline whose client runs on the default event loop (the shared pool). */
  @State(Scope.Benchmark)
  public static class Looped {
    InboundPipeline pipeline;

    /** Connects the client to the in-memory server and joins the rooms. */
    @Setup(Level.Trial)
    public void start(Frames f) {
      pipeline = InboundPipeline.onDefaultLoop(f.mix.rooms(), m -> {});
    }

    /** Closes the client; fails if a frame was refused. */
    @TearDown(Level.Trial)
    public void stop() {
      check(pipeline);
      pipeline.close();
    }
  }

  /** Messages delivered to the application, reported per second next to the frame rate. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Delivered {
    /** Messages that reached the sink. */
    public long delivered;
  }

  private static void check(InboundPipeline p) {
    if (p.malformed() != 0 || p.protocolErrors() != 0) {
      throw new IllegalStateException("frames refused: malformed=" + p.malformed()
          + " protocolErrors=" + p.protocolErrors());
    }
  }

  /** The DDP parse of a frame's bytes alone ({@code DdpMessages.parse}), for context. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void parseOnly(Frames f, Parser p, Blackhole bh) throws DdpProtocolException {
    int from = f.nextBatch();
    for (int i = from; i < from + BATCH; i++) {
      byte[] frame = f.frames.get(i);
      bh.consume(p.parser.parse(frame, 0, frame.length));
    }
  }

  /**
   * A room event read from its tokens, the values the chat path needs and nothing else built
   * ({@link StreamedChatParse}): what a token-reading stream listener would cost, beside {@link
   * #parseOnly}, which builds the {@code fields} tree the chat path reads today.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void parseStreamedChat(Frames f, Streamed p, Blackhole bh) throws java.io.IOException {
    int from = f.nextBatch();
    for (int i = from; i < from + BATCH; i++) {
      byte[] frame = f.frames.get(i);
      bh.consume(p.parser.parse(frame, 0, frame.length));
    }
  }

  /** The whole inbound path with every step on this thread: the CPU cost per frame. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void deliverInline(Frames f, Inline s, Delivered d) {
    int from = f.nextBatch();
    long before = s.pipeline.delivered();
    for (int i = from; i < from + BATCH; i++) {
      s.pipeline.pushUtf8(f.frames.get(i));
    }
    d.delivered += s.pipeline.delivered() - before;
  }

  /**
   * The whole inbound path on the client's own event loop, the caller playing the socket thread:
   * a batch is pushed, then awaited.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void deliverOnEventLoop(Frames f, Looped s, Delivered d) {
    int from = f.nextBatch();
    long before = s.pipeline.delivered();
    long target = before + f.mix.newMessagesIn(from, from + BATCH);
    for (int i = from; i < from + BATCH; i++) {
      s.pipeline.pushUtf8(f.frames.get(i));
    }
    s.pipeline.awaitDelivered(target, Duration.ofSeconds(30));
    d.delivered += s.pipeline.delivered() - before;
  }
}
