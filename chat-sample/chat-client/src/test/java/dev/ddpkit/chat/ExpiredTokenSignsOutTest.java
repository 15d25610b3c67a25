package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A resume token that expired ends in SIGNED_OUT after one refused login, not in a loop. */
class ExpiredTokenSignsOutTest {
  @Test
  void anExpiredTokenEndsSignedOutWithoutRetrying() {
    try (ChatHarness h = ChatHarness.withToken("token-1", b -> b.room("general"))) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub general"));
      h.result(h.expect("loadHistory general"), history());
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);

      // The token expires while the client is connected; the next reconnect finds it refused.
      h.reconnect();
      Frame login = h.expect("login");
      assertThat(login.params().path(0).has("resume")).isTrue();
      h.error(login, "403", "You've been logged out by the server. Please log in again.", null);
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.SIGNED_OUT);
      // Signing out closes the DDP client, which tells the server not to keep the session.
      h.expect("{\"msg\":\"disconnect\"}");

      assertThat(h.client.status().text()).startsWith("signed out: token refused");
      assertThat(h.client.resumeToken()).isEmpty();
      assertThatThrownBy(() -> h.client.sendMessage("general", "hi"))
          .isInstanceOf(IllegalStateException.class);
      // It stays signed out: no further login attempt, no reconnection.
      int dials = h.net.count();
      h.advance(Duration.ofMinutes(5)).expectNothing();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.SIGNED_OUT);
      assertThat(h.end().closedByClient()).as("the client closed its connection").isTrue();
      assertThat(h.net.count()).as("dials after the refusal").isEqualTo(dials);
      assertThat(h.recorder.statuses).extracting(ChatStatus::state)
          .endsWith(ChatStatus.State.SIGNED_OUT);
    }
  }
}
