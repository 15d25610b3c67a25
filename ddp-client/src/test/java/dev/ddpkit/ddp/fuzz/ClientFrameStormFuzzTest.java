package dev.ddpkit.ddp.fuzz;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.gen.Gen;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A DDP client with pending calls, live subscriptions, a stored collection and a stream is fed a
 * random sequence of valid and invalid frames and socket events, out of order: no exception
 * escapes (nothing is logged at ERROR, which is where the event loop reports a task that threw),
 * the client still works afterwards (a fresh connection and a call round-trip), and after {@code
 * close()} every future the test made is complete. The storms come from a seeded {@link Gen}: a
 * failure prints the seed that replays it and the steps; {@code -Dfuzz.tries=N} runs storms
 * pushing about N frames.
 */
@ExtendWith(FuzzTries.class)
class ClientFrameStormFuzzTest {
  private static final int STEPS_MIN = 20;
  private static final int STEPS_MAX = 60;
  /** Storms in the CI run: 400 push 12,625 frames through the client (at least 10,000 asserted). */
  private static final int CI_TRIES = 400;
  /**
   * Frames one storm pushes on average: 40 steps, 13 of 18 of them a generated frame and some
   * events a frame too (31.6 measured in the CI run); 30, so that {@code -Dfuzz.tries=N} pushes at
   * least N frames.
   */
  private static final int FRAMES_PER_STORM = 30;
  /** The seed of the frames of the threaded test. */
  private static final long THREADED_SEED = 0x7B2EADL;

  /** What the fuzzer does next. */
  enum Kind {
    FRAME, FRAME_ON_OLD_SOCKET, OPEN, SERVER_CLOSE, LATE_CLOSE, ADVANCE, CALL, CALL_NO_RETRY,
    CALL_WAIT, SUBSCRIBE, STOP_SUB, CHECK_HEALTH, NETWORK_AVAILABLE, CONNECTED, FAILED,
    RESULT_FOR_KNOWN_CALL, READY_FOR_KNOWN_SUB
  }

  /** One step: a kind, a number to pick ids, codes and delays with, and a frame if it sends one. */
  record Step(Kind kind, int pick, String frame) {
    @Override
    public String toString() {
      return frame == null ? kind + "(" + pick + ")"
          : kind + "(" + pick + ", " + Gen.abbreviate(frame, 80) + ")";
    }
  }

  @Test
  void anyFrameSequenceLeavesTheClientWorkingAndNoFutureHanging() {
    FuzzTries.forAll(0x5702FL, CI_TRIES, FRAMES_PER_STORM, ClientFrameStormFuzzTest::storm,
        ClientFrameStormFuzzTest::runStorm);
    if (FuzzTries.requested().isEmpty() && Long.getLong("gen.tries") == null) {
      assertThat(FuzzTries.counted()).as("frames through the client in the CI run")
          .isGreaterThanOrEqualTo(10_000);
    }
  }

  private static void runStorm(List<Step> steps) {
    // Half the storms read frames strictly, half tolerantly; a storm always gets the same mode.
    boolean strict = (steps.toString().hashCode() & 1) == 1;
    StormClient c = new StormClient("fuzz-client", Runnable::run, strict);
    try {
      c.setUp();
      for (Step s : steps) {
        apply(c, s);
      }
      FuzzTries.count(c.frames());
      assertThat(c.errorLines()).as("errors logged during the storm").isEmpty();
      assertThat(c.client.stats().lastProtocolError()).doesNotStartWith("internal error");
      c.assertStillWorks();
      c.close();
      c.assertEveryFutureComplete();
      assertThat(c.errorLines()).as("errors logged after the storm").isEmpty();
    } finally {
      c.close(); // idempotent; also when an assertion failed
    }
  }

