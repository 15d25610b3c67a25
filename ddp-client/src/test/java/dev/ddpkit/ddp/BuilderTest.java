package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.CloseAction;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Builder validation: bad arguments at the setter, conflicts at build(). */
@Timeout(value = 30, unit = SECONDS)
class BuilderTest {

  @Test
  void urlMustBeWebSocketWithAHost() {
    assertThatThrownBy(() -> DdpClient.builder().url("http://example.com/websocket"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url");
    assertThatThrownBy(() -> DdpClient.builder().url("ws:///websocket"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url");
    assertThatThrownBy(() -> DdpClient.builder().url("ws://bad host"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url");
    assertThatThrownBy(() -> DdpClient.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("url");
  }

  @Test
  void settersNameTheFieldTheyReject() {
    DdpClientBuilder b = DdpClient.builder();
    assertThatThrownBy(() -> b.heartbeatTimeout(Duration.ZERO)).hasMessageContaining(
        "heartbeatTimeout");
    assertThatThrownBy(() -> b.heartbeatInterval(Duration.ofSeconds(-1))).hasMessageContaining(
        "heartbeatInterval");
    assertThatThrownBy(() -> b.connectTimeout(Duration.ofMillis(-5))).hasMessageContaining(
        "connectTimeout");
    assertThatThrownBy(() -> b.reopen(Duration.ZERO)).hasMessageContaining("reopen");
    assertThatThrownBy(() -> b.maxQueuedCalls(-1)).hasMessageContaining("maxQueuedCalls");
    assertThatThrownBy(() -> b.maxFrameBytes(0)).hasMessageContaining("maxFrameBytes");
    assertThatThrownBy(() -> b.name(" ")).hasMessageContaining("name");
  }

  @Test
  void reconnectionAndReopenTogetherAreAConflict() {
    DdpClientBuilder b =
        DdpClient.builder()
            .url(Harness.URL)
            .reconnection(ReconnectPolicy.defaults())
            .reopen(Duration.ofSeconds(5));
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("reopen");
  }

  @Test
  void aNullExecutorIsRefusedAndTheDefaultNeedsNone() {
    // directExecution() is gone (issue 11): the default loop runs on the shared pool.
    assertThatThrownBy(() -> DdpClient.builder().executor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("executor");
    try (DdpClient c = DdpClient.builder().url("ws://localhost/websocket").build()) {
      assertThat(c.name()).isNotBlank();
    }
  }

  @Test
  void sslContextAndTransportFactoryTogetherAreAConflict() throws Exception {
    DdpClientBuilder b =
        DdpClient.builder()
            .url("wss://example.com/websocket")
            .sslContext(SSLContext.getDefault())
            .transportFactory(new InMemoryTransportFactory());
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void toStringCarriesNoQueryOrUserInfo() {
    try (DdpClient c =
        DdpClient.builder()
            .url("wss://user:secret@example.com/websocket?token=abc123")
            .transportFactory(new InMemoryTransportFactory())
            .executor(Runnable::run)
            .build()) {
      assertThat(c.toString())
          .contains("wss://example.com/websocket")
          .doesNotContain("secret")
          .doesNotContain("abc123");
      assertThat(c.name()).startsWith("ddp-client-");
    }
  }

  @Test
  void defaultReconnectionIsTheRfcCurveWithTheDdpCloseProfileAndNoLegacyReopen() {
    try (DdpClient c = inMemory(DdpClient.builder(), new VirtualScheduler())) {
      ReconnectionManager m = c.reconnectionManager();

      assertThat(m.backoff()).as("RFC curve, not reopen's fixed interval").isSameAs(Backoff.rfc());
      assertThat(m.backoff().delay(1, 0.0)).isEqualTo(Duration.ofSeconds(1));
      assertThat(m.backoff().delay(7, 0.0)).isEqualTo(Duration.ofSeconds(60));
      assertThat(m.closePolicy()).hasToString("ClosePolicy{ddp}");
      assertThat(m.closePolicy().actionFor(1000)).as("a server-sent 1000 retries")
          .isEqualTo(CloseAction.RETRY);
      assertThat(m.closePolicy().actionFor(4000)).isEqualTo(CloseAction.RETRY);
    }
  }

  @Test
  void legacyReopenIsAFixedIntervalWithTheDdpCloseProfile() {
    try (DdpClient c =
        inMemory(DdpClient.builder().reopen(Duration.ofSeconds(5)), new VirtualScheduler())) {
      ReconnectionManager m = c.reconnectionManager();

      assertThat(m.backoff().delay(1, 0.0)).isEqualTo(Duration.ofSeconds(5));
      assertThat(m.backoff().delay(7, 0.99)).isEqualTo(Duration.ofSeconds(5));
      assertThat(m.closePolicy()).hasToString("ClosePolicy{ddp}");
    }
  }

  @Test
  void defaultReconnectionResetsTheAttemptCounterOnlyAfterTenStableSeconds() {
    VirtualScheduler time = new VirtualScheduler();
    InMemoryTransportFactory net = new InMemoryTransportFactory();
    try (DdpClient c =
        DdpClient.builder()
            .url(Harness.URL)
            .transportFactory(net)
            .executor(Runnable::run)
            .scheduler(time)
            .heartbeatInterval(Duration.ZERO)
            .build()) {
      ReconnectionManager m = c.reconnectionManager();
      c.connect();
      ServerEnd s = handshake(net, "s1");

      s.closeFromServer(1006, "");
      assertThat(m.status().attempt()).isEqualTo(1);
      time.advance(Duration.ofMillis(1500)); // attempt 1 of the RFC curve: 1.0-1.5 s
      s = handshake(net, "s2");
      time.advance(Duration.ofMillis(9_999));
      s.closeFromServer(1006, "");
      assertThat(m.status().attempt()).as("up 9.999 s: not stable yet").isEqualTo(2);

      time.advance(Duration.ofSeconds(3)); // attempt 2: 2-3 s
      s = handshake(net, "s3");
      time.advance(Duration.ofSeconds(10));
      s.closeFromServer(1006, "");
      assertThat(m.status().attempt()).as("up 10 s: counter reset").isEqualTo(1);
    }
  }

  @Test
  @SuppressWarnings("deprecation") // the deprecated ticker(...) against the one time source
  void aVirtualSchedulerIsItsOwnTickerAndAnotherTickerIsRefusedRatherThanGuessed() {
    VirtualScheduler time = new VirtualScheduler();
    try (DdpClient c = inMemory(DdpClient.builder(), time)) {
      assertThat(c.reconnectionManager().ticker()).as("no ticker to set: the scheduler's")
          .isSameAs(time);
    }
    assertThatThrownBy(
            () -> DdpClient.builder().url(Harness.URL).scheduler(time).ticker(() -> 0L).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ticker");
  }

  @Test
  void onePolicyTwoClientsTwoManagersEachOnItsClientsTime() {
    ReconnectPolicy policy =
        ReconnectPolicy.builder().backoff(Backoff.fixed(Duration.ofSeconds(2))).build();
    VirtualScheduler time = new VirtualScheduler();
    try (DdpClient a = inMemory(DdpClient.builder().reconnection(policy), time);
        DdpClient b = inMemory(DdpClient.builder().reconnection(policy), time)) {
      assertThat(a.reconnectionManager()).isNotSameAs(b.reconnectionManager());
      assertThat(a.reconnectionManager().policy()).isEqualTo(policy);
      assertThat(a.reconnectionManager().ticker()).isSameAs(time);

      a.connect();
      b.connect();
      assertThat(a.reconnectionManager().status().state())
          .isEqualTo(ReconnectionManager.State.CONNECTING);
      assertThat(b.reconnectionManager().status().state())
          .isEqualTo(ReconnectionManager.State.CONNECTING);
    }
  }

  private static DdpClient inMemory(DdpClientBuilder b, VirtualScheduler time) {
    return b.url(Harness.URL)
        .transportFactory(new InMemoryTransportFactory())
        .executor(Runnable::run)
        .scheduler(time)
        .build();
  }

  /** The latest dial opens and the server accepts it. */
  private static ServerEnd handshake(InMemoryTransportFactory net, String session) {
    ServerEnd end = net.last().open();
    end.drain();
    end.send("{'msg':'connected','session':'" + session + "'}");
    return end;
  }
}
