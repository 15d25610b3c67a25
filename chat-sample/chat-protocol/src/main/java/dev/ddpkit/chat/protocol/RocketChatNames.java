package dev.ddpkit.chat.protocol;

/**
 * The names of Rocket.Chat's DDP methods and streams that the client calls and the server
 * answers, written once for both sides (they were string literals in each). The method names are
 * the {@code method} of a DDP {@code method} frame, the stream names the {@code name} of a {@code
 * sub}; a {@code stream-notify-room} event is named {@code <rid>/<event>} ({@link #roomEvent}).
 */
public final class RocketChatNames {
  /** Logs in with a password digest or a resume token (Meteor's accounts). */
  public static final String LOGIN = "login";

  /** Logs out: the token is forgotten and the subscriptions end. */
  public static final String LOGOUT = "logout";

  /** Sends a message; its client-made {@code _id} makes a second copy a no-op. */
  public static final String SEND_MESSAGE = "sendMessage";

  /** Edits a message (same {@code _id}, a newer {@code _updatedAt}). */
  public static final String UPDATE_MESSAGE = "updateMessage";

  /** Deletes a message. */
  public static final String DELETE_MESSAGE = "deleteMessage";

  /** A room's messages before a time, newest first. */
  public static final String LOAD_HISTORY = "loadHistory";

  /** A room's messages since a time, on servers before {@link #MESSAGES_GET} (gone in 9). */
  public static final String LOAD_MISSED_MESSAGES = "loadMissedMessages";

  /** A room's messages updated and deleted since a time, or by pages with a cursor. */
  public static final String MESSAGES_GET = "messages/get";

  /** The user's rooms, or with {@code {"$date": since}} only those updated since then. */
  public static final String ROOMS_GET = "rooms/get";

  /** A room's new and edited messages, as {@code changed} events named by the room id. */
  public static final String STREAM_ROOM_MESSAGES = "stream-room-messages";

  /** A room's events, named {@code <rid>/<event>}: here the deletions. */
  public static final String STREAM_NOTIFY_ROOM = "stream-notify-room";

  /** The {@code stream-notify-room} event of one deleted message ({@code {_id}}). */
  public static final String EVENT_DELETE_MESSAGE = "deleteMessage";

  /** The {@code stream-notify-room} event of a pruned range (the ids, or the range and users). */
  public static final String EVENT_DELETE_MESSAGE_BULK = "deleteMessageBulk";

  private RocketChatNames() {}

  /** The name of room {@code rid}'s {@code stream-notify-room} event {@code event}. */
  public static String roomEvent(String rid, String event) {
    return rid + "/" + event;
  }
}