  /**
   * Frames pushed from two threads while a third makes calls, subscribes and checks health, with
   * the client on the shared loop pool (until issue 11: its own event-loop thread): the loop
   * survives and still runs tasks, the client works afterwards, and close() completes every
   * future and stops the loop.
   */
  @Test
  @Timeout(value = 120, unit = SECONDS)
  void aStormFromSeveralThreadsLeavesTheEventLoopAlive() throws Exception {
    int perThread = 2000;
    Gen gen = new Gen(THREADED_SEED);
    List<String> frames = new ArrayList<>();
    for (int i = 0; i < 2 * perThread; i++) {
      frames.add(FrameGen.anyFrame(gen));
    }
    ExecutorService pushers = Executors.newFixedThreadPool(2, r -> new Thread(r, "fuzz-pusher"));
    StormClient c = new StormClient("fuzz-loop", null);
    try {
      c.client.connect();
      await().atMost(10, SECONDS).until(() -> c.net.count() == 1);
      ServerEnd s = c.net.last().open();
      s.send("{'msg':'connected','session':'s0'}");
      // Known ids for the frames to hit; these lists are not changed while the pushers read them.
      for (int i = 0; i < 5; i++) {
        c.call(i % 2 == 0 ? CallOptions.DEFAULT : CallOptions.WAIT.withNoRetry(true));
        c.subscribe();
      }
      Future<?> a = pushers.submit(() -> push(c, frames.subList(0, perThread), 1));
      Future<?> b = pushers.submit(() -> push(c, frames.subList(perThread, 2 * perThread), 2));
      for (int i = 0; i < 200; i++) {
        c.futures.add(c.client.call("m", i));
        if (i % 20 == 0) {
          c.futures.add(c.client.subscribe("pub", i).ready());
          c.futures.add(c.client.checkHealth());
        }
      }
      a.get(20, SECONDS);
      b.get(20, SECONDS);
      FuzzTries.count(2L * perThread);
      // A fence: the health check runs on the loop after every frame queued before it.
      c.client.checkHealth().get(10, SECONDS);
      assertThat(loopRuns(c)).as("event loop alive").isTrue();
      assertThat(c.errorLines()).as("errors logged during the storm").isEmpty();
      // The first fatal frame ends the connection, and the rest land on a retired socket, which
      // the client must ignore: this test is about threads; the property above about handling.
      assertThat(c.client.stats().framesIn()).isPositive();

      // Still works: a fresh connection and a call.
      int dials = c.net.count();
      c.net.last().closeFromServer(1006, "storm over");
      await().atMost(10, SECONDS).until(() -> {
        c.time.advance(Duration.ofSeconds(1));
        if (c.client.status().state() == DdpStatus.State.FAILED) {
          c.client.connect();
        }
        return c.net.count() > dials;
      });
      ServerEnd fresh = c.net.last().open();
      await().atMost(10, SECONDS).until(() -> !fresh.drain().isEmpty());
      fresh.send("{'msg':'connected','session':'s1'}");
      CompletableFuture<JsonNode> f = c.client.call("afterStorm");
      // Calls from the storm go out again first (a wait call holds the later ones): answer all.
      await().atMost(10, SECONDS).until(() -> {
        for (JsonNode n : fresh.drain()) {
          if (n.path("msg").asText().equals("method")) {
            String id = n.path("id").asText();
            String result = n.path("method").asText().equals("afterStorm") ? "42" : "0";
            fresh.sendRaw("{\"msg\":\"result\",\"id\":\"" + id + "\",\"result\":" + result
                + "}");
          }
        }
        return f.isDone();
      });
      assertThat(f.get(10, SECONDS).asInt()).isEqualTo(42);

      c.close();
      c.assertEveryFutureComplete();
      assertThat(c.client.execute(() -> { })).as("the loop takes no task after close").isFalse();
      assertThat(threadsNamed("fuzz-loop")).as("no thread of the client's").isFalse();
    } finally {
      c.close();
      pushers.shutdownNow();
      assertThat(pushers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Pushes frames on the latest connection. */
  private static void push(StormClient c, List<String> frames, int seed) {
    Random r = new Random(seed);
    for (String f : frames) {
      c.net.last().sendRaw(c.resolve(f, r.nextInt(1000)));
    }
  }

  private static boolean threadsNamed(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith(name));
  }

  /** Whether a task given to the client's loop runs, on a pool thread, within 10 s. */
  private static boolean loopRuns(StormClient c) throws Exception {
    CompletableFuture<String> ranOn = new CompletableFuture<>();
    if (!c.client.execute(() -> ranOn.complete(Thread.currentThread().getName()))) {
      return false;
    }
    return ranOn.get(10, SECONDS).startsWith("ddpkit-loop-");
  }

  private static void apply(StormClient c, Step s) {
    int p = s.pick();
    switch (s.kind()) {
      case FRAME -> c.frame(c.resolve(s.frame(), p));
      case FRAME_ON_OLD_SOCKET -> c.frameOnOld(c.resolve(s.frame(), p), p);
      case OPEN -> c.net.last().open();
      case SERVER_CLOSE -> c.net.last().closeFromServer(closeCode(p), closeReason(p));
      case LATE_CLOSE -> {
        List<ServerEnd> all = c.net.connections();
        all.get(p % all.size()).lateClose(closeCode(p), closeReason(p));
      }
      case ADVANCE -> c.time.advance(Duration.ofMillis(1 + (long) p * 37 % 30_000));
      case CALL -> c.call(CallOptions.DEFAULT);
      case CALL_NO_RETRY -> c.call(CallOptions.DEFAULT.withNoRetry(true));
      case CALL_WAIT -> c.call(CallOptions.WAIT);
      case SUBSCRIBE -> c.subscribe();
      case STOP_SUB -> c.subs.get(p % c.subs.size()).stop();
      case CHECK_HEALTH -> c.checkHealth();
      case NETWORK_AVAILABLE -> c.client.networkAvailable();
      case CONNECTED -> c.frame("{\"msg\":\"connected\",\"session\":\"s" + p + "\"}");
      case FAILED -> c.frame("{\"msg\":\"failed\",\"version\":\""
          + List.of("1", "pre2", "pre1", "2").get(p % 4) + "\"}");
      case RESULT_FOR_KNOWN_CALL -> c.frame(c.resolve(
          "{\"msg\":\"result\",\"id\":\"$MID\",\"result\":" + p + "}", p));
      case READY_FOR_KNOWN_SUB -> c.frame(c.resolve("{\"msg\":\"ready\",\"subs\":[\"$SUB\"]}", p));
      default -> throw new AssertionError("Unexpected kind: " + s.kind());
    }
  }

  private static int closeCode(int p) {
    return List.of(1000, 1001, 1002, 1003, 1006, 1008, 1009, 1011, 1012, 1013, 4000, 4401, 4999)
        .get(p % 13);
  }

  private static String closeReason(int p) {
    return List.of("", "bye", "retry-after=2500", "try again later; retry-after=40000")
        .get(p % 4);
  }

  /** A storm: 20 to 60 steps, mostly frames, some on retired sockets, the rest events. */
  private static List<Step> storm(Gen g) {
    return g.listOf(STEPS_MIN, STEPS_MAX, h -> h.frequency(
        Gen.weight(12, k -> new Step(Kind.FRAME, k.between(0, 999), FrameGen.anyFrame(k))),
        Gen.weight(1, k -> new Step(Kind.FRAME_ON_OLD_SOCKET, k.between(0, 999),
            FrameGen.anyFrame(k))),
        Gen.weight(5, k -> new Step(k.pick(EVENTS), k.between(0, 999), null))));
  }

  private static final List<Kind> EVENTS =
      List.of(Kind.OPEN, Kind.SERVER_CLOSE, Kind.LATE_CLOSE, Kind.ADVANCE, Kind.CALL,
          Kind.CALL_NO_RETRY, Kind.CALL_WAIT, Kind.SUBSCRIBE, Kind.STOP_SUB, Kind.CHECK_HEALTH,
          Kind.NETWORK_AVAILABLE, Kind.CONNECTED, Kind.FAILED, Kind.RESULT_FOR_KNOWN_CALL,
          Kind.READY_FOR_KNOWN_SUB);
}
