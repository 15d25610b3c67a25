package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.protocol.RocketChatNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code messages/get(rid, options)}, Rocket.Chat's sync method (the one behind REST {@code
 * chat.syncMessages}), in its three modes with its answers and errors:
 *
 * <ul>
 *   <li>{@code {lastUpdate: {$date}}}: {@code {updated, deleted}}, everything changed after it in
 *       one answer, each newest {@code ts} first, the deleted ones as {@code {_id, _deletedAt}};
 *   <li>{@code {type: "UPDATED"|"DELETED", next|previous: "<epoch ms>", count}} (count 20 by
 *       default): one page in {@code _updatedAt} (or {@code _deletedAt}) order, ascending after
 *       {@code next}, descending before {@code previous}, with {@code cursor: {next, previous}};
 *       {@code next} is the page's last time, null on the last page;
 *   <li>neither: the room's latest {@code count} messages, {@code {messages}}, newest first.
 * </ul>
 *
 * Errors, checked in Rocket.Chat's order: {@code error-not-allowed} (not a member),
 * {@code error-type-param-not-supported}, {@code error-type-param-required} (a cursor without a
 * type), {@code error-cursor-conflict} (both cursors), {@code error-cursor-and-lastUpdate-conflict};
 * a cursor that is not a number is a plain 500, as there.
 */
final class MessagesGet {
  static final String METHOD = RocketChatNames.MESSAGES_GET;
  static final int DEFAULT_COUNT = 20;
  static final int MAX_COUNT = 1000;
  /** JavaScript's parseInt: leading blanks, a sign and digits; the rest is ignored. */
  private static final Pattern PARSE_INT = Pattern.compile("\\s*([+-]?\\d{1,18}).*", Pattern.DOTALL);
  private static final Comparator<ObjectNode> NEWEST_TS_FIRST = Comparator.comparingLong(
      (ObjectNode m) -> m.path("ts").path("$date").asLong()).reversed();

  private final StoreMemory reads;

  MessagesGet(ChatStore store) {
    this.reads = store.reads();
  }

  /** Whether the call is a catch-up (lastUpdate or a cursor), not a history read. */
  static boolean isCatchUp(ArrayNode p) {
    JsonNode o = p.get(1);
    return o != null && o.isObject() && (present(o, "lastUpdate") || present(o, "next")
        || present(o, "previous"));
  }

  JsonNode call(Session s, ArrayNode p) throws MethodError {
    JsonNode ridNode = p.get(0);
    if (ridNode == null || !ridNode.isTextual()) {
      throw new MethodError(400, "Match failed");
    }
    String rid = ridNode.textValue();
    if (rid.isEmpty()) {
      throw MethodError.invalid("error-invalid-room", "Invalid room");
    }
    if (!reads.isMember(rid, s.username())) {
      throw MethodError.notAllowed("Not allowed");
    }
    JsonNode o = p.get(1);
    if (o == null || o.isNull()) {
      o = Frames.object();
    } else if (!o.isObject()) {
      throw new MethodError(400, "Match failed");
    }
    String type = present(o, "type") ? o.get("type").asText() : null;
    if (type != null && !type.equals("UPDATED") && !type.equals("DELETED")) {
      throw new MethodError("error-type-param-not-supported",
          "The \"type\" parameter must be either \"UPDATED\" or \"DELETED\"");
    }
    String next = present(o, "next") ? o.get("next").asText() : null;
    String previous = present(o, "previous") ? o.get("previous").asText() : null;
    boolean cursor = next != null || previous != null;
    if (cursor && type == null) {
      throw new MethodError("error-type-param-required",
          "The \"type\" parameter is required when using the \"next\" or \"previous\" parameters");
    }
    if (next != null && previous != null) {
      throw new MethodError("error-cursor-conflict",
          "You cannot provide both \"next\" and \"previous\" parameters");
    }
    boolean hasLastUpdate = present(o, "lastUpdate");
    if (cursor && hasLastUpdate) {
      throw new MethodError("error-cursor-and-lastUpdate-conflict",
          "The attributes \"next\", \"previous\" and \"lastUpdate\" cannot be used together");
    }
    int count = count(o.get("count"));
    if (hasLastUpdate) {
      return sinceLastUpdate(rid, Frames.dateOr(o.get("lastUpdate"), 0, "lastUpdate"));
    }
    if (cursor) {
      return page(rid, type.equals("DELETED"), count, next, previous);
    }
    ObjectNode r = Frames.object();
    ArrayNode arr = r.putArray("messages");
    reads.history(rid, Long.MAX_VALUE, count).forEach(arr::add);
    return r;
  }

