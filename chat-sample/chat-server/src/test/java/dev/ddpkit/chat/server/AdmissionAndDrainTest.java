package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = SECONDS)
class AdmissionAndDrainTest extends ServerTestSupport {
  private static final Pattern HINT = Pattern.compile("retry-after=(\\d+)");

  /**
   * On real sockets, with the admission on virtual time: every dial past the (empty) bucket is
   * closed with 1013 and its own slot, spaced at the accept rate, and a dial in the first slot is
   * admitted on its reservation and served.
   */
  @Test
  void connectionsPastTheAcceptRateAreClosedWith1013AndTheirOwnSlot() throws Exception {
    AtomicLong nanos = new AtomicLong();
    List<Long> accepted = new CopyOnWriteArrayList<>();
    ChatServer s = startSeeded(b -> b.acceptRate(2).ticker(nanos::get)
        .connectionListener(new ServerConnectionListener() {
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
        .until(() -> s.stats().connectionsRejected() == 12);
    List<Long> hints = new ArrayList<>();
    for (DdpPeer p : peers) {
      assertThat(p.awaitClose()).isEqualTo(1013);
      Matcher m = HINT.matcher(p.closeReason);
      assertThat(m.find()).as("reason %s", p.closeReason).isTrue();
      hints.add(Long.parseLong(m.group(1)));
    }
    hints.sort(null);
    List<Long> slots = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      slots.add(500L * i);
    }
    assertThat(hints).isEqualTo(slots);
    assertThat(s.stats().rejectsPerSecond().values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(12);
    assertThat(accepted).isEmpty();

    nanos.addAndGet(Duration.ofMillis(500).toNanos());
    DdpPeer ok = track(DdpPeer.connect(s.url()));
    assertThat(ok.call("login", DdpPeer.loginParams("alice", "alice-pw")).has("result")).isTrue();
    assertThat(accepted).hasSize(1);
    assertThat(s.stats().connectionsOpened()).isEqualTo(1);
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

  /**
   * A planned restart: every connection is closed at once with 1012 and its own appointment, the
   * expected time until the next server is ready plus its place in the queue at the next
   * server's rate, oldest connection first.
   */
  @Test
  void stopForRestartGivesEveryConnectionItsOwnAppointment() throws Exception {
    AtomicLong nanos = new AtomicLong();
    ChatServer s = startSeeded(b -> b.ticker(nanos::get));
    List<DdpPeer> peers = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      peers.add(connect(s)); // connected one after the other: this is the queue's order
    }
    s.stopForRestart(Duration.ofMillis(3000), 100);
    List<Long> hints = new ArrayList<>();
    for (DdpPeer p : peers) {
      assertThat(p.awaitClose()).isEqualTo(1012);
      assertThat(p.closeReason).startsWith("service restart");
      Matcher m = HINT.matcher(p.closeReason);
      assertThat(m.find()).as("reason %s", p.closeReason).isTrue();
      hints.add(Long.parseLong(m.group(1)));
    }
    assertThat(hints).containsExactly(3010L, 3020L, 3030L, 3040L, 3050L, 3060L, 3070L, 3080L,
        3090L, 3100L);
  }

  @Test
  void stopForRestartCountsTheAppointmentsFromTheStartOfTheDrain() {
    AtomicLong nanos = new AtomicLong();
    RestartPlan plan = new RestartPlan(Duration.ofMillis(2000), 50, nanos::get);
    assertThat(plan.nextCloseReason()).isEqualTo("service restart; retry-after=2020");
    nanos.addAndGet(Duration.ofMillis(15).toNanos());
    assertThat(plan.nextCloseReason()).isEqualTo("service restart; retry-after=2025");
    RestartPlan allAtOnce = new RestartPlan(Duration.ofMillis(2000), 0, nanos::get);
    assertThat(allAtOnce.nextCloseReason()).isEqualTo("service restart; retry-after=2000");
    assertThat(allAtOnce.nextCloseReason()).isEqualTo("service restart; retry-after=2000");
    assertThat(allAtOnce.places()).isEqualTo(2);
  }

  @Test
  void closeAllAndDropAllKeepTheServerRunning() throws Exception {
    ScriptedFaults faults = new ScriptedFaults();
    ChatServer s = startSeeded(b -> b.faults(faults));
    DdpPeer a = connect(s);
    faults.closeAll(4000, "TIMEOUT");
    assertThat(a.awaitClose()).isEqualTo(4000);
    assertThat(a.closeReason).isEqualTo("TIMEOUT");
    DdpPeer b = connect(s);
    faults.dropAll();
    assertThat(b.awaitClose()).isEqualTo(1006);
    Awaitility.await().atMost(10, SECONDS).until(() -> s.stats().currentConnections() == 0);
    assertThat(login(s, "bob").call("loadHistory", "general", null, 1, null).has("result"))
        .isTrue();
  }
}
