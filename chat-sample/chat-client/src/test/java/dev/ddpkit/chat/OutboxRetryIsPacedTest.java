package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (review): a send failing for now was put back in the queue with a delayed send job,
 * but any other send job already waiting (a message written meanwhile, or one waiting for the
 * {@code sendMessage} budget) took the oldest queued message, the failed one, and re-sent it at
 * once: the outbox's backoff was skipped. Now a failure for now holds the whole outbox (order kept)
 * on one timer, the retry backoff's.
 */
class OutboxRetryIsPacedTest {
  private static final Duration BACKOFF = Duration.ofSeconds(10);

  @Test
  void aMessageWrittenAfterAFailedSendDoesNotSendTheFailedOneBeforeTheBackoff() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0).limits(ChatLimits.none())
        .retryBackoff(Backoff.fixed(BACKOFF)))) {
      h.start().loggedIn(h.expect("login"));
      String a = h.client.sendMessage("r1", "a");
      h.error(h.expect("sendMessage r1 a"), "500", null);
      String c = h.client.sendMessage("r1", "c");
      h.advance(BACKOFF.minusMillis(1)).expectNothing();
      h.advance(Duration.ofMillis(1));
      Frame resend = h.expect("sendMessage r1 a");
      assertThat(resend.params().path(0).path("_id").asText()).isEqualTo(a);
      Frame next = h.expect("sendMessage r1 c");
      h.expectNothing();
      h.result(resend, null).result(next, null);
      assertThat(h.recorder.sent).containsExactly(a, c);
      assertThat(h.client.stats().resends()).isEqualTo(1);
    }
  }

  @Test
  void sendsWaitingForTheBudgetDoNotSkipTheBackoffOfAFailedOne() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0)
        .limits(ChatLimits.rocketChatDefaults()).retryBackoff(Backoff.fixed(BACKOFF)))) {
      h.start().loggedIn(h.expect("login"));
      for (int i = 0; i < 7; i++) {
        h.client.sendMessage("r1", "m" + i);
      }
      Frame first = h.expect("sendMessage r1 m0");
      for (int i = 1; i < 5; i++) {
        h.result(h.expect("sendMessage r1 m" + i), null);
      }
      h.expectNothing(); // m5 and m6 wait for the budget (5 per second)
      h.error(first, "500", null);
      h.advance(BACKOFF.minusMillis(1)).expectNothing();
      h.advance(Duration.ofMillis(1));
      assertThat(h.sent()).containsExactly("sendMessage r1 m0", "sendMessage r1 m5",
          "sendMessage r1 m6");
      assertThat(h.client.stats().resends()).isEqualTo(1);
    }
  }

  @Test
  void eachFailureInARowWaitsTheNextStepOfTheCurve() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0).limits(ChatLimits.none())
        .retryBackoff(Backoff.proportional(Duration.ofSeconds(1), Duration.ofSeconds(30), 0)))) {
      h.start().loggedIn(h.expect("login"));
      h.client.sendMessage("r1", "a");
      h.error(h.expect("sendMessage r1 a"), "500", null);
      h.advance(Duration.ofMillis(999)).expectNothing();
      h.advance(Duration.ofMillis(1));
      h.error(h.expect("sendMessage r1 a"), "500", null);
      h.advance(Duration.ofMillis(1_999)).expectNothing();
      h.advance(Duration.ofMillis(1));
      h.result(h.expect("sendMessage r1 a"), null);
      assertThat(h.recorder.sent).hasSize(1);
      assertThat(h.client.outboxSize()).isZero();
    }
  }
}