  private static boolean present(JsonNode o, String field) {
    JsonNode v = o.get(field);
    // JavaScript truthiness, as the server tests it: null, "" and false are absent.
    return v != null && !v.isNull() && !(v.isTextual() && v.textValue().isEmpty())
        && !(v.isBoolean() && !v.booleanValue());
  }

  private static int count(JsonNode c) throws MethodError {
    if (c == null || c.isNull()) {
      return DEFAULT_COUNT;
    }
    if (!c.isNumber()) {
      throw new MethodError(400, "Match failed");
    }
    return (int) Math.max(1, Math.min(MAX_COUNT, c.asLong()));
  }

  private JsonNode sinceLastUpdate(String rid, long lastUpdate) {
    List<ObjectNode> updated = new ArrayList<>(
        reads.updated(rid, lastUpdate, /* ascending= */ true, Integer.MAX_VALUE));
    List<ObjectNode> deleted = new ArrayList<>(
        reads.deleted(rid, lastUpdate, /* ascending= */ true, Integer.MAX_VALUE));
    updated.sort(NEWEST_TS_FIRST);
    deleted.sort(NEWEST_TS_FIRST);
    ObjectNode r = Frames.object();
    ArrayNode u = r.putArray("updated");
    updated.forEach(u::add);
    ArrayNode d = r.putArray("deleted");
    deleted.forEach(m -> d.add(deletedEntry(m)));
    return r;
  }

  private JsonNode page(String rid, boolean deletions, int count, String next, String previous)
      throws MethodError {
    boolean ascending = next != null;
    long bound = parseCursor(ascending ? next : previous);
    List<ObjectNode> found = deletions
        ? reads.deleted(rid, bound, ascending, count + 1)
        : reads.updated(rid, bound, ascending, count + 1);
    String timeField = deletions ? "_deletedAt" : "_updatedAt";
    boolean more = found.size() > count;
    String nextCursor;
    String previousCursor;
    if (found.isEmpty()) {
      nextCursor = null;
      previousCursor = null;
    } else if (ascending) {
      nextCursor = more ? cursorOf(found.get(found.size() - 2), timeField) : null;
      previousCursor = cursorOf(found.get(0), timeField);
    } else {
      nextCursor = cursorOf(found.get(0), timeField);
      previousCursor = more ? cursorOf(found.get(found.size() - 2), timeField) : null;
    }
    if (more) {
      found.remove(found.size() - 1);
    }
    ObjectNode r = Frames.object();
    ArrayNode u = r.putArray("updated");
    ArrayNode d = r.putArray("deleted");
    for (ObjectNode m : found) {
      if (deletions) {
        d.add(deletedEntry(m));
      } else {
        u.add(m);
      }
    }
    ObjectNode c = r.putObject("cursor");
    c.put("next", nextCursor);
    c.put("previous", previousCursor);
    return r;
  }

  private static ObjectNode deletedEntry(ObjectNode trashed) {
    ObjectNode e = Frames.object();
    e.put("_id", trashed.path("_id").asText());
    e.set("_deletedAt", trashed.path("_deletedAt"));
    return e;
  }

  private static String cursorOf(ObjectNode m, String timeField) {
    return Long.toString(m.path(timeField).path("$date").asLong());
  }

  /** A cursor as Rocket.Chat reads it; not a number is the plain error Rocket.Chat answers. */
  private static long parseCursor(String cursor) throws MethodError {
    Matcher m = PARSE_INT.matcher(cursor);
    if (!m.matches()) {
      throw new MethodError(500, "Internal server error");
    }
    return Long.parseLong(m.group(1));
  }
}
