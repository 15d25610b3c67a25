package dev.ddpkit.bench.throughput;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * What reading a room event would cost if the chat path read its tokens instead of a tree: the
 * envelope ({@code msg}, {@code collection}, {@code id}), {@code fields.eventName}, and from
 * {@code fields.args[0]} the values the chat client's message parser reads ({@code _id}, {@code
 * rid}, {@code msg}, {@code u.username}, {@code ts} and {@code _updatedAt} as EJSON dates), every
 * other value skipped unbuilt. A bound for a token-reading stream listener, measured beside the
 * tree parse ({@link InboundBenchmark#parseStreamedChat}); not the client's code, and it checks
 * less than the client does (a frame it cannot read as expected is {@code null}).
 */
final class StreamedChatParse {
  /** The values read from one room event. */
  record Event(String collection, String eventName, String id, String rid, String text,
      String username, long ts, long updatedAt) {}

  private final JsonFactory factory = new JsonFactory();

  /** The event in a frame's UTF-8 bytes, or {@code null} if it is not one as expected. */
  Event parse(byte[] utf8, int offset, int length) throws IOException {
    try (JsonParser p = factory.createParser(utf8, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      String msg = null;
      String collection = null;
      Event event = null;
      for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
        JsonToken t = p.nextToken();
        switch (name) {
          case "msg" -> msg = t == JsonToken.VALUE_STRING ? p.getText() : null;
          case "collection" -> collection = t == JsonToken.VALUE_STRING ? p.getText() : null;
          case "fields" -> event = t == JsonToken.START_OBJECT ? fields(p, collection) : null;
          default -> p.skipChildren();
        }
      }
      return "changed".equals(msg) ? event : null;
    }
  }

  private static Event fields(JsonParser p, String collection) throws IOException {
    String eventName = null;
    Event doc = null;
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      if (name.equals("eventName") && t == JsonToken.VALUE_STRING) {
        eventName = p.getText();
      } else if (name.equals("args") && t == JsonToken.START_ARRAY) {
        if (p.nextToken() == JsonToken.START_OBJECT) {
          doc = message(p);
        }
        while (p.currentToken() != JsonToken.END_ARRAY) {
          p.nextToken();
          p.skipChildren();
        }
      } else {
        p.skipChildren();
      }
    }
    return doc == null || eventName == null ? null : new Event(collection, eventName, doc.id(),
        doc.rid(), doc.text(), doc.username(), doc.ts(), doc.updatedAt());
  }

  /** The message document's values; the envelope's are filled in by the caller. */
  private static Event message(JsonParser p) throws IOException {
    String id = null;
    String rid = null;
    String text = null;
    String username = null;
    long ts = -1;
    long updatedAt = -1;
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      switch (name) {
        case "_id" -> id = t == JsonToken.VALUE_STRING ? p.getText() : null;
        case "rid" -> rid = t == JsonToken.VALUE_STRING ? p.getText() : null;
        case "msg" -> text = t == JsonToken.VALUE_STRING ? p.getText() : null;
        case "ts" -> ts = date(p, t);
        case "_updatedAt" -> updatedAt = date(p, t);
        case "u" -> username = t == JsonToken.START_OBJECT ? username(p) : skip(p);
        default -> p.skipChildren();
      }
    }
    return new Event(null, null, id, rid, text, username, ts, updatedAt < 0 ? ts : updatedAt);
  }

  private static String username(JsonParser p) throws IOException {
    String username = null;
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      if (name.equals("username") && t == JsonToken.VALUE_STRING) {
        username = p.getText();
      } else {
        p.skipChildren();
      }
    }
    return username;
  }

  private static String skip(JsonParser p) throws IOException {
    p.skipChildren();
    return null;
  }

  /** An EJSON date {@code {"$date": millis}}, or -1. */
  private static long date(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      p.skipChildren();
      return -1;
    }
    long millis = -1;
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      JsonToken v = p.nextToken();
      if (name.equals("$date") && v == JsonToken.VALUE_NUMBER_INT) {
        millis = p.getLongValue();
      } else {
        p.skipChildren();
      }
    }
    return millis;
  }
}
