package dev.ddpkit.reconnect.sim;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.reconnect.Backoff;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(QuietReconnectLogs.class)
@Timeout(value = 60, unit = SECONDS)
class HerdSweepTest {
  private static final HerdConfig TINY =
      HerdConfig.builder().clients(200).capacity(100).downtime(Duration.ofSeconds(1)).build();

  /** A point with the given time to all back (-1: never), dials in all and peak per second. */
  private static HerdSweep.Point point(String name, long allBackMs, long dials, int peak) {
    HerdConfig c = TINY;
    boolean complete = allBackMs >= 0;
    HerdResult r =
        new HerdResult(
            c, complete ? c.clients() : c.clients() - 1, OptionalLong.empty(), OptionalLong.empty(),
            complete ? OptionalLong.of(allBackMs) : OptionalLong.empty(), dials, 0, 0, c.clients(),
            peak, 0, List.of());
    return new HerdSweep.Point(
        new HerdSweep.Curve(
            name, Duration.ofSeconds(1), null, Backoff.fixed(Duration.ofSeconds(1))),
        r);
  }

  @Test
  void theFrontKeepsExactlyThePointsNoOtherBeatsOnAllThree() {
    HerdSweep.Point fast = point("fast", 3_000, 900, 300);
    HerdSweep.Point cheap = point("cheap", 9_000, 200, 100);
    HerdSweep.Point gentle = point("gentle", 5_000, 400, 90);
    HerdSweep.Point beaten = point("beaten", 9_500, 400, 120); // cheap is better on all three
    HerdSweep.Point tiedWithFast = point("tied", 3_000, 900, 300); // equal: neither dominates
    HerdSweep.Point never = point("never", -1, 100, 50); // fewest dials, gentlest, but never done

    List<HerdSweep.Point> front =
        HerdSweep.front(List.of(beaten, cheap, fast, gentle, tiedWithFast, never));

    assertThat(front).containsExactly(fast, tiedWithFast, gentle, cheap, never);
    assertThat(cheap.dominates(beaten)).isTrue();
    assertThat(beaten.dominates(cheap)).isFalse();
    assertThat(fast.dominates(tiedWithFast)).isFalse();
  }

  @Test
  void theGridHoldsThePresetsOverBasesAndCapsWithTheRfcPresetOnce() {
    List<HerdSweep.Curve> curves = HerdSweep.curves();

    assertThat(curves).hasSize(3 * 3 * 2 + 2 + 1);
    assertThat(curves).filteredOn(c -> c == HerdSweep.RFC_PRESET).hasSize(1);
    assertThat(curves.stream().map(HerdSweep.Curve::label))
        .contains("rfc 1 s/60 s", "full-jitter 250 ms/10 s", "proportional 3 s/60 s", "fixed 5 s")
        .doesNotHaveDuplicates();
  }

  @Test
  void aSweepPutsEveryCurveOnTheFrontOrBehindAPointOfItAndPlacesTheRfcCurve() throws Exception {
    HerdSweep.Result r = HerdSweep.run(TINY.toBuilder().hints(true).build());

    assertThat(r.points()).hasSize(HerdSweep.curves().size());
    assertThat(r.front()).isNotEmpty();
    for (HerdSweep.Point p : r.points()) {
      boolean onFront = r.front().contains(p);
      boolean beaten = r.front().stream().anyMatch(f -> f.dominates(p));
      assertThat(onFront).as(p.curve().label()).isNotEqualTo(beaten);
    }
    assertThat(r.rfc().curve()).isSameAs(HerdSweep.RFC_PRESET);

    String text = HerdSweepReport.text(r);
    assertThat(text).contains("Pareto front", "RFC curve", "rfc 1 s/60 s");
    assertThat(text)
        .contains(r.front().contains(r.rfc()) ? "is on the front" : "is beaten on all three");
    String svg = HerdSweepReport.svg(r);
    DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertThat(svg).contains("Pareto front", "D + N/C");
  }

  @Test
  void aSweepIsAPureFunctionOfTheScenarioWhateverTheThreads() {
    HerdSweep.Result a = HerdSweep.run(TINY, 1);
    HerdSweep.Result b = HerdSweep.run(TINY, 3);

    assertThat(b.points().stream().map(HerdSweep.Point::result).toList())
        .isEqualTo(a.points().stream().map(HerdSweep.Point::result).toList());
  }
}
