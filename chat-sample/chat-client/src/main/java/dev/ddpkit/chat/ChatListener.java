package dev.ddpkit.chat;

/**
 * Receives what a {@link ChatClient} sees. Calls for one client never overlap and come in order
 * (messages of a room in time-stamp order, each once; then each edit and deletion once); they are never made while the client holds
 * a lock, so a listener may call back into the client.
 */
public interface ChatListener {
  /** A listener that ignores everything. */
  ChatListener NONE = new ChatListener() {};

  /** A message to show: live, from the initial history, or caught up after a reconnect. */
  default void onMessage(ChatMessage message) {}

  /**
   * A message shown before was edited: {@code message} is its new version (text, {@code
   * editedAt}, {@code editedBy}). Each edit once, in the server's order; never for a deleted one.
   */
  default void onEdited(ChatMessage message) {}

  /**
   * A message was deleted: the user must not see it any more. Each deletion once; a deleted id is
   * never shown or edited again. {@code id} may be one never shown (deleted before it was seen).
   */
  default void onDeleted(String rid, String id) {}

  /** The server acknowledged a message this client sent. */
  default void onSent(String rid, String id) {}

  /**
   * The status changed. After each login it is {@link ChatStatus.State#SYNCING} while a room
   * catches up, then {@link ChatStatus.State#CONNECTED}, which comes after the messages the
   * catch-ups fetched (and after the error saying a catch-up failed, if one did).
   */
  default void onStatus(ChatStatus status) {}

  /** Something the user should know went wrong (a room refused, a message rejected). */
  default void onError(String message) {}
}
