package dev.ddpkit.chat;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One chat message as the user sees it.
 *
 * @param id the message id ({@code _id}), unique across the server; chosen by the sending client
 * @param rid the room id
 * @param user the author's user name
 * @param text the message text (the latest edit's)
 * @param ts the server time stamp
 * @param updatedAt the server's {@code _updatedAt}: the time of the latest change; a frame for a
 *     known id wins only with a newer one
 * @param editedAt when it was last edited, or null if never
 * @param editedBy who edited it last (a user name), or null if never edited
 */
public record ChatMessage(String id, String rid, String user, String text, Instant ts,
    Instant updatedAt, Instant editedAt, String editedBy) {
  /** Validates the components. */
  public ChatMessage {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(rid, "rid");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(ts, "ts");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if ((editedAt == null) != (editedBy == null)) {
      throw new IllegalArgumentException("editedAt and editedBy come together: " + editedAt + ", "
          + editedBy);
    }
  }

  /** A message never edited: its {@code _updatedAt} is its {@code ts}. */
  public ChatMessage(String id, String rid, String user, String text, Instant ts) {
    this(id, rid, user, text, ts, ts, null, null);
  }

  /** Whether the message was edited. */
  public boolean edited() {
    return editedAt != null;
  }

  /** When it was last edited, if it was. */
  public Optional<Instant> lastEdit() {
    return Optional.ofNullable(editedAt);
  }
}
