package dev.ddpkit.chat.reliability;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ddpkit.ddp.testing.LiveThreads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chat clients keep writing while the server is killed or drained and restarted again and again
 * and their network paths go half-open; at the end nothing is lost, nothing is shown twice, and
 * every client is back.
 *
 * <p>Short by default (30 s of chaos, 10 restarts). The long run is one command, see
 * RELIABILITY.md: {@code -Dchaos.duration=10m} (also {@code chaos.seed}, {@code chaos.restarts}).
 */
class ChaosTest {

  // No @Timeout: the limit depends on -Dchaos.duration, so it is enforced by
  // assertTimeoutPreemptively (ChaosSettings.timeLimit) and by the bounded waits after it.
  @Test
  void fiftyClientsThroughRestartsAndBlackholesLoseAndDuplicateNothing(@TempDir Path dir) {
    ChaosSettings settings = ChaosSettings.from(System.getProperties());
    ChaosReport[] result = new ChaosReport[1];
    Convergence[] converged = new Convergence[1];
    assertTimeoutPreemptively(settings.timeLimit(), () -> {
      try (ChaosRun run = new ChaosRun(dir, settings, System.out)) {
        result[0] = run.execute();
        converged[0] = run.convergence();
      }
    }, () -> "chaos run (seed " + settings.seed() + ") took over " + settings.timeLimit());
    ChaosReport r = result[0];
    String seed = "seed " + settings.seed();

    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(r.chaosErrors()).as("scenario errors, " + seed).isEmpty();
    soft.assertThat(r.settled()).as("every client settled, " + seed).isTrue();
    soft.assertThat(r.kills() + r.drains()).as("restarts").isEqualTo(settings.restarts());
    if (settings.restarts() >= 2) {
      soft.assertThat(r.kills()).as("hard kills among the restarts").isPositive();
      soft.assertThat(r.drains()).as("graceful drains among the restarts").isPositive();
    }
    soft.assertThat(r.blackholes()).as("blackholes").isPositive();
    soft.assertThat(r.heartbeatTimeouts()).as("half-open sockets found by the heartbeat")
        .isPositive();
    soft.assertThat(r.ledger().written()).as("messages written").isPositive();
    soft.assertThat(r.ledger().refused()).as("messages refused (outbox full)").isZero();
    soft.assertThat(r.ledger().acknowledged()).as("every message written was acknowledged")
        .isEqualTo(r.ledger().written());
    // With -Dchaos.changeRatio > 0 the writers also edit and delete: a deleted message is stored
    // no more, and every view must equal the server's.
    Convergence c = converged[0];
    long deleted = c == null ? 0 : c.deletionsAcknowledged();
    soft.assertThat(r.stored()).as("stored once each").isEqualTo(r.ledger().written() - deleted);
    if (c != null) {
      soft.assertThat(c.deletionsAcknowledged()).as("every deletion acknowledged")
          .isEqualTo(c.deletions());
      soft.assertThat(c.viewsEqual()).as("views equal to the server's, " + seed + ": "
          + c.example()).isEqualTo(c.viewsChecked());
      soft.assertThat(c.resurrected()).as("deleted messages still shown").isZero();
    }
    soft.assertThat(r.ledger().missing()).as("missing deliveries, " + seed).isZero();
    soft.assertThat(r.ledger().duplicates()).as("duplicate deliveries, " + seed).isZero();
    soft.assertThat(r.ledger().unexpected()).as("unexpected deliveries").isZero();
    soft.assertThat(r.tsBackwards()).as("messages shown out of time-stamp order, " + seed)
        .isZero();
    soft.assertThat(r.senderBackwards()).as("messages shown out of their writing order, " + seed)
        .isZero();
    soft.assertThat(r.ledger().exactlyOnce()).as("deliveries exactly once")
        .isEqualTo(r.ledger().expected());
    soft.assertThat(r.notConnected()).as("clients not connected").isZero();
    soft.assertThat(r.notSubscribed()).as("clients not subscribed").isZero();
    soft.assertThat(r.sessions()).as("logged-in sessions").isEqualTo(settings.clients());
    soft.assertThat(r.subscriptionsMatch()).as("server subscriptions per room").isTrue();
    soft.assertThat(r.minReconnects()).as("every client reconnected").isPositive();
    soft.assertThat(r.clientErrors()).as("errors shown to users").isEmpty();
    soft.assertAll();

    await("client, proxy and server threads to end").atMost(15, SECONDS)
        .until(() -> leftoverThreads().isEmpty());
  }

