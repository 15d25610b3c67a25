package dev.ddpkit.reconnect.sim;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fast simulation decides as real {@link dev.ddpkit.reconnect.ReconnectionManager}s do: the
 * same herds run both ways ({@link HerdSimulation}, and {@link ManagerHerdSimulation}, one real
 * manager per client on a virtual scheduler) give equal results, every bucket of the histogram
 * included, and byte-identical JSON. The scenarios cover every policy and every way back (cut,
 * planned, warming up), with and without hints, several seeds, latencies (none, one round trip
 * per millisecond, longer than the warm-up), a shallow bucket, a horizon that cuts the run short,
 * and every curve of the sweep.
 */
@ExtendWith(QuietReconnectLogs.class)
@Timeout(value = 120, unit = SECONDS)
class ManagerParityTest {

  private static HerdConfig.Builder small(HerdPolicy policy) {
    return HerdConfig.builder()
        .clients(1_500)
        .capacity(200)
        .downtime(Duration.ofSeconds(2))
        .policy(policy);
  }

  private static void assertSame(HerdConfig config) {
    HerdResult reference = ManagerHerdSimulation.run(config);
    HerdResult fast = HerdSimulation.run(config);
    assertThat(HerdReport.json(fast)).as(config.toString()).isEqualTo(HerdReport.json(reference));
    assertThat(fast).as(config.toString()).isEqualTo(reference);
  }

  @ParameterizedTest
  @EnumSource(HerdPolicy.class)
  void everyPolicyEveryWayBackWithAndWithoutHints(HerdPolicy policy) {
    List<HerdConfig> configs = new ArrayList<>();
    for (boolean hints : new boolean[] {false, true}) {
      for (long seed : new long[] {42, 7}) {
        HerdConfig.Builder b = small(policy).hints(hints).seed(seed);
        configs.add(b.build());
        configs.add(b.planned(true).build());
        configs.add(b.planned(false).warmUp(true).build());
      }
    }
    for (HerdConfig c : configs) {
      assertSame(c);
    }
  }

  @Test
  void latenciesBurstsAndHorizons() {
    for (long latency : new long[] {0, 5, 1_500, 12_000}) {
      for (boolean hints : new boolean[] {false, true}) {
        assertSame(
            small(HerdPolicy.FULL_JITTER).latency(Duration.ofMillis(latency)).hints(hints).build());
        assertSame(small(HerdPolicy.RFC).latency(Duration.ofMillis(latency)).hints(hints).build());
      }
    }
    assertSame(small(HerdPolicy.RFC).burst(20).hints(true).build());
    assertSame(small(HerdPolicy.FULL_JITTER).burst(1).build());
    // Cut short: fixed 5 s cannot bring 1,500 clients back at 200/s in 6 s.
    HerdResult cut =
        HerdSimulation.run(small(HerdPolicy.FIXED).horizon(Duration.ofSeconds(6)).build());
    assertThat(cut.complete()).isFalse();
    assertSame(small(HerdPolicy.FIXED).horizon(Duration.ofSeconds(6)).build());
    assertSame(small(HerdPolicy.METEOR).horizon(Duration.ofMillis(2_001)).hints(true).build());
  }

  @Test
  void everyCurveOfTheSweep() {
    HerdConfig scenario = small(HerdPolicy.RFC).clients(800).build();
    for (boolean hints : new boolean[] {false, true}) {
      HerdConfig c = scenario.toBuilder().hints(hints).build();
      for (HerdSweep.Curve curve : HerdSweep.curves()) {
        HerdResult reference = ManagerHerdSimulation.run(c, curve.backoff());
        HerdResult fast = HerdSimulation.run(c, curve.backoff());
        assertThat(HerdReport.json(fast)).as(curve.label()).isEqualTo(HerdReport.json(reference));
        assertThat(fast).as(curve.label()).isEqualTo(reference);
      }
    }
  }
}
