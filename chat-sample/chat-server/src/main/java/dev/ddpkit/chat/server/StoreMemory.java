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
  /** Each user's token keys with their creation times (for the cap on tokens per user). */
  private final Map<String, Map<String, Long>> tokensByUser = new ConcurrentHashMap<>();
  private final Map<String, String> rooms = new ConcurrentHashMap<>();
  /** Message id to "rid ts": where the message is stored. */
  private final Map<String, String> messageIds = new ConcurrentHashMap<>();
  private final Map<String, NavigableMap<Long, String>> roomMessages = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> members = new ConcurrentHashMap<>();
  /** Each room's live messages by {@code _updatedAt} (unique: every change has its own time). */
  private final Map<String, NavigableMap<Long, String>> roomUpdates = new ConcurrentHashMap<>();
  /** Deleted messages ({@code {_id, rid, ts, _deletedAt}}) by id: Rocket.Chat's trash. */
  private final Map<String, String> trash = new ConcurrentHashMap<>();
  /** Each room's deleted message ids by {@code _deletedAt}. */
  private final Map<String, NavigableMap<Long, String>> roomTrash = new ConcurrentHashMap<>();
  /**
   * Index entries ({@code rid ts}) of edits' old versions, removed only once the edit is durable:
   * until then a read of changes still finds the message under its old time (a read that found it
   * under neither would never show it). The applying thread only.
   */
  private final List<String> staleUpdates = new ArrayList<>();
  /** The newest message time stamp applied; the applying thread only. */
  private long lastTs;
  /** The newest change time (ts, _updatedAt, _deletedAt) applied; the applying thread only. */
  private long lastChange;
  /** The newest message time stamp that is durable: reads see messages up to it. */
  private volatile long durableTs;
  /** The newest change time that is durable: reads of changes see them up to it. */
  private volatile long durableChange;

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
        roomUpdates.putIfAbsent(key, new ConcurrentSkipListMap<>());
        roomTrash.putIfAbsent(key, new ConcurrentSkipListMap<>());
      }
      case "token" -> {
        tokens.put(key, Frames.write(v));
        String user = v.path("username").asText();
        if (!user.isEmpty()) {
          tokensByUser.computeIfAbsent(user, u -> new ConcurrentHashMap<>())
              .put(key, v.path("created").asLong());
        }
      }
      case "untoken" -> {
        String had = tokens.remove(key);
        if (had != null) {
          tokensByUser.computeIfPresent(Frames.readStored(had).path("username").asText(),
              (u, keys) -> {
                keys.remove(key);
                return keys.isEmpty() ? null : keys;
              });
        }
      }
      case "msg" -> {
        String rid = v.path("rid").asText();
        long ts = v.path("ts").path("$date").asLong();
        NavigableMap<Long, String> map = roomMessages.get(rid);
        if (map == null) {
          throw new IllegalStateException("message for unknown room " + rid);
        }
        map.put(ts, Frames.write(v));
        messageIds.put(v.path("_id").asText(), rid + " " + ts);
        long updatedAt = updatedAt(v, ts);
        roomUpdates.get(rid).put(updatedAt, v.path("_id").asText());
        lastTs = Math.max(lastTs, ts);
        lastChange = Math.max(lastChange, Math.max(ts, updatedAt));
      }
      case "edit" -> applyEdit((ObjectNode) v);
      case "del" -> applyDelete((ObjectNode) v);
      default -> throw new IllegalStateException("unknown journal record type '" + type + "'");
    }
  }

  private static long updatedAt(JsonNode m, long ts) {
    JsonNode u = m.path("_updatedAt").path("$date");
    return u.isIntegralNumber() ? u.asLong() : ts;
  }

  /** An edit record holds the whole edited message; it replaces the stored one in place. */
  private void applyEdit(ObjectNode v) {
    String id = v.path("_id").asText();
    ObjectNode old = message(id);
    if (old == null) {
      throw new IllegalStateException("edit of unknown message " + id);
    }
    String rid = old.path("rid").asText();
    long ts = old.path("ts").path("$date").asLong();
    long updatedAt = updatedAt(v, ts);
    roomMessages.get(rid).put(ts, Frames.write(v));
    NavigableMap<Long, String> updates = roomUpdates.get(rid);
    staleUpdates.add(rid + " " + updatedAt(old, ts));
    updates.put(updatedAt, id);
    lastChange = Math.max(lastChange, updatedAt);
  }

  /**
   * A deletion record ({@code {_id, rid, ts, _deletedAt}}) moves the message to the trash; on a
   * snapshot's replay the message is not there any more, and only the trash entry is made.
   */
  private void applyDelete(ObjectNode v) {
    String id = v.path("_id").asText();
    String rid = v.path("rid").asText();
    long deletedAt = v.path("_deletedAt").path("$date").asLong();
    NavigableMap<Long, String> trashed = roomTrash.get(rid);
    if (trashed == null) {
      throw new IllegalStateException("deletion in unknown room " + rid);
    }
    ObjectNode old = message(id);
    if (old != null) {
      long ts = old.path("ts").path("$date").asLong();
      roomMessages.get(rid).remove(ts);
      roomUpdates.get(rid).remove(updatedAt(old, ts));
      messageIds.remove(id);
    }
    trash.put(id, Frames.write(v));
    trashed.put(deletedAt, id);
    lastChange = Math.max(lastChange, deletedAt);
  }

  /** Every message applied so far is durable: reads may see it. */
  void markDurable() {
    durableTs = lastTs;
    durableChange = lastChange;
    for (String stale : staleUpdates) {
      int sp = stale.indexOf(' ');
      roomUpdates.get(stale.substring(0, sp)).remove(Long.parseLong(stale.substring(sp + 1)));
    }
    staleUpdates.clear();
  }

  /** The newest change time applied (the applying thread only): the next one must be later. */
  long lastChange() {
    return lastChange;
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
    trash.values().forEach(d -> records.add(Frames.write(record("del", null, Frames.readStored(d)))));
    return records;
  }

  /** How many records a snapshot would hold. */
  long liveRecords() {
    return users.size() + rooms.size() + tokens.size() + messageIds.size() + trash.size();
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

  /**
   * The keys of {@code username}'s tokens past its newest {@code keep}, oldest first (by their
   * creation time, then key): what a cap of {@code keep} removes.
   */
  List<String> tokensPast(String username, int keep) {
    Map<String, Long> keys = tokensByUser.get(username);
    if (keys == null || keys.size() <= keep) {
      return List.of();
    }
    List<Map.Entry<String, Long>> byAge = new ArrayList<>(keys.entrySet());
    byAge.sort(Map.Entry.<String, Long>comparingByValue()
        .thenComparing(Map.Entry.comparingByKey()));
    List<String> out = new ArrayList<>();
    for (int i = 0; i < byAge.size() - keep; i++) {
      out.add(byAge.get(i).getKey());
    }
    return out;
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

  /** The trash entry ({@code {_id, rid, ts, _deletedAt}}) of a deleted message, or null. */
  ObjectNode trashed(String id) {
    String json = trash.get(id);
    return json == null ? null : Frames.readStored(json);
  }

  /**
   * Up to {@code limit} durable live messages of the room changed after {@code after} (or before
   * {@code before}, when {@code ascending} is false), in {@code _updatedAt} order.
   */
  List<ObjectNode> updated(String rid, long bound, boolean ascending, int limit) {
    List<ObjectNode> out = new ArrayList<>();
    Set<String> seen = new java.util.HashSet<>();
    for (String id : changes(roomUpdates.get(rid), bound, ascending).values()) {
      if (out.size() >= limit) {
        break;
      }
      ObjectNode m = message(id);
      // An edit not yet durable is still indexed under its old time too: one entry per message.
      if (m != null && seen.add(id)) {
        out.add(m);
      }
    }
    return out;
  }

  /**
   * Up to {@code limit} durable trash entries of the room deleted after {@code bound} (or before
   * it, when {@code ascending} is false), in {@code _deletedAt} order.
   */
  List<ObjectNode> deleted(String rid, long bound, boolean ascending, int limit) {
    List<ObjectNode> out = new ArrayList<>();
    for (String id : changes(roomTrash.get(rid), bound, ascending).values()) {
      if (out.size() >= limit) {
        break;
      }
      ObjectNode d = trashed(id);
      if (d != null) {
        out.add(d);
      }
    }
    return out;
  }

  /** The durable part of a change index after (ascending) or before (descending) a bound. */
  private NavigableMap<Long, String> changes(NavigableMap<Long, String> index, long bound,
      boolean ascending) {
    long upTo = durableChange;
    if (index == null) {
      return new java.util.TreeMap<>();
    }
    if (ascending) {
      return bound >= upTo ? new java.util.TreeMap<>() : index.subMap(bound, false, upTo, true);
    }
    return index.headMap(Math.min(bound, upTo + 1), false).descendingMap();
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
    m.put("trash", (long) trash.size());
    return m;
  }
}