  // Regression (review): a coin per outage could make a run all kills or all drains.
  @Test
  @Timeout(value = 5, unit = SECONDS)
  void everyOutagePlanOfTwoOrMoreHasKillsAndDrains() {
    for (long seed = 0; seed < 2_000; seed++) {
      for (int restarts : new int[] {2, 3, 10}) {
        List<Boolean> plan = ChaosRun.outagePlan(restarts, new java.util.Random(seed));
        assertThat(plan).as("seed %d, %d restarts", seed, restarts).hasSize(restarts)
            .contains(true, false);
      }
    }
    assertThat(ChaosRun.outagePlan(0, new java.util.Random(1))).isEmpty();
    assertThat(ChaosRun.outagePlan(1, new java.util.Random(1))).containsExactly(false);
  }

  @Test
  @Timeout(value = 5, unit = SECONDS)
  void durationsParseInTheUnitsTheDocsUse() {
    assertThat(ChaosSettings.parseDuration("10m")).isEqualTo(Duration.ofMinutes(10));
    assertThat(ChaosSettings.parseDuration("45s")).isEqualTo(Duration.ofSeconds(45));
    assertThat(ChaosSettings.parseDuration("90")).isEqualTo(Duration.ofSeconds(90));
    assertThat(ChaosSettings.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(ChaosSettings.parseDuration("PT2M30S")).isEqualTo(Duration.ofSeconds(150));
    assertThatThrownBy(() -> ChaosSettings.parseDuration("10 minutes"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chaos.duration");

    Properties p = new Properties();
    p.setProperty("chaos.duration", "10m");
    p.setProperty("chaos.seed", "42");
    ChaosSettings s = ChaosSettings.from(p);
    assertThat(s.seed()).isEqualTo(42);
    assertThat(s.restarts()).as("one restart per 3 s").isEqualTo(200);
    assertThat(ChaosSettings.from(new Properties()).restarts()).isEqualTo(10);
  }

  @Test
  @Timeout(value = 5, unit = SECONDS)
  void theTempoDefaultsToTheShortRunsAndScalesForALongOne() {
    ChaosPace quick = ChaosPace.from(new Properties());
    assertThat(quick.writeChance()).as("one message per client per 2 s").isEqualTo(0.1);
    assertThat(quick.heartbeatTimeout()).isEqualTo(Duration.ofMillis(750));
    assertThat(quick.blackholeSpreadMillis()).isEqualTo(2700);
    assertThat(quick.acceptRate()).isEqualTo(100);

    Properties p = new Properties();
    p.setProperty("chaos.writeEvery", "60s");
    p.setProperty("chaos.heartbeat", "5s");
    p.setProperty("chaos.acceptRate", "250");
    p.setProperty("chaos.settle", "5m");
    p.setProperty("chaos.duration", "60m");
    ChaosSettings s = ChaosSettings.from(p);
    assertThat(s.pace().writeChance()).isCloseTo(0.2 / 60, within(1e-12));
    assertThat(s.pace().heartbeatTimeout()).isEqualTo(Duration.ofMillis(7500));
    assertThat(s.pace().blackholeSpreadMillis()).isEqualTo(27_000);
    assertThat(s.pace().acceptRate()).isEqualTo(250);
    assertThat(s.timeLimit()).as("run + 2 min + a tenth + two settles")
        .isEqualTo(Duration.ofMinutes(60 + 2 + 6 + 10));
    assertThat(s.restarts()).as("one per 3 s by default").isEqualTo(1200);
    p.setProperty("chaos.restartEvery", "90s");
    assertThat(ChaosSettings.from(p).restarts()).as("the long script's one per 90 s").isEqualTo(40);
    p.setProperty("chaos.duration", "3m");
    assertThat(ChaosSettings.from(p).restarts()).as("at least 2").isEqualTo(2);
    p.setProperty("chaos.restarts", "7");
    assertThat(ChaosSettings.from(p).restarts()).as("an explicit count wins").isEqualTo(7);
    p.remove("chaos.restarts");
    p.setProperty("chaos.duration", "60m");

    p.setProperty("chaos.heartbeat", "10ms");
    assertThatThrownBy(() -> ChaosSettings.from(p)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chaos.heartbeat");
    p.setProperty("chaos.heartbeat", "soon");
    assertThatThrownBy(() -> ChaosSettings.from(p)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chaos.heartbeat");
  }

  /** Threads of the run still alive: clients, Java-WebSocket clients, proxies, servers. */
  static List<String> leftoverThreads() {
    return LiveThreads.startingWith(ChaosRun.THREAD_PREFIX, "fault-proxy-",
        "WebSocketConnectReadThread", "WebSocketWriteThread", "chat-server-");
  }
}
