package dev.ddpkit.reconnect.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ClientRandomsTest {

  @Test
  void everyClientsStreamIsTheJdksSplitStreamDrawForDraw() {
    for (long seed : new long[] {42, 7, -1, 0}) {
      int clients = 5_000;
      int first = 2;
      int stride = 4;
      long[] table = new long[first + stride * clients];
      ClientRandoms.split(seed, clients, table, first, stride);
      SplittableRandom master = new SplittableRandom(seed);
      for (int i = 0; i < clients; i++) {
        SplittableRandom jdk = master.split();
        for (int draw = 0; draw < 20; draw++) {
          assertThat(ClientRandoms.nextDouble(table, first + stride * i))
              .as("seed %d client %d draw %d", seed, i, draw)
              .isEqualTo(jdk.nextDouble());
        }
      }
    }
  }

  @Test
  void aClientsDrawsLeaveTheOtherRowsAlone() {
    long[] table = new long[4 * 3];
    ClientRandoms.split(42, 3, table, 0, 4);
    long[] before = table.clone();
    ClientRandoms.nextDouble(table, 4);
    assertThat(table[0]).isEqualTo(before[0]);
    assertThat(table[8]).isEqualTo(before[8]);
    assertThat(table[4]).isNotEqualTo(before[4]);
    assertThat(table[5]).isEqualTo(before[5]);
  }
}
