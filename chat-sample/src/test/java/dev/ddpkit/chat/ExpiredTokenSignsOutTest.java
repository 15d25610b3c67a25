package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.server.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A resume token that expired ends in SIGNED_OUT after one refused login, not in a loop. */
class ExpiredTokenSignsOutTest {
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void anExpiredTokenEndsSignedOutWithoutRetrying(@TempDir Path dir) {
    MutableClock serverClock = MutableClock.running();
    try (LoopbackChat chat =
        new LoopbackChat(dir, b -> b.clock(serverClock).tokenTtl(Duration.ofHours(1)))) {
      chat.server().seedDemo();
      String token = chat.server().issueToken("alice");
      Recorder rec = new Recorder();
      ChatClient c = chat.start(chat.tokenClient(token, rec).room("general"));
      await().atMost(20, SECONDS).until(() -> c.status().state() == ChatStatus.State.CONNECTED);
      long failedBefore = chat.server().stats().loginsFailed();

      // The token expires while the client is connected; the next reconnect finds it refused.
      serverClock.advance(Duration.ofHours(2));
      chat.server().dropAbruptly();
      await().atMost(20, SECONDS).until(() -> c.status().state() == ChatStatus.State.SIGNED_OUT);

      assertThat(c.status().text()).startsWith("signed out: token refused");
      assertThat(c.resumeToken()).isEmpty();
      assertThatThrownBy(() -> c.sendMessage("general", "hi")).isInstanceOf(IllegalStateException.class);
      // It stays signed out: no further login attempt, no reconnection.
      await().during(1_500, MILLISECONDS).atMost(5, SECONDS).until(
          () -> c.status().state() == ChatStatus.State.SIGNED_OUT
              && chat.server().stats().currentConnections() == 0);
      long attempts = chat.server().stats().loginsFailed() - failedBefore;
      assertThat(attempts).isBetween(1L, 2L);
      assertThat(rec.statuses).extracting(ChatStatus::state).endsWith(ChatStatus.State.SIGNED_OUT);
    }
  }
}
