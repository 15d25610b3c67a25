package dev.ddpkit.bench.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MessageMixTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void theSameSeedGivesTheSameFrames() {
    assertThat(MessageMix.generate(500, 3, 0.05, 1).frames())
        .isEqualTo(MessageMix.generate(500, 3, 0.05, 1).frames());
  }

  @Test
  void everyRepeatFollowsItsOriginalAndTheCountsAgree() throws Exception {
    MessageMix mix = MessageMix.generate(2_000, 4, 0.05, 3);
    Set<String> seen = new HashSet<>();
    int repeats = 0;
    for (int i = 0; i < mix.size(); i++) {
      JsonNode f = MAPPER.readTree(mix.frames().get(i));
      assertThat(f.path("msg").asText()).isEqualTo("changed");
      String rid = f.path("fields").path("eventName").asText();
      JsonNode doc = f.path("fields").path("args").path(0);
      assertThat(doc.path("rid").asText()).isEqualTo(rid);
      boolean fresh = seen.add(doc.path("_id").asText());
      assertThat(mix.isDuplicate(i)).as("frame %d", i).isEqualTo(!fresh);
      repeats += fresh ? 0 : 1;
    }
    assertThat(seen).hasSize(mix.uniqueCount());
    assertThat(repeats).isPositive().isEqualTo(mix.size() - mix.uniqueCount());
    assertThat(mix.newMessagesIn(0, mix.size())).isEqualTo(mix.uniqueCount());
    assertThat(mix.rooms()).hasSize(4);
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> MessageMix.generate(0, 1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uniqueMessages");
    assertThatThrownBy(() -> MessageMix.generate(1, 1, 0.9, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicateRate");
  }
}
