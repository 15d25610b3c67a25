package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = SECONDS)
class AdmissionAndDrainTest extends ServerTestSupport {
  private static final Pattern HINT = Pattern.compile("retry-after=(\\d+)");

  @Test
  void connectionsPastTheAcceptRateAreClosedWith1013AndAHint() throws Exception {
    List<Long> accepted = new CopyOnWriteArrayList<>();
    ChatServer s = startSeeded(b -> b.acceptRate(2).connectionListener(new ConnectionListener() {
      @Override
      public void accepted(long epochMillis) {
        accepted.add(epochMillis);
      }
    }));
    List<DdpPeer> peers = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      peers.add(track(DdpPeer.open(s.url())));
    }
    Awaitility.await().atMost(10, SECONDS)
        .until(() -> s.stats().connectionsOpened() + s.stats().connectionsRejected() == 12);
    long rejectedCount = s.stats().connectionsRejected();
    Awaitility.await().atMost(10, SECONDS)
        .until(() -> peers.stream().filter(DdpPeer::isClosed).count() == rejectedCount);
    List<DdpPeer> rejected = new ArrayList<>();
    List<DdpPeer> admitted = new ArrayList<>();
    for (DdpPeer p : peers) {
      (p.isClosed() ? rejected : admitted).add(p);
    }
    for (DdpPeer p : admitted) {
      assertThat(p.next().path("server_id").asText()).isEqualTo("0");
    }
    // 12 dials take well under a second or two: at most two windows of 2 accepts.
    assertThat(admitted.size()).isBetween(2, 4);
    assertThat(rejected).hasSize(12 - admitted.size());
    assertThat(s.stats().connectionsRejected()).isEqualTo(rejected.size());
    assertThat(accepted).hasSize(admitted.size());
    assertThat(s.stats().acceptsPerSecond().values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(admitted.size());
    assertThat(s.stats().rejectsPerSecond().values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(rejected.size());
    List<Long> hints = new ArrayList<>();
    for (DdpPeer p : rejected) {
      assertThat(p.awaitClose()).isEqualTo(1013);
      Matcher m = HINT.matcher(p.closeReason);
      assertThat(m.find()).as("reason %s", p.closeReason).isTrue();
      hints.add(Long.parseLong(m.group(1)));
    }
    // Hints are spread at the accept rate: they span about (rejected - 1) / rate seconds.
    hints.sort(null);
    assertThat(hints.get(hints.size() - 1) - hints.get(0))
        .isGreaterThanOrEqualTo((rejected.size() - 1) * 500L - 1000);

    // The server is up and serves the accepted connections.
    DdpPeer ok = admitted.get(0);
    ok.send(DdpPeer.connectFrame("1"));
    ok.next("connected");
    assertThat(ok.call("login", DdpPeer.loginParams("alice", "alice-pw")).has("result")).isTrue();
  }

  @Test
  void stopDrainsConnectionsWith1012OverTheDrainPeriod() throws Exception {
    ChatServer s = startSeeded(b -> b.drainPeriod(Duration.ofMillis(1000)));
    List<DdpPeer> peers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      peers.add(connect(s));
    }
    long t0 = System.nanoTime();
    s.stop();
    long firstClose = Long.MAX_VALUE;
    long lastClose = Long.MIN_VALUE;
    for (DdpPeer p : peers) {
      assertThat(p.awaitClose()).isEqualTo(1012);
      assertThat(p.closeReason).startsWith("service restart").contains("retry-after=1000");
      firstClose = Math.min(firstClose, p.closedAtNanos);
      lastClose = Math.max(lastClose, p.closedAtNanos);
    }
    assertThat(Duration.ofNanos(firstClose - t0)).isLessThan(Duration.ofMillis(400));
    assertThat(Duration.ofNanos(lastClose - firstClose))
        .as("closes spread over the drain period, not all at once")
        .isGreaterThan(Duration.ofMillis(600));
  }

  @Test
  void dropAllAndDropAbruptlyKeepTheServerRunning() throws Exception {
    ChatServer s = startSeeded(b -> b);
    DdpPeer a = connect(s);
    s.dropAll(4000, "TIMEOUT");
    assertThat(a.awaitClose()).isEqualTo(4000);
    assertThat(a.closeReason).isEqualTo("TIMEOUT");
    DdpPeer b = connect(s);
    s.dropAbruptly();
    assertThat(b.awaitClose()).isEqualTo(1006);
    Awaitility.await().atMost(10, SECONDS).until(() -> s.stats().currentConnections() == 0);
    assertThat(login(s, "bob").call("loadHistory", "general", null, 1, null).has("result"))
        .isTrue();
  }
}
