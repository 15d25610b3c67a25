package dev.ddpkit.reconnect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link CloseHandling} on its own: a close in, an immutable {@link CloseHandling.Outcome} out,
 * with no manager behind it. The manager applying these steps is {@link ReconnectionManagerTest}'s.
 */
class CloseHandlingTest {
  private static CloseHandling handling(int maxAttempts) {
    ReconnectPolicy policy = ReconnectPolicy.builder()
        .backoff(Backoff.fixed(Duration.ofSeconds(2)))
        .closePolicy(ClosePolicy.ddp())
        .maxAttempts(maxAttempts)
        .build();
    return new CloseHandling(policy, new RetryTiming(policy, () -> 0.5, "t"), "t");
  }

  @Test
  void anAbnormalCloseCountsTheAttemptAndWaitsTheCurve() {
    CloseHandling.Outcome o = handling(0).decide(2, false, false, CloseCodes.ABNORMAL, "");
    assertThat(o.attempt()).isEqualTo(3);
    assertThat(o.next()).isEqualTo(new NextStep.Wait(Duration.ofSeconds(2), false, false));
    assertThat(o.fault()).isNull();
  }

  @Test
  void aStableConnectionStartsTheCountAfresh() {
    CloseHandling.Outcome o = handling(0).decide(5, true, true, CloseCodes.ABNORMAL, "");
    assertThat(o.attempt()).isEqualTo(1);
    assertThat(o.authRefreshUsed()).isFalse();
  }

  @Test
  void aHintIsAnAppointmentWithItsSpread() {
    CloseHandling.Outcome o =
        handling(0).decide(0, false, false, 1013, "busy; retry-after=1000");
    // 1,000 ms plus half of the spread window (min(20 % of 1 s, 250 ms) = 200 ms) at sample 0.5.
    assertThat(o.next()).isEqualTo(new NextStep.Wait(Duration.ofMillis(1100), true, false));
    assertThat(o.attempt()).isEqualTo(1);
  }

  @Test
  void unauthorizedRefreshesOnceAndDialsAtOnceThenBacksOff() {
    CloseHandling h = handling(0);
    CloseHandling.Outcome first = h.decide(0, false, false, CloseCodes.UNAUTHORIZED, "");
    assertThat(first.next()).isEqualTo(new NextStep.DialNow(true));
    assertThat(first.authRefreshUsed()).isTrue();
    CloseHandling.Outcome again =
        h.decide(first.attempt(), false, true, CloseCodes.UNAUTHORIZED, "");
    assertThat(again.next()).isEqualTo(new NextStep.Wait(Duration.ofSeconds(2), false, false));
  }

  @Test
  void pastMaxAttemptsItStopsWithTheReason() {
    CloseHandling.Outcome o = handling(3).decide(3, false, false, CloseCodes.ABNORMAL, "");
    assertThat(o.next()).isInstanceOf(NextStep.Stop.class);
    assertThat(o.attempt()).isEqualTo(3);
    assertThat(o.reason()).startsWith("gave up after 3 attempts");
  }

  @Test
  void aCloseThatStopsStopsWithoutCounting() {
    CloseHandling.Outcome o = handling(0).decide(1, false, false, CloseCodes.FORBIDDEN, "forbidden");
    assertThat(o.next()).isInstanceOf(NextStep.Stop.class);
    assertThat(o.attempt()).isEqualTo(1);
  }
}
