package dev.ddpkit.consumer;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A chat app's first steps on {@code dev.ddpkit:chat-client}, which it depends on by its Maven
 * coordinates: log in, join a room, send a message, and see the server's copy of it in the room.
 */
public final class ChatExample {
  private ChatExample() {}

  /** Runs the example against the server at {@code args[0]}, printing the message it sent. */
  public static void main(String[] args) throws Exception {
    System.out.println(run(args[0], "bob", "bob-pw", "general", "hello from a chat app"));
  }

  /**
   * Logs in as {@code user}, joins {@code room}, sends {@code text}, and returns the message as
   * the room's stream showed it, once the server has acknowledged it.
   */
  public static ChatMessage run(String url, String user, String password, String room, String text)
      throws Exception {
    CompletableFuture<ChatMessage> shown = new CompletableFuture<>();
    ChatListener listener = new ChatListener() {
      @Override
      public void onMessage(ChatMessage message) {
        if (message.user().equals(user) && message.text().equals(text)) {
          shown.complete(message);
        }
      }
    };
    try (ChatClient chat = ChatClient.builder()
        .url(url).username(user).password(password).room(room).listener(listener).build()) {
      chat.start();
      chat.loggedIn().get(20, TimeUnit.SECONDS);
      chat.sendMessage(room, text);
      chat.flush().get(20, TimeUnit.SECONDS);     // acknowledged by the server
      return shown.get(20, TimeUnit.SECONDS);     // and shown in the room, from its stream
    }
  }
}
