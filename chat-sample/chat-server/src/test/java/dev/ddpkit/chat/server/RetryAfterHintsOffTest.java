package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code retryAfterHints(false)}: a 1013 past the accept rate carries no {@code retry-after}. */
@Timeout(value = 30, unit = SECONDS)
class RetryAfterHintsOffTest extends ServerTestSupport {

  @Test
  void rejectionsCarryNoHintWhenHintsAreOff() throws Exception {
    ChatServer s = startSeeded(b -> b.acceptRate(1).retryAfterHints(false));
    List<DdpPeer> peers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      peers.add(track(DdpPeer.open(s.url())));
    }
    Awaitility.await().atMost(10, SECONDS)
        .until(() -> s.stats().connectionsOpened() + s.stats().connectionsRejected() == 6);
    long rejected = s.stats().connectionsRejected();
    assertThat(rejected).isGreaterThanOrEqualTo(4); // 6 dials span at most two 1-per-s windows
    Awaitility.await().atMost(10, SECONDS)
        .until(() -> peers.stream().filter(DdpPeer::isClosed).count() == rejected);
    for (DdpPeer p : peers) {
      if (p.isClosed()) {
        assertThat(p.awaitClose()).isEqualTo(1013);
        assertThat(p.closeReason).isEqualTo("try again later").doesNotContain("retry-after");
      }
    }
  }
}
