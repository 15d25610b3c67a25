package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Found by the demo (issue 19): a messages/get read while an edit was applied but not yet durable
 * found the message under neither its old {@code _updatedAt} (already removed from the index) nor
 * its new one (not durable yet), so a client catching up then never showed it as a message; its
 * view converged only through the live edit. The old entry now stays until the edit is durable.
 */
class EditNotYetDurableHidesNothingTest {

  private static ObjectNode message(String id, long ts) {
    ObjectNode m = Frames.object();
    m.put("_id", id).put("rid", "r").put("msg", "first");
    m.set("ts", Frames.date(ts));
    m.putObject("u").put("_id", "u1").put("username", "alice");
    m.set("_updatedAt", Frames.date(ts));
    return m;
  }

  @Test
  void aReadBetweenAnEditAndItsFsyncStillFindsTheMessage() {
    StoreMemory memory = new StoreMemory();
    ObjectNode room = Frames.object();
    room.put("_id", "r");
    room.putArray("members").add("alice");
    memory.apply(StoreMemory.record("room", "r", room));
    memory.apply(StoreMemory.record("msg", null, message("m1", 100)));
    memory.markDurable();

    ObjectNode edited = message("m1", 100);
    edited.put("msg", "second");
    edited.set("_updatedAt", Frames.date(200));
    edited.set("editedAt", Frames.date(200));
    memory.apply(StoreMemory.record("edit", null, edited));
    // Applied, not yet durable: a catch-up since 50 must still find m1 (once).
    List<ObjectNode> during = memory.updated("r", 50, /* ascending= */ true, 100);
    assertThat(during).extracting(m -> m.path("_id").asText()).containsExactly("m1");

    memory.markDurable();
    assertThat(memory.updated("r", 50, true, 100)).extracting(m -> m.path("msg").asText())
        .containsExactly("second");
    assertThat(memory.updated("r", 150, true, 100)).hasSize(1);
    assertThat(memory.updated("r", 200, true, 100)).isEmpty();
  }
}
