package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.chat.server.InProcessServer.FakeConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's admission is the shared {@link dev.ddpkit.reconnect.admission.Admission}, in
 * process and on virtual time: its bucket is empty when the server starts, a dial past it gets the
 * next free slot and that slot is kept for whoever comes back in it, and nothing counts per
 * wall-clock second.
 */
@Timeout(value = 30, unit = SECONDS)
class ServerAdmissionTest {
  @TempDir Path dir;
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private InProcessServer server;

  private void start(UnaryOperator<ChatServerBuilder> tweak) {
    server = new InProcessServer(dir, b -> tweak.apply(b.ticker(nanos::get)));
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private void advance(long millis) {
    nanos.addAndGet(Duration.ofMillis(millis).toNanos());
  }

  private static long hint(FakeConnection c) {
    assertThat(c.closeCode).isEqualTo(1013);
    return Arrivals.retryAfter(c.closeReason);
  }

  @Test
  void warmingUpTheServerAdmitsNobodyAndBooksEachDialASlotAfterTheWarmUp() {
    start(b -> b.acceptRate(4).warmUp(Duration.ofSeconds(3)));
    assertThat(hint(server.open())).isEqualTo(3_250);
    advance(1_000);
    assertThat(hint(server.open())).isEqualTo(2_500);
    advance(2_250); // 3.25 s: the first booked client is back in its slot
    assertThat(server.open().closeCode).as("back in its slot: admitted").isZero();
    assertThat(hint(server.open())).as("a newcomer: the slot after the booked one")
        .isEqualTo(500);
    assertThat(server.counters.connectionsOpened.get()).isEqualTo(1);
  }

  @Test
  void aWarmUpWithoutAnAcceptRateIsRefused() {
    assertThatThrownBy(() -> ChatServer.builder().dataDir(dir).warmUp(Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("acceptRate");
    assertThatThrownBy(() -> ChatServer.builder().warmUp(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("warmUp");
  }

  @Test
  void theBucketIsEmptyAtStartAndEachRejectionGetsTheNextSlot() {
    start(b -> b.acceptRate(4));
    List<Long> hints = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      hints.add(hint(server.open()));
    }
    assertThat(hints).containsExactly(250L, 500L, 750L, 1000L, 1250L);
    assertThat(server.counters.connectionsRejected.get()).isEqualTo(5);
  }

  @Test
  void aClientBackInItsSlotIsAdmittedAndANewcomerDoesNotTakeALaterSlot() {
    start(b -> b.acceptRate(4));
    FakeConnection first = server.open();
    FakeConnection second = server.open();
    assertThat(hint(first)).isEqualTo(250);
    assertThat(hint(second)).isEqualTo(500);
    advance(250);
    FakeConnection back = server.open();
    assertThat(back.closeCode).as("back in its slot: admitted").isZero();
    // A newcomer now finds the token of 500 ms promised: it is given the slot after.
    assertThat(hint(server.open())).isEqualTo(500);
    advance(250);
    assertThat(server.open().closeCode).as("the second one, back in its slot").isZero();
    assertThat(server.counters.connectionsOpened.get()).isEqualTo(2);
  }

  /**
   * The per-wall-clock-second counter this replaced let up to 2C in within moments, across a
   * second's boundary; the bucket lets in its burst plus C per second, whenever the dials come.
   */
  @Test
  void neverMoreThanTheBurstPlusTheRate() {
    start(b -> b.acceptRate(10).retryAfterHints(false));
    advance(10_000); // a full bucket: 10
    int admitted = 0;
    for (int step = 0; step < 20; step++) { // 200 ms in 10 ms steps, 10 dials each
      for (int i = 0; i < 10; i++) {
        if (server.open().closeCode == 0) {
          admitted++;
        }
      }
      advance(10);
    }
    assertThat(admitted).isEqualTo(10 + 1); // the burst, then 10/s for 190 ms
  }

  @Test
  void withoutHintsARejectionReservesNothing() {
    start(b -> b.acceptRate(4).retryAfterHints(false));
    FakeConnection c = server.open();
    assertThat(c.closeCode).isEqualTo(1013);
    assertThat(c.closeReason).isEqualTo("try again later");
    advance(250);
    assertThat(server.open().closeCode).as("the token of 250 ms was not reserved").isZero();
  }

  @Test
  void noAcceptRateAdmitsEveryone() {
    start(b -> b);
    for (int i = 0; i < 1000; i++) {
      assertThat(server.open().closeCode).isZero();
    }
  }
}
