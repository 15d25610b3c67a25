package dev.ddpkit.reconnect;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The immutable policy, and the managers each client makes of it on its own time source. */
@Timeout(value = 10, unit = SECONDS)
class ReconnectPolicyTest {
  private final VirtualScheduler clock = new VirtualScheduler();

  @Test
  void theDefaultsLiveInThePolicyAndAManagerBuilderStartsFromThem() {
    ReconnectPolicy d = ReconnectPolicy.defaults();
    assertThat(d.backoff()).isEqualTo(Backoff.rfc());
    assertThat(d.closePolicy()).hasToString("ClosePolicy{ddp}");
    assertThat(d.stableAfter()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.maxAttempts()).isZero();
    assertThat(d.hintSpread()).isEqualTo(0.2);
    assertThat(d.maxHintSpread()).isEqualTo(Duration.ofMillis(250));
    assertThat(d.hintMinimum()).isEqualTo(Duration.ofMillis(100));
    assertThat(ReconnectionManager.builder().build().policy())
        .usingRecursiveComparison()
        .ignoringFields("closePolicy")
        .isEqualTo(d);
    assertThat(ReconnectPolicy.builder().build().toString()).isEqualTo(d.toString());
  }

  @Test
  void toBuilderKeepsEverySettingAndChangesOnlyWhatIsSet() {
    ReconnectPolicy p =
        ReconnectPolicy.builder()
            .backoff(Backoff.fixed(Duration.ofSeconds(2)))
            .stableAfter(Duration.ofSeconds(3))
            .maxAttempts(4)
            .hintSpread(0.5)
            .maxHintSpread(Duration.ofMillis(40))
            .hintMinimum(Duration.ofMillis(60))
            .build();
    assertThat(p.toBuilder().build()).isEqualTo(p).hasSameHashCodeAs(p.toBuilder().build());
    ReconnectPolicy q = p.toBuilder().maxAttempts(9).build();
    assertThat(q.maxAttempts()).isEqualTo(9);
    assertThat(q.backoff()).isEqualTo(p.backoff());
    assertThat(q).isNotEqualTo(p);
    assertThat(p.maxAttempts()).isEqualTo(4);
  }

  @Test
  void oneSharedPolicyMakesIndependentManagersEachOnItsOwnTime() {
    ReconnectPolicy policy =
        ReconnectPolicy.builder().backoff(Backoff.fixed(Duration.ofSeconds(2))).build();
    VirtualScheduler otherClock = new VirtualScheduler();
    ReconnectRecorder first = new ReconnectRecorder(clock);
    ReconnectRecorder second = new ReconnectRecorder(otherClock);
    ReconnectionManager a = policy.newManager(clock, RecordingRandom.constant(0.5));
    ReconnectionManager b = policy.newManager(otherClock, RecordingRandom.constant(0.5));
    a.addListener(first);
    b.addListener(second);
    assertThat(a.policy()).isEqualTo(policy);
    assertThat(b.policy()).isEqualTo(policy);

    a.start(first);
    b.start(second);
    first.attempt().closed(CloseCodes.ABNORMAL, "");
    first.expect("CONNECTING #0", "dial #0 at=0ms", "WAITING #1 delay=2000ms at=2000ms (closed 1006)");
    // The second manager is untouched by the first one's close, and its clock did not move.
    second.expect("CONNECTING #0", "dial #0 at=0ms");
    clock.advance(Duration.ofSeconds(2));
    first.expect("CONNECTING #1 delay=2000ms (closed 1006)", "dial #1 at=2000ms");
    assertThat(b.status().state()).isEqualTo(ReconnectionManager.State.CONNECTING);
    second.assertExhausted();
    first.assertExhausted();
  }

  @Test
  void theSchedulerIsTheOneTimeSourceNothingElseIsRead() {
    clock.advance(Duration.ofHours(1));
    // Without a scheduler the manager is on the system's time, never on a virtual one.
    ReconnectionManager guessed = ReconnectionManager.builder().build();
    assertThat(guessed.ticker()).isNotSameAs(clock);
    ReconnectionManager explicit =
        ReconnectionManager.builder().scheduler(clock).random(RecordingRandom.constant(0.5)).build();
    assertThat(explicit.scheduler()).isSameAs(clock);
    assertThat(explicit.ticker()).isSameAs(clock);
    ReconnectRecorder rec = new ReconnectRecorder(clock);
    explicit.addListener(rec);
    explicit.start(rec);
    rec.attempt().closed(CloseCodes.ABNORMAL, "");
    ReconnectStatus w = explicit.status();
    assertThat(w.nextAttemptAtNanos()).isEqualTo(clock.read() + Duration.ofMillis(1250).toNanos());
    assertThat(w.retryIn(clock.read())).isEqualTo(Duration.ofMillis(1250));
  }

  @Test
  void settersRejectBadValuesNamingTheField() {
    assertThatThrownBy(() -> ReconnectPolicy.builder().stableAfter(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("stableAfter");
    assertThatThrownBy(() -> ReconnectPolicy.builder().maxAttempts(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxAttempts");
    assertThatThrownBy(() -> ReconnectPolicy.builder().hintSpread(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hintSpread");
    assertThatThrownBy(() -> ReconnectPolicy.builder().hintMinimum(Duration.ofMinutes(11)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hintMinimum");
    assertThatThrownBy(
            () -> ReconnectPolicy.builder().backoff((attempt, sample) -> Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("backoff");
    assertThatThrownBy(() -> ReconnectionManager.builder().policy(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("policy");
  }
}
