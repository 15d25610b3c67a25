package dev.ddpkit.reconnect.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventCalendarTest {

  private static List<String> drain(EventCalendar c, long target) {
    List<String> out = new ArrayList<>();
    while (c.next(target)) {
      out.add(c.now() + ":" + c.kind() + "/" + c.client() + "/" + c.tag());
    }
    return out;
  }

  @Test
  void eventsRunByTimeThenInTheOrderTheyWereScheduled() {
    EventCalendar c = new EventCalendar();
    c.schedule(5, 0, 1, 10);
    c.schedule(3, 1, 2, 20);
    c.schedule(5, 2, 3, 30);
    c.schedule(3, 3, 4, 40);
    c.schedule(0, 0, 5, 50);

    assertThat(drain(c, 4)).containsExactly("0:0/5/50", "3:1/2/20", "3:3/4/40");
    assertThat(c.now()).isEqualTo(4);
    assertThat(c.pending()).isEqualTo(2L);
    assertThat(drain(c, 100)).containsExactly("5:0/1/10", "5:2/3/30");
    assertThat(c.now()).isEqualTo(100);
    assertThat(c.pending()).isZero();
  }

  @Test
  void anEventScheduledForNowWhileTheBucketRunsComesAfterTheOthersOfIt() {
    EventCalendar c = new EventCalendar();
    c.schedule(7, 0, 1, 0);
    c.schedule(7, 0, 2, 0);
    assertThat(c.next(10)).isTrue();
    c.schedule(7, 0, 3, 0); // delay 0 at t=7
    assertThat(drain(c, 10)).containsExactly("7:0/2/0", "7:0/3/0");
  }

  @Test
  void eventsBeyondTheRingKeepTheirOrderWithThoseScheduledLater() {
    EventCalendar c = new EventCalendar();
    long far = 3_000_000; // ~50 minutes: beyond the ring of ~17
    c.schedule(far, 0, 1, 0);
    c.schedule(far + 1, 0, 2, 0);
    c.schedule(far, 0, 3, 0);
    c.schedule(10, 0, 4, 0);
    assertThat(drain(c, far - 5)).containsExactly("10:0/4/0");
    // Now inside the ring: scheduled after the far ones, so it runs after them at the same time.
    c.schedule(far, 0, 5, 0);
    assertThat(drain(c, Long.MAX_VALUE / 2))
        .containsExactly(
            far + ":0/1/0", far + ":0/3/0", far + ":0/5/0", (far + 1) + ":0/2/0");
  }

  @Test
  void aBucketGrowsPastItsFirstArrayAndDrainedArraysAreReused() {
    EventCalendar c = new EventCalendar();
    for (int i = 0; i < 1_000; i++) {
      c.schedule(i % 37, 0, i, i);
    }
    List<String> out = drain(c, 40);
    assertThat(out).hasSize(1_000);
    assertThat(out.get(0)).isEqualTo("0:0/0/0");
    assertThat(out.get(1)).isEqualTo("0:0/37/37");
    // Buckets drained, arrays back in the spare pool: a second round in later buckets is the same.
    for (int i = 0; i < 1_000; i++) {
      c.schedule(100 + i % 37, 1, i, -i);
    }
    List<String> again = drain(c, 200);
    assertThat(again).hasSize(1_000);
    assertThat(again.get(1)).isEqualTo("100:1/37/-37");
  }

  @Test
  void aKindOrClientOutOfRangeIsRefusedNotMangled() {
    EventCalendar c = new EventCalendar();
    assertThatThrownBy(() -> c.schedule(1, 4, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> c.schedule(1, 0, -1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> c.schedule(1, 0, EventCalendar.MAX_CLIENTS, 0))
        .isInstanceOf(IllegalArgumentException.class);
    c.schedule(1, 3, EventCalendar.MAX_CLIENTS - 1, -7);
    assertThat(c.next(1)).isTrue();
    assertThat(c.kind()).isEqualTo(3);
    assertThat(c.client()).isEqualTo(EventCalendar.MAX_CLIENTS - 1);
    assertThat(c.tag()).isEqualTo(-7);
  }

  @Test
  void theClockNeverGoesBack() {
    EventCalendar c = new EventCalendar();
    c.next(50);
    assertThatThrownBy(() -> c.schedule(49, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("before now");
  }
}
