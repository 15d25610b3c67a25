package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatHarness.Frame;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Rocket.Chat's answers to {@code sendMessage}, read the way Rocket.Chat means them. */
class RocketChatAnswersTest {

  @Test
  void aResultWithNoResultFieldMeansAlreadyDelivered() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0))) {
      h.start().loggedIn(h.expect("login"));
      String id = h.client.sendMessage("r1", "hi");
      h.result(h.expect("sendMessage r1 hi"), null);
      assertThat(h.recorder.sent).containsExactly(id);
      assertThat(h.client.outboxSize()).isZero();
      assertThat(h.recorder.errors).isEmpty();
    }
  }

  @Test
  void aMessageQueuedOfflineCarriesNoQueueTimeAndKeepsItsIdAcrossResends() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0))) {
      h.start().loggedIn(h.expect("login"));
      h.drop();
      String id = h.client.sendMessage("r1", "written offline");
      assertThat(h.client.status().text()).endsWith(", 1 waiting");
      h.advance(Duration.ofSeconds(1)).accept().loggedIn(h.expect("login"));
      Frame send = h.expect("sendMessage r1 written offline");
      assertThat(send.params().path(0).has("ts")).isFalse();
      assertThat(send.params().path(0).path("_id").asText()).isEqualTo(id);
      h.reconnect().loggedIn(h.expect("login")); // lost before the answer: sent again, same id
      Frame again = h.expect("sendMessage r1 written offline");
      assertThat(again.params().path(0).path("_id").asText()).isEqualTo(id);
      h.result(again, null);
      assertThat(h.recorder.sent).containsExactly(id);
      assertThat(h.client.status().text()).isEqualTo("connected");
    }
  }

  @Test
  void aMessageRefusedForGoodIsDroppedAndTheUserTold() {
    try (ChatHarness h = new ChatHarness(b -> b.historyLimit(0))) {
      h.start().loggedIn(h.expect("login"));
      String id = h.client.sendMessage("r1", "x");
      h.error(h.expect("sendMessage r1 x"), "error-not-allowed", null);
      assertThat(h.recorder.errors).singleElement().asString()
          .contains("message " + id + " to room r1 rejected");
      assertThat(h.client.outboxSize()).isZero();
    }
  }
}
