package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpStatus;
import dev.ddpkit.ddp.Subscription;
import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21: one thing to inject for time, one for randomness. A {@link DdpClient} and a {@link
 * ChatClient} share one {@link VirtualScheduler}, passed to each builder once (no ticker, no
 * clock), and every time either of them shows follows it: heartbeats, redial delays, the
 * manager's next attempt, the status's retry time and "retry in". And a seeded {@code
 * random(...)} makes a run repeat frame for frame: every subscription id, message id and
 * jittered redial time the same.
 */
@Timeout(value = 30, unit = SECONDS)
class OneSchedulerOneSeedTest {
  private static final String URL = "ws://localhost:3000/websocket";

  @Test
  void aDdpClientAndAChatClientFollowTheOneSchedulerEachWasGivenOnce() {
    VirtualScheduler time = new VirtualScheduler(ChatHarness.T0);
    InMemoryTransportFactory ddpNet = new InMemoryTransportFactory();
    WireRecorder ddpWire = new WireRecorder(ddpNet, time);
    try (DdpClient ddp =
            DdpClient.builder()
                .url(URL)
                .scheduler(time)
                .executor(Runnable::run)
                .transportFactory(ddpWire)
                .reconnection(ReconnectPolicy.builder()
                    .backoff(Backoff.fixed(Duration.ofSeconds(1))).build())
                .heartbeatInterval(Duration.ofSeconds(5))
                .heartbeatTimeout(Duration.ofSeconds(2))
                .build();
        ChatHarness chat = ChatHarness.on(time, b -> b.room("r1")
            .heartbeatInterval(Duration.ofSeconds(4))
            .heartbeatTimeout(Duration.ofSeconds(3)))) {
      ddp.connect();
      ServerEnd end = ddpNet.last().open();
      end.send("{'msg':'connected','session':'s1'}");
      chat.start().loggedIn(chat.expect("login"));
      chat.ready(chat.expect("sub r1"));
      chat.result(chat.expect("loadHistory r1"), history(message("r1", "m1", "one", 1000)));

      time.advance(Duration.ofSeconds(10));
      // The DDP client pinged at 5 s, and with no answer in 2 s dropped at 7 s; the chat client,
      // whose server answers nothing either, pinged at 4 s and dropped at 7 s.
      assertThat(ddpWire.frames()).filteredOn(f -> f.contains("ping") || f.contains("close"))
          .containsExactly("5000ms {\"msg\":\"ping\"}", "7000ms close 1000 heartbeat timeout");
      assertThat(chat.wire.frames()).filteredOn(f -> f.contains("ping") || f.contains("close"))
          .containsExactly("4000ms {\"msg\":\"ping\"}", "7000ms close 1000 heartbeat timeout");
      // Each redialed 1 s after its drop, at 8 s, and its second socket is now 2 s old.
      assertThat(ddpWire.frames()).filteredOn(f -> f.contains(" dial "))
          .containsExactly("0ms dial " + URL, "8000ms dial " + URL);
      assertThat(chat.wire.frames()).filteredOn(f -> f.contains(" dial "))
          .containsExactly("0ms dial " + URL, "8000ms dial " + URL);

      // The sockets of the second dial never open: each waits again, and every time it shows
      // is on the one scheduler: the manager's next attempt on its nanoTime, the DDP status's
      // retry time on its wall time, the chat status's "retry in" between the two.
      ddpNet.last().closeFromServer(1006, "");
      chat.net.last().closeFromServer(1006, "");
      DdpStatus s = ddp.status();
      assertThat(s.state()).isEqualTo(DdpStatus.State.WAITING);
      assertThat(s.retryTime()).isEqualTo(ChatHarness.T0.plusSeconds(11));
      assertThat(s.retryTime()).isEqualTo(time.wallTime().plusSeconds(1));
      assertThat(ddp.reconnectionManager().status().nextAttemptAtNanos())
          .isEqualTo(time.nanoTime() + Duration.ofSeconds(1).toNanos());
      assertThat(chat.client.status().state()).isEqualTo(ChatStatus.State.WAITING);
      assertThat(chat.client.status().retryIn()).isEqualTo(Duration.ofSeconds(1));
      assertThat(chat.client.reconnectionManager().status().nextAttemptAtNanos())
          .isEqualTo(time.nanoTime() + Duration.ofSeconds(1).toNanos());
    }
  }

  @Test
  void aFixedSeedSendsTheSameFramesTwiceAndAnotherSeedOthers() {
    List<String> first = seededRun(42);
    assertThat(first).as("ids and jittered redials were recorded").hasSizeGreaterThan(10);
    assertThat(seededRun(42)).isEqualTo(first);
    assertThat(seededRun(43)).isNotEqualTo(first);
  }

  /**
   * A DDP client and a chat client, each seeded from {@code seed}: subscriptions, messages, a
   * drop, a redial after a full-jitter delay. Returns every frame both sent, with its time.
   */
  private static List<String> seededRun(long seed) {
    Random master = new Random(seed);
    VirtualScheduler time = new VirtualScheduler(ChatHarness.T0);
    InMemoryTransportFactory ddpNet = new InMemoryTransportFactory();
    WireRecorder ddpWire = new WireRecorder(ddpNet, time);
    Backoff jittered = Backoff.fullJitter(Duration.ofSeconds(2), Duration.ofSeconds(30));
    try (DdpClient ddp =
            DdpClient.builder()
                .url(URL)
                .scheduler(time)
                .random(new Random(master.nextLong()))
                .executor(Runnable::run)
                .transportFactory(ddpWire)
                .reconnection(ReconnectPolicy.builder().backoff(jittered).build())
                .build();
        ChatHarness chat = ChatHarness.on(time, b -> b.room("r1")
            .backoff(jittered)
            .random(new Random(master.nextLong())))) {
      List<Subscription> subs = new ArrayList<>();
      subs.add(ddp.subscribe("a", List.of()));
      subs.add(ddp.subscribe("b", List.of(1)));
      ddp.connect();
      ddpNet.last().open().send("{'msg':'connected','session':'s1'}");
      chat.client.sendMessage("r1", "hello");
      chat.start().loggedIn(chat.expect("login"));
      chat.ready(chat.expectAll("sub r1", "sendMessage r1 hello").get("sub r1"));
      chat.client.sendMessage("r1", "world");
      time.advance(Duration.ofSeconds(1));

      ddpNet.last().closeFromServer(1006, "");
      chat.drop();
      int ddpDials = ddpNet.count();
      int chatDials = chat.net.count();
      for (int i = 0; i < 3_000 && (ddpNet.count() == ddpDials || chat.net.count() == chatDials);
          i++) {
        time.advance(Duration.ofMillis(10));
      }
      assertThat(ddpNet.count()).as("the DDP client redialed").isEqualTo(ddpDials + 1);
      assertThat(chat.net.count()).as("the chat client redialed").isEqualTo(chatDials + 1);
      ddpNet.last().open().send("{'msg':'connected','session':'s2'}");
      subs.add(ddp.subscribe("c", List.of()));
      chat.accept();
      List<String> frames = new ArrayList<>();
      ddpWire.frames().forEach(f -> frames.add("ddp " + f));
      chat.wire.frames().forEach(f -> frames.add("chat " + f));
      return frames;
    }
  }
}
