package dev.ddpkit.chat.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ArrivalHistogramTest {
  @Test
  void bucketsAndBars() {
    ArrivalHistogram h = new ArrivalHistogram(200);
    h.add(0, 10, 0);
    h.add(199, 10, 20);
    h.add(450, 5, 0);
    h.add(1_000, 0, 0);
    assertThat(h.accepted()).containsExactly(20, 0, 5, 0, 0, 0);
    assertThat(h.rejected()).containsExactly(20, 0, 0, 0, 0, 0);
    assertThat(h.render(8))
        .containsExactly(
            "  +  0.0 s  accepted   20  rejected   20  ####xxxx",
            "  +  0.2 s  accepted    0  rejected    0  ",
            "  +  0.4 s  accepted    5  rejected    0  #");
  }

  /** The demo's wave chart shows when the rejected clients were told to come back. */
  @Test
  void appointmentsGetADueColumn() {
    ArrivalHistogram h = new ArrivalHistogram(500);
    h.add(100, 2, 2);
    h.appointment(600);
    h.appointment(900);
    h.appointment(1_200);
    h.add(700, 2, 0);
    assertThat(h.appointments()).containsExactly(0, 2, 1);
    assertThat(h.render(4))
        .containsExactly(
            "  +  0.0 s  accepted    2  rejected    2  due    0  ##xx",
            "  +  0.5 s  accepted    2  rejected    0  due    2  ##",
            "  +  1.0 s  accepted    0  rejected    0  due    1  ");
  }
}
