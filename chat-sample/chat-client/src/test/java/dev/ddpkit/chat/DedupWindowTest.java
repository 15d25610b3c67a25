package dev.ddpkit.chat;

import static dev.ddpkit.chat.ChatHarness.history;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * {@link ChatClientBuilder#dedupWindow}: how many shown ids per room the client remembers to drop a
 * message that comes again. The test plays the server and pushes a message a second time after
 * three others.
 */
class DedupWindowTest {

  @Test
  void aMessageWithinTheWindowIsDroppedTheSecondTime() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general").dedupWindow(4))) {
      joined(h);
      pushFourThenTheFirstAgain(h);
      assertThat(h.recorder.ids()).containsExactly("m1", "m2", "m3", "m4");
      assertThat(h.recorder.duplicates()).isZero();
    }
  }

  @Test
  void aMessageOlderThanTheWindowIsForgotten() {
    try (ChatHarness h = new ChatHarness(b -> b.room("general").dedupWindow(3))) {
      joined(h);
      pushFourThenTheFirstAgain(h);
      assertThat(h.recorder.ids()).containsExactly("m1", "m2", "m3", "m4", "m1");
      assertThat(h.recorder.duplicates()).isEqualTo(1);
    }
  }

  @Test
  void aWindowOutOfRangeIsRefused() {
    assertThatThrownBy(() -> ChatClient.builder().dedupWindow(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dedupWindow");
    assertThatThrownBy(() -> ChatClient.builder().dedupWindow(1_000_001))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..1000000");
  }

  private static void joined(ChatHarness h) {
    h.start().loggedIn(h.expect("login"));
    h.ready(h.expect("sub general"));
    h.result(h.expect("loadHistory general"), history());
  }

  private static void pushFourThenTheFirstAgain(ChatHarness h) {
    for (int i = 1; i <= 4; i++) {
      h.push("general", "m" + i, "text " + i, 1_000L * i);
    }
    h.push("general", "m1", "text 1", 1_000);
  }
}
