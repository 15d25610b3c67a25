package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads Rocket.Chat message documents ({@code _id}, {@code rid}, {@code msg}, {@code u.username},
 * {@code ts} as EJSON {@code $date}, and {@code _updatedAt}, {@code editedAt}, {@code
 * editedBy.username} when there) without trusting their shape: a malformed document is
 * reported as empty, never as an exception.
 */
final class MessageParser {
  private MessageParser() {}

  /**
   * Parses one message document.
   *
   * @param doc the document
   * @param fallbackRid the room to assume when the document has no {@code rid} (the stream's event
   *     name), or {@code null}
   */
  static Optional<ChatMessage> parse(JsonNode doc, String fallbackRid) {
    if (doc == null || !doc.isObject()) {
      return Optional.empty();
    }
    String id = text(doc.get("_id"));
    String rid = text(doc.get("rid"));
    if (rid == null) {
      rid = fallbackRid;
    }
    String msg = text(doc.get("msg"));
    JsonNode u = doc.get("u");
    String user = u != null && u.isObject() ? text(u.get("username")) : null;
    Optional<Instant> ts = timestamp(doc.get("ts"));
    if (id == null || id.isEmpty() || rid == null || msg == null || user == null || !ts.isPresent()) {
      return Optional.empty();
    }
    Instant updatedAt = timestamp(doc.get("_updatedAt")).orElse(ts.get());
    Optional<Instant> editedAt = timestamp(doc.get("editedAt"));
    JsonNode by = doc.get("editedBy");
    String editedBy = by != null && by.isObject() ? text(by.get("username")) : null;
    if (editedAt.isPresent() != (editedBy != null)) {
      return Optional.empty(); // half an edit: not a message we can show right
    }
    return Optional.of(new ChatMessage(id, rid, user, msg, ts.get(), updatedAt,
        editedAt.orElse(null), editedBy));
  }

  /**
   * Parses the {@code messages} array of a {@code loadHistory} or the array (or {@code
   * {"messages": [...]}}) answered by {@code loadMissedMessages}. Malformed entries are skipped and
   * counted in {@code malformed[0]}.
   */
  static List<ChatMessage> parseList(JsonNode result, String rid, int[] malformed) {
    JsonNode array = result;
    if (result != null && result.isObject()) {
      array = result.get("messages");
    }
    List<ChatMessage> out = new ArrayList<>();
    if (array == null || !array.isArray()) {
      if (result != null && !result.isNull() && !result.isMissingNode()) {
        malformed[0]++;
      }
      return out;
    }
    for (JsonNode doc : array) {
      Optional<ChatMessage> m = parse(doc, rid);
      if (m.isPresent() && m.get().rid().equals(rid)) {
        out.add(m.get());
      } else {
        malformed[0]++;
      }
    }
    return out;
  }

  /**
   * Parses {@code messages/get}'s {@code deleted} array ({@code [{_id, _deletedAt}]}) into id to
   * deletion time (null when absent). Malformed entries are skipped and counted.
   */
  static Map<String, Instant> deletions(JsonNode array, int[] malformed) {
    Map<String, Instant> out = new LinkedHashMap<>();
    if (array == null || array.isNull() || array.isMissingNode()) {
      return out;
    }
    if (!array.isArray()) {
      malformed[0]++;
      return out;
    }
    for (JsonNode d : array) {
      String id = d.isObject() ? text(d.get("_id")) : null;
      if (id == null || id.isEmpty()) {
        malformed[0]++;
      } else {
        out.put(id, timestamp(d.get("_deletedAt")).orElse(null));
      }
    }
    return out;
  }

  /** Reads an EJSON date ({@code {"$date": millis}}), a number of millis, or an ISO-8601 string. */
  static Optional<Instant> timestamp(JsonNode node) {
    if (node == null) {
      return Optional.empty();
    }
    JsonNode value = node.isObject() ? node.get("$date") : node;
    if (value == null) {
      return Optional.empty();
    }
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      return Optional.of(Instant.ofEpochMilli(value.longValue()));
    }
    if (value.isTextual()) {
      try {
        return Optional.of(Instant.parse(value.textValue()));
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() ? node.textValue() : null;
  }
}
