package dev.ddpkit.chat.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeliveryLedgerTest {
  private final DeliveryLedger ledger =
      new DeliveryLedger(Map.of("a", List.of(0, 1, 2), "b", List.of(3, 4)));

  @Test
  void perfectRunCountsEveryMemberOnce() {
    ledger.written("m1", "a");
    ledger.written("m2", "b");
    ledger.acknowledged("m1");
    ledger.acknowledged("m2");
    for (int c : List.of(0, 1, 2)) {
      ledger.delivered(c, "m1");
    }
    ledger.delivered(3, "m2");
    ledger.delivered(4, "m2");
    DeliveryLedger.Report r = ledger.report();
    assertThat(r).isEqualTo(new DeliveryLedger.Report(2, 2, 0, 5, 5, 5, 0, 0, 0));
    assertThat(r.perfect()).isTrue();
    assertThat(ledger.expectedDeliveries()).isEqualTo(5);
  }

  @Test
  void duplicatesMissingAndStrangersAreCounted() {
    ledger.written("m1", "a");
    ledger.acknowledged("m1");
    ledger.delivered(0, "m1");
    ledger.delivered(0, "m1"); // duplicate
    ledger.delivered(1, "m1");
    // client 2 never sees m1: missing
    ledger.delivered(3, "m1"); // not a member of a
    ledger.delivered(4, "zz"); // never written
    ledger.refused();
    DeliveryLedger.Report r = ledger.report();
    assertThat(r.duplicates()).isEqualTo(1);
    assertThat(r.missing()).isEqualTo(1);
    assertThat(r.unexpected()).isEqualTo(2);
    assertThat(r.exactlyOnce()).isEqualTo(1);
    assertThat(r.refused()).isEqualTo(1);
    assertThat(r.perfect()).isFalse();
  }

  @Test
  void anUnacknowledgedMessageIsNotPerfect() {
    ledger.written("m1", "b");
    ledger.delivered(3, "m1");
    ledger.delivered(4, "m1");
    assertThat(ledger.report().perfect()).isFalse();
    assertThat(ledger.acknowledgedCount()).isZero();
  }

  @Test
  void aDeliveryBeforeItsMessageIsRecordedCountsOnceTheMessageIs() {
    ledger.delivered(0, "m1"); // the writer's thread has not recorded m1 yet
    ledger.delivered(3, "m1"); // and client 3 is not a member of a
    ledger.written("m1", "a");
    ledger.acknowledged("m1");
    ledger.delivered(0, "m1"); // a duplicate of the early one
    ledger.delivered(1, "m1");
    ledger.delivered(2, "m1");
    DeliveryLedger.Report r = ledger.report();
    assertThat(r).isEqualTo(new DeliveryLedger.Report(1, 1, 0, 3, 5, 2, 1, 0, 1));
  }

  @Test
  void badRecordsAreRefused() {
    assertThatThrownBy(() -> ledger.written("m1", "nope")).hasMessageContaining("unknown room");
    ledger.written("m1", "a");
    assertThatThrownBy(() -> ledger.written("m1", "a")).hasMessageContaining("twice");
    assertThatThrownBy(() -> new DeliveryLedger(Map.of("a", List.of(0, 1, 0))))
        .hasMessageContaining("client 0 listed twice");
  }
}
