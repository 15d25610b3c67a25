package dev.ddpkit.chat;

import java.util.Objects;

/**
 * One change to what the user sees of a room, as a {@link RoomTimeline} decides it.
 *
 * @param kind what happened
 * @param rid the room id
 * @param id the message id
 * @param message the message as it is now ({@link Kind#MESSAGE}, {@link Kind#EDITED}), or the
 *     last version shown ({@link Kind#DELETED})
 */
public record RoomEvent(Kind kind, String rid, String id, ChatMessage message) {
  /** What happened to the message. */
  public enum Kind {
    /** A message to show, for the first time. */
    MESSAGE,
    /** A message shown before has a newer version. */
    EDITED,
    /** A message shown before is gone: remove it from the screen. */
    DELETED
  }

  /** Validates the components. */
  public RoomEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(rid, "rid");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(message, "message");
  }

  static RoomEvent of(Kind kind, ChatMessage m) {
    return new RoomEvent(kind, m.rid(), m.id(), m);
  }
}
