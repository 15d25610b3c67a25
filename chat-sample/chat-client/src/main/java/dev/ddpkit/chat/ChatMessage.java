package dev.ddpkit.chat;

import java.time.Instant;
import java.util.Objects;

/**
 * One chat message as the user sees it.
 *
 * @param id the message id ({@code _id}), unique across the server; chosen by the sending client
 * @param rid the room id
 * @param user the author's user name
 * @param text the message text
 * @param ts the server time stamp
 */
public record ChatMessage(String id, String rid, String user, String text, Instant ts) {
  /** Validates the components. */
  public ChatMessage {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(rid, "rid");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(ts, "ts");
  }
}
