package dev.ddpkit.chat.bench;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.reconnect.sim.HerdBucket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = SECONDS)
class WaveRecorderTest {
  private static final long T0 = 1_000_000L; // epoch ms of the drop (a whole second)

  @Test
  void nothingCountsBeforeTheDrop() {
    WaveRecorder r = new WaveRecorder(2, 10_000);
    r.dial(T0 - 5);
    r.accepted(T0 - 5);
    r.loggedIn(0, T0 - 5);
    assertThat(r.dialsTotal()).isZero();
    assertThat(r.acceptedTotal()).isZero();
    assertThat(r.loggedInCount()).isZero();
  }

  @Test
  void dialsBeforeTheServerIsUpAreRefusedTheOthersAreNot() {
    WaveRecorder r = new WaveRecorder(2, 10_000);
    r.drop(T0);
    r.serverUp(T0 + 3000);
    r.dial(T0 + 100);
    r.dial(T0 + 2999);
    r.dial(T0 + 3000);
    assertThat(r.refusedTotal()).isEqualTo(2);
    assertThat(r.dialsTotal()).isEqualTo(3);
  }

  @Test
  void aClientIsBackWhenLoggedInAndTheServerHoldsItsSubscription() {
    WaveRecorder r = new WaveRecorder(4, 10_000);
    r.drop(T0);
    r.loggedIn(0, T0 + 4000);
    r.loggedIn(1, T0 + 4100);
    r.loggedIn(1, T0 + 9000); // only the first login after the drop counts
    r.subscriptions(T0 + 4050, 1);
    r.subscriptions(T0 + 4500, 2);
    assertThat(r.backCount()).isEqualTo(2);
    assertThat(r.backAt(1)).isEqualTo(OptionalLong.of(4050)); // later of login 4000, sub 4050
    assertThat(r.backAt(2)).isEqualTo(OptionalLong.of(4500));
    assertThat(r.backAt(3)).isEmpty();
    r.loggedIn(2, T0 + 5000);
    r.subscriptions(T0 + 4900, 3); // the server saw the third subscription before its login answer
    assertThat(r.backAt(3)).isEqualTo(OptionalLong.of(5000));
  }

  @Test
  void peaksSlideOverOneSecondAndTheWallClockWindowResetsEachSecond() {
    WaveRecorder r = new WaveRecorder(1, 10_000);
    r.drop(T0);
    for (int i = 0; i < 5; i++) {
      r.accepted(T0 + 900 + i); // end of wall second 0
      r.accepted(T0 + 1100 + i); // start of wall second 1
    }
    r.rejected(T0 + 1200);
    assertThat(r.peakAcceptsPerSecond()).isEqualTo(10);
    assertThat(r.peakArrivalsPerSecond()).isEqualTo(11);
    assertThat(r.peakAcceptsPerWallSecond()).isEqualTo(5);
  }

  @Test
  void bucketsCountEachKindAndStopAtTheLastDial() {
    WaveRecorder r = new WaveRecorder(1, 10_000);
    r.drop(T0);
    r.serverUp(T0 + 500);
    r.dial(T0 + 10);
    r.rejected(T0 + 600);
    r.accepted(T0 + 1200);
    assertThat(r.buckets(500)).containsExactly(
        new HerdBucket(0, 1, 0, 0), new HerdBucket(500, 0, 1, 0), new HerdBucket(1000, 0, 0, 1));
  }

  @Test
  void theDropIsNoticedAtEachClientsFirstChangeOnly() {
    WaveRecorder r = new WaveRecorder(2, 10_000);
    r.drop(T0);
    r.lost(0, T0 + 20);
    r.lost(0, T0 + 5000);
    assertThat(r.lostAt(1)).isEqualTo(OptionalLong.of(20));
    assertThat(r.lostAt(2)).isEmpty();
    r.lost(1, T0 + 300);
    assertThat(r.lostAt(2)).isEqualTo(OptionalLong.of(300));
  }

  @Test
  void listenDropsAreReadFromTheTcpExtLines(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("netstat");
    Files.writeString(f, "TcpExt: SyncookiesSent ListenOverflows ListenDrops\n"
        + "TcpExt: 0 7 9\nIpExt: InNoRoutes\nIpExt: 0\n");
    assertThat(ListenOverflows.read(f)).isEqualTo(9);
    Files.writeString(f, "IpExt: InNoRoutes\nIpExt: 0\n");
    assertThat(ListenOverflows.read(f)).isEqualTo(-1);
  }
}
