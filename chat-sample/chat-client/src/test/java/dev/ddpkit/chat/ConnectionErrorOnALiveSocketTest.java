package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static dev.ddpkit.chat.ChatHarness.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (review): an answer that says the connection is unusable (a server-sent {@code
 * invocation-failed}, a result whose error is malformed) made the session drop everything and wait
 * for the DDP client's next "connected"; but the socket stayed up, so none came, and the client
 * stayed "connecting" for good. Now it logs in again on the same socket after the retry backoff.
 */
class ConnectionErrorOnALiveSocketTest {
  private static final Duration BACKOFF = Duration.ofSeconds(5);

  private static ChatHarness harness() {
    return new ChatHarness(b -> b.room("r1").retryBackoff(Backoff.fixed(BACKOFF)));
  }

  @Test
  void aLoginAnsweredInvocationFailedIsTriedAgainAfterTheBackoff() {
    try (ChatHarness h = harness()) {
      h.start().error(h.expect("login"), "invocation-failed", null);
      h.advance(BACKOFF.minusMillis(1)).expectNothing();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTING);
      h.advance(Duration.ofMillis(1));
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.result(h.expect("loadHistory r1"), history(message("r1", "m1", "one", 1000)));
      h.expectNothing();
      assertThat(h.recorder.texts()).containsExactly("one");
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
      assertThat(h.net.count()).as("dials: the socket stayed up").isEqualTo(1);
    }
  }

  @Test
  void aMalformedErrorToAFetchLogsInAgainRejoinsAndShowsEverythingOnce() {
    try (ChatHarness h = harness()) {
      h.start().loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      Frame fetch = h.expect("loadHistory r1");
      h.raw("{'msg':'result','id':'" + fetch.id() + "','error':'not an object'}");
      assertThat(h.sent()).containsExactly("unsub"); // the stream went with the "connection"
      h.push("r1", "m2", "two", 2000); // a late event: held while the room catches up
      h.advance(BACKOFF.minusMillis(1)).expectNothing();
      h.advance(Duration.ofMillis(1));
      h.loggedIn(h.expect("login"));
      h.ready(h.expect("sub r1"));
      h.push("r1", "m3", "three", 3000); // held until the history is in
      h.result(h.expect("loadHistory r1"),
          history(message("r1", "m2", "two", 2000), message("r1", "m1", "one", 1000)));
      assertThat(h.recorder.texts()).containsExactly("one", "two", "three");
      assertThat(h.recorder.duplicates()).isZero();
      assertThat(h.client.status().state()).isEqualTo(ChatStatus.State.CONNECTED);
    }
  }

  @Test
  void aSendAnsweredInvocationFailedIsSentAgainWithItsIdAfterTheLogin() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0)
        .retryBackoff(Backoff.fixed(BACKOFF)))) {
      h.start().loggedIn(h.expect("login"));
      String id = h.client.sendMessage("r1", "hello");
      h.error(h.expect("sendMessage r1 hello"), "invocation-failed", null);
      h.advance(BACKOFF.minusMillis(1)).expectNothing();
      h.advance(Duration.ofMillis(1));
      h.loggedIn(h.expect("login"));
      Frame send = h.expect("sendMessage r1 hello");
      assertThat(send.params().path(0).path("_id").asText()).isEqualTo(id);
      h.result(send, null);
      assertThat(h.recorder.sent).containsExactly(id);
    }
  }

  @Test
  void aConnectionReallyLostDoesNotLogInTwice() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0)
        .retryBackoff(Backoff.fixed(Duration.ofMillis(100))))) {
      h.start().loggedIn(h.expect("login"));
      h.client.sendMessage("r1", "in flight");
      h.expect("sendMessage r1 in flight");
      h.reconnect(); // the send fails with invocation-failed, then the status says lost
      h.loggedIn(h.expect("login"));
      h.expect("sendMessage r1 in flight");
      h.advance(Duration.ofSeconds(30)).expectNothing();
      assertThat(h.net.count()).isEqualTo(2);
    }
  }
}
