package dev.ddpkit.ddp.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A text frame the {@link TestDdpServer} received.
 *
 * @param connectionId the id of the connection it came on ({@link TestConnection#id()})
 * @param text the frame as received
 * @param json the parsed frame, or a missing node if it was not JSON
 */
public record ReceivedFrame(int connectionId, String text, JsonNode json) {
  /** Validates the components. */
  public ReceivedFrame {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(json, "json");
  }

  /** Returns the DDP {@code msg} field, or an empty string if there is none. */
  public String msg() {
    JsonNode msg = json.path("msg");
    return msg.isTextual() ? msg.textValue() : "";
  }
}
