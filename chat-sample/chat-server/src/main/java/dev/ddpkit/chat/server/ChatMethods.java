package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.protocol.RocketChatNames;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * The chat methods of a logged-in connection, as Rocket.Chat answers them: {@code sendMessage},
 * {@code loadHistory}, {@code loadMissedMessages} and {@code rooms/get}. Every peer input is
 * validated and refused with a {@link MethodError}.
 */
final class ChatMethods {
  static final int MAX_TEXT_CHARS = 5000;
  static final int MAX_MISSED = 10_000;
  static final int MAX_HISTORY = 1000;
  static final int DEFAULT_HISTORY = 20;
  /** How far a client's message {@code ts} may be from the server's clock (Rocket.Chat's 60 s). */
  static final long MAX_TS_SKEW_MILLIS = 60_000;
  static final Pattern MESSAGE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private final ChatStore store;
  private final Counters counters;
  private final Clock clock;

  ChatMethods(ChatStore store, Counters counters, Clock clock) {
    this.store = store;
    this.counters = counters;
    this.clock = clock;
  }

  /**
   * Stores a message unless its {@code _id} exists. A repeat of a stored {@code _id} is answered
   * as Rocket.Chat does, with no result at all (the future completes with null); a {@code ts}
   * more than 60 s from the server's clock is refused. The stored {@code ts} is always the
   * server's: catch-up by time relies on every room's order being the server's.
   */
  CompletableFuture<JsonNode> sendMessage(Session s, ArrayNode p) throws MethodError {
    JsonNode arg = p.get(0);
    if (!(arg instanceof ObjectNode)) {
      throw MethodError.invalid("error-invalid-params", "sendMessage takes one message object");
    }
    String id = Frames.text(arg, "_id");
    if (id == null || !MESSAGE_ID.matcher(id).matches()) {
      throw MethodError.invalid("error-invalid-message-id",
          "_id is required: 1 to 64 characters of A-Z a-z 0-9 _ -");
    }
    String rid = Frames.text(arg, "rid");
    checkRoom(s, rid);
    String text = Frames.text(arg, "msg");
    if (text == null) {
      throw MethodError.invalid("error-invalid-msg", "msg is required and must be a string");
    }
    if (text.length() > MAX_TEXT_CHARS) {
      throw MethodError.invalid("error-invalid-msg",
          "Message is longer than " + MAX_TEXT_CHARS + " characters");
    }
    if (text.isBlank()) {
      throw MethodError.invalid("error-invalid-msg", "Message is empty");
    }
    checkTimestamp(arg.get("ts"));
    return store.append(id, rid, text, s.user).thenApply(a -> {
      if (a.duplicate()) {
        counters.duplicatesIgnored.incrementAndGet();
        return null;
      }
      return a.message();
    });
  }

  private void checkTimestamp(JsonNode ts) throws MethodError {
    long now = clock.millis();
    long clientTs = Frames.dateOr(ts, now, "ts");
    if (Math.abs(clientTs - now) > MAX_TS_SKEW_MILLIS) {
      ObjectNode details = Frames.object();
      details.put("method", RocketChatNames.SEND_MESSAGE);
      details.set("message_ts", Frames.date(clientTs));
      details.set("server_ts", Frames.date(now));
      throw new MethodError("error-message-ts-out-of-sync", "Message timestamp is out of sync",
          details);
    }
  }

  JsonNode loadHistory(Session s, ArrayNode p) throws MethodError {
    String rid = p.path(0).isTextual() ? p.get(0).textValue() : null;
    checkRoom(s, rid);
    long end = Frames.dateOr(p.get(1), Long.MAX_VALUE, "end");
    JsonNode l = p.get(2);
    int limit;
    if (l == null || l.isNull()) {
      limit = DEFAULT_HISTORY;
    } else if (l.isNumber()) {
      limit = (int) Math.max(0, Math.min(MAX_HISTORY, l.asLong()));
    } else {
      throw MethodError.invalid("error-invalid-limit", "limit must be a number");
    }
    Frames.dateOr(p.get(3), 0, "lastSeen"); // validated, not used: nothing is "unread" here
    ObjectNode r = Frames.object();
    ArrayNode arr = r.putArray("messages");
    store.reads().history(rid, end, limit).forEach(arr::add);
    r.put("unreadNotLoaded", 0);
    return r;
  }

  JsonNode loadMissed(Session s, ArrayNode p) throws MethodError {
    String rid = p.path(0).isTextual() ? p.get(0).textValue() : null;
    checkRoom(s, rid);
    JsonNode since = p.get(1);
    if (since == null || since.isNull()) {
      throw MethodError.invalid("error-invalid-date", "since must be {\"$date\": millis}");
    }
    long from = Frames.dateOr(since, 0, "since");
    ArrayNode arr = JsonNodeFactory.instance.arrayNode();
    store.reads().since(rid, from, MAX_MISSED).forEach(arr::add);
    return arr;
  }

  /**
   * {@code rooms/get}: with {@code {"$date": since}}, Rocket.Chat's {@code {update: [...],
   * remove: []}} holding the user's rooms whose last message is newer than {@code since}; with no
   * argument (or null), an array of all the user's rooms, as Rocket.Chat answers. A room is
   * {@code {_id, t: "c", name, lm, _updatedAt}}, {@code lm} the time of its last message (absent
   * when it has none). Rooms are never removed here, so {@code remove} is always empty.
   */
  JsonNode roomsGet(Session s, ArrayNode p) throws MethodError {
    JsonNode since = p.get(0);
    boolean all = since == null || since.isNull();
    long from = Frames.dateOr(since, Long.MIN_VALUE, "updatedSince");
    ArrayNode rooms = JsonNodeFactory.instance.arrayNode();
    for (String rid : store.reads().roomsOf(s.username())) {
      long lm = store.reads().lastMessageTs(rid);
      if (all || lm > from) {
        rooms.add(room(rid, lm));
      }
    }
    if (all) {
      return rooms;
    }
    ObjectNode r = Frames.object();
    r.set("update", rooms);
    r.putArray("remove");
    return r;
  }

  private static ObjectNode room(String rid, long lm) {
    ObjectNode r = Frames.object();
    r.put("_id", rid);
    r.put("t", "c");
    r.put("name", rid);
    if (lm != Long.MIN_VALUE) {
      r.set("lm", Frames.date(lm));
      r.set("_updatedAt", Frames.date(lm));
    }
    return r;
  }

  private void checkRoom(Session s, String rid) throws MethodError {
    if (rid == null || !store.reads().roomExists(rid)) {
      throw MethodError.invalid("error-invalid-room", "Invalid room");
    }
    if (!store.reads().isMember(rid, s.username())) {
      throw MethodError.notAllowed("Not allowed");
    }
  }
}
