package dev.ddpkit.ddp.testing;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = SECONDS)
class LiveThreadsTest {

  @Test
  void findsALiveThreadByItsNameAndNotOnceItEnded() throws InterruptedException {
    CountDownLatch release = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "live-threads-test-b");
    t.start();
    try {
      assertThat(LiveThreads.startingWith("live-threads-test-", "no-such-prefix"))
          .containsExactly("live-threads-test-b");
      assertThat(LiveThreads.matching(n -> n.endsWith("-test-b")))
          .containsExactly("live-threads-test-b");
      assertThat(LiveThreads.startingWith("live-threads-test-c")).isEmpty();
    } finally {
      release.countDown();
      t.join();
    }
    assertThat(LiveThreads.startingWith("live-threads-test-")).isEmpty();
  }
}
