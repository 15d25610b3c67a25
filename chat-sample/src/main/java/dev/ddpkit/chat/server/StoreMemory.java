package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * What the {@link ChatStore} holds, in memory: users, tokens, rooms with their members, and each
 * room's messages by time stamp, built by applying journal records one by one (on replay, and as
 * each write is applied). Records are applied by one thread at a time (the open, then the store's
 * writer); reads come from any thread, and reads of messages see only those already durable.
 */
final class StoreMemory {
  private final Map<String, String> users = new ConcurrentHashMap<>();
  private final Map<String, String> tokens = new ConcurrentHashMap<>();
  private final Map<String, String> rooms = new ConcurrentHashMap<>();
  /** Message id to "rid ts": where the message is stored. */
  private final Map<String, String> messageIds = new ConcurrentHashMap<>();
  private final Map<String, NavigableMap<Long, String>> roomMessages = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> members = new ConcurrentHashMap<>();
  /** The newest message time stamp applied; the applying thread only. */
  private long lastTs;
  /** The newest message time stamp that is durable: reads see messages up to it. */
  private volatile long durableTs;

  /** A journal record: its type, its key (or null) and its value (or null). */
  static ObjectNode record(String type, String key, JsonNode value) {
    ObjectNode r = Frames.object();
    r.put("t", type);
    if (key != null) {
      r.put("k", key);
    }
    if (value != null) {
      r.set("v", value);
    }
    return r;
  }

  /** Applies one journal record. */
  void apply(ObjectNode r) {
    String type = r.path("t").asText();
    String key = r.path("k").asText();
    JsonNode v = r.path("v");
    switch (type) {
      case "user" -> users.put(key, Frames.write(v));
      case "room" -> {
        rooms.put(key, Frames.write(v));
        members.put(key, memberSet((ObjectNode) v));
        roomMessages.putIfAbsent(key, new ConcurrentSkipListMap<>());
      }
      case "token" -> tokens.put(key, Frames.write(v));
      case "untoken" -> tokens.remove(key);
      case "msg" -> {
        String rid = v.path("rid").asText();
        long ts = v.path("ts").path("$date").asLong();
        NavigableMap<Long, String> map = roomMessages.get(rid);
        if (map == null) {
          throw new IllegalStateException("message for unknown room " + rid);
        }
        map.put(ts, Frames.write(v));
        messageIds.put(v.path("_id").asText(), rid + " " + ts);
        lastTs = Math.max(lastTs, ts);
      }
      default -> throw new IllegalStateException("unknown journal record type '" + type + "'");
    }
  }

  /** Every message applied so far is durable: reads may see it. */
  void markDurable() {
    durableTs = lastTs;
  }

  /** The newest message time stamp applied (the applying thread only). */
  long lastTs() {
    return lastTs;
  }

  /** The current state as journal records: users, rooms, tokens, then messages. */
  List<String> snapshot() {
    List<String> records = new ArrayList<>();
    users.forEach((k, v) -> records.add(Frames.write(record("user", k, Frames.readStored(v)))));
    rooms.forEach((k, v) -> records.add(Frames.write(record("room", k, Frames.readStored(v)))));
    tokens.forEach((k, v) -> records.add(Frames.write(record("token", k, Frames.readStored(v)))));
    for (NavigableMap<Long, String> room : roomMessages.values()) {
      for (String m : room.values()) {
        records.add(Frames.write(record("msg", null, Frames.readStored(m))));
      }
    }
    return records;
  }

  /** How many records a snapshot would hold. */
  long liveRecords() {
    return users.size() + rooms.size() + tokens.size() + messageIds.size();
  }

  private static Set<String> memberSet(ObjectNode room) {
    Set<String> set = new LinkedHashSet<>();
    room.path("members").forEach(m -> set.add(m.asText()));
    return Set.copyOf(set);
  }

  /** The stored user, or null. */
  ObjectNode user(String username) {
    String json = users.get(username);
    return json == null ? null : Frames.readStored(json);
  }

  /** True when the user exists. */
  boolean hasUser(String username) {
    return users.containsKey(username);
  }

  /** True when no user exists yet. */
  boolean hasNoUsers() {
    return users.isEmpty();
  }

  /** The stored token record under {@code key} (the token's hash), or null. */
  ObjectNode token(String key) {
    String json = tokens.get(key);
    return json == null ? null : Frames.readStored(json);
  }

  /** True when a token record is stored under {@code key}. */
  boolean hasToken(String key) {
    return tokens.containsKey(key);
  }

  /** True when the room exists. */
  boolean roomExists(String rid) {
    return members.containsKey(rid);
  }

  /** True when {@code username} is a member of room {@code rid}. */
  boolean isMember(String rid, String username) {
    Set<String> m = members.get(rid);
    return m != null && m.contains(username);
  }

  /** The stored message with this id (durable or about to be), or null. */
  ObjectNode message(String id) {
    String where = messageIds.get(id);
    if (where == null) {
      return null;
    }
    int sp = where.indexOf(' ');
    String json = roomMessages.get(where.substring(0, sp))
        .get(Long.parseLong(where.substring(sp + 1)));
    return Frames.readStored(json);
  }

  /** Up to {@code limit} durable messages of the room with ts < end, newest first. */
  List<ObjectNode> history(String rid, long endExclusive, int limit) {
    NavigableMap<Long, String> map = roomMessages.get(rid);
    List<ObjectNode> out = new ArrayList<>();
    if (map == null || limit <= 0 || endExclusive == Long.MIN_VALUE) {
      return out;
    }
    long from = Math.min(endExclusive - 1, durableTs);
    for (String json : map.headMap(from, /* inclusive= */ true).descendingMap().values()) {
      if (out.size() >= limit) {
        break;
      }
      out.add(Frames.readStored(json));
    }
    return out;
  }

  /** Up to {@code cap} durable messages of the room with ts > since, oldest first. */
  List<ObjectNode> since(String rid, long sinceExclusive, int cap) {
    NavigableMap<Long, String> map = roomMessages.get(rid);
    List<ObjectNode> out = new ArrayList<>();
    long upTo = durableTs;
    if (map == null || sinceExclusive == Long.MAX_VALUE || sinceExclusive >= upTo) {
      return out;
    }
    for (String json : map.subMap(sinceExclusive, false, upTo, true).values()) {
      if (out.size() >= cap) {
        break;
      }
      out.add(Frames.readStored(json));
    }
    return out;
  }

  /** The ids of the rooms {@code username} is a member of, in no particular order. */
  List<String> roomsOf(String username) {
    List<String> out = new ArrayList<>();
    members.forEach((rid, names) -> {
      if (names.contains(username)) {
        out.add(rid);
      }
    });
    return out;
  }

  /** The ts of the room's newest durable message, or Long.MIN_VALUE when it has none. */
  long lastMessageTs(String rid) {
    NavigableMap<Long, String> map = roomMessages.get(rid);
    Long ts = map == null ? null : map.floorKey(durableTs);
    return ts == null ? Long.MIN_VALUE : ts;
  }

  /** Number of messages stored in a room (durable or about to be). */
  long messageCount(String rid) {
    NavigableMap<Long, String> map = roomMessages.get(rid);
    return map == null ? 0 : map.size();
  }

  /** Counts of stored entries per map, for diagnostics. */
  Map<String, Long> sizes() {
    Map<String, Long> m = new HashMap<>();
    m.put("users", (long) users.size());
    m.put("tokens", (long) tokens.size());
    m.put("rooms", (long) rooms.size());
    m.put("messages", (long) messageIds.size());
    return m;
  }
}
