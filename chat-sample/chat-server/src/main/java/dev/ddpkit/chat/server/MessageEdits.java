package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CompletableFuture;

/**
 * {@code updateMessage({_id, rid, msg})} and {@code deleteMessage({_id})} as Rocket.Chat answers
 * them: the author only ({@code error-action-not-allowed} for anyone else), no result on success,
 * and nothing at all (no error either) for a message that is not there, or an edit that changes
 * nothing, so that a re-sent edit or deletion is harmless. Both are durable before they are
 * answered and broadcast.
 */
final class MessageEdits {
  private final ChatStore store;

  MessageEdits(ChatStore store) {
    this.store = store;
  }

  CompletableFuture<JsonNode> updateMessage(Session s, ArrayNode p) throws MethodError {
    JsonNode arg = p.get(0);
    String id = arg instanceof ObjectNode ? Frames.text(arg, "_id") : null;
    if (id == null) {
      throw new MethodError(400, "Match failed");
    }
    String rid = Frames.text(arg, "rid");
    checkMember(s, rid);
    String text = Frames.text(arg, "msg");
    if (text == null || text.isBlank()) {
      throw MethodError.invalid("error-invalid-msg", "msg is required and must not be empty");
    }
    if (text.length() > ChatMethods.MAX_TEXT_CHARS) {
      throw MethodError.invalid("error-invalid-msg",
          "Message is longer than " + ChatMethods.MAX_TEXT_CHARS + " characters");
    }
    return store.edit(id, rid, text, s.user).thenApply(outcome -> null);
  }

  CompletableFuture<JsonNode> deleteMessage(Session s, ArrayNode p) throws MethodError {
    JsonNode arg = p.get(0);
    String id = arg instanceof ObjectNode ? Frames.text(arg, "_id") : null;
    if (id == null) {
      throw new MethodError(400, "Match failed");
    }
    return store.delete(id, s.user).thenApply(outcome -> null);
  }

  private void checkMember(Session s, String rid) throws MethodError {
    if (rid == null || !store.reads().roomExists(rid)) {
      throw MethodError.invalid("error-invalid-room", "Invalid room");
    }
    if (!store.reads().isMember(rid, s.username())) {
      throw new MethodError("error-action-not-allowed", "Message editing not allowed");
    }
  }
}
