package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's storage: an MVStore file in the data directory. Every write goes through one
 * writer thread that applies a batch of operations, then {@code commit()}s and {@code sync()}s
 * the file (commit writes a chunk, sync forces it to the device), and only then completes the
 * operations' futures: nothing is acknowledged before it is durable, and one fsync covers a whole
 * batch (group commit). Reads go straight to the maps from any thread; reads of messages only see
 * messages that are already durable.
 */
final class ChatStore {
  /** Name of the database file inside the data directory. */
  static final String FILE_NAME = "chat.mv.db";

  private static final Logger log = LoggerFactory.getLogger(ChatStore.class);
  private static final int QUEUE_CAPACITY = 1 << 16;
  private static final int MAX_BATCH = 1024;
  private static final String ROOM_MAP_PREFIX = "messages.";

  /** An append's outcome: the stored message, and whether it was stored before. */
  record Append(ObjectNode message, boolean duplicate) {}

  private final MVStore store;
  private final MVMap<String, String> users;
  private final MVMap<String, String> tokens;
  private final MVMap<String, String> rooms;
  private final MVMap<String, String> messageIds;
  private final MVMap<String, String> meta;
  private final Map<String, MVMap<Long, String>> roomMessages = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> members = new ConcurrentHashMap<>();
  private final ArrayBlockingQueue<Op<?>> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  private final Clock clock;
  private final Consumer<List<ObjectNode>> onDurable;
  private final Thread writer;
  private final Op<Void> poison = new Op<>(() -> null);

  private volatile boolean accepting = true;
  private volatile boolean abandon;
  private volatile long durableTs;
  /** Last ts handed out; written by the writer thread only. */
  private long lastTs;
  /** Messages appended in the batch being applied; writer thread only. */
  private final List<ObjectNode> batchMessages = new ArrayList<>();

  private ChatStore(Path dir, String threadName, Clock clock, Consumer<List<ObjectNode>> onDurable) {
    this.clock = clock;
    this.onDurable = onDurable;
    this.store = new MVStore.Builder()
        .fileName(dir.resolve(FILE_NAME).toString())
        .autoCommitDisabled() // we commit ourselves, and no background thread is started
        .open();
    this.users = store.openMap("users");
    this.tokens = store.openMap("tokens");
    this.rooms = store.openMap("rooms");
    this.messageIds = store.openMap("messageIds");
    this.meta = store.openMap("meta");
    for (Map.Entry<String, String> e : rooms.entrySet()) {
      members.put(e.getKey(), memberSet(Frames.readStored(e.getValue())));
      roomMessages.put(e.getKey(), store.openMap(ROOM_MAP_PREFIX + e.getKey()));
    }
    String last = meta.get("lastTs");
    this.lastTs = last == null ? 0 : Long.parseLong(last);
    this.durableTs = lastTs;
    this.writer = new Thread(this::writeLoop, threadName);
    this.writer.setDaemon(true);
  }

  /** Opens (or creates) the store in {@code dir} and starts its writer thread. */
  static ChatStore open(Path dir, String threadName, Clock clock,
      Consumer<List<ObjectNode>> onDurable) {
    ChatStore s = new ChatStore(dir, threadName, clock, onDurable);
    s.writer.start();
    return s;
  }

  private static Set<String> memberSet(ObjectNode room) {
    Set<String> set = new LinkedHashSet<>();
    room.path("members").forEach(m -> set.add(m.asText()));
    return Set.copyOf(set);
  }

  // ---------------------------------------------------------------- reads (any thread)

  /** The stored user, or null. */
  ObjectNode user(String username) {
    String json = users.get(username);
    return json == null ? null : Frames.readStored(json);
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

  /** True when the room exists. */
  boolean roomExists(String rid) {
    return members.containsKey(rid);
  }

  /** True when {@code username} is a member of room {@code rid}. */
  boolean isMember(String rid, String username) {
    Set<String> m = members.get(rid);
    return m != null && m.contains(username);
  }

  /** Up to {@code limit} durable messages of the room with ts < end, newest first. */
  List<ObjectNode> history(String rid, long endExclusive, int limit) {
    MVMap<Long, String> map = roomMessages.get(rid);
    List<ObjectNode> out = new ArrayList<>();
    if (map == null || limit <= 0 || endExclusive == Long.MIN_VALUE) {
      return out;
    }
    long from = Math.min(endExclusive - 1, durableTs);
    Cursor<Long, String> c = map.cursor(from, Long.MIN_VALUE, /* reverse= */ true);
    while (c.hasNext() && out.size() < limit) {
      c.next();
      out.add(Frames.readStored(c.getValue()));
    }
    return out;
  }

  /** Up to {@code cap} durable messages of the room with ts > since, oldest first. */
  List<ObjectNode> since(String rid, long sinceExclusive, int cap) {
    MVMap<Long, String> map = roomMessages.get(rid);
    List<ObjectNode> out = new ArrayList<>();
    long upTo = durableTs;
    if (map == null || sinceExclusive == Long.MAX_VALUE || sinceExclusive >= upTo) {
      return out;
    }
    Cursor<Long, String> c = map.cursor(sinceExclusive + 1, upTo, /* reverse= */ false);
    while (c.hasNext() && out.size() < cap) {
      c.next();
      out.add(Frames.readStored(c.getValue()));
    }
    return out;
  }

  /** Number of messages stored in a room (durable or about to be). */
  long messageCount(String rid) {
    MVMap<Long, String> map = roomMessages.get(rid);
    return map == null ? 0 : map.sizeAsLong();
  }

  // ---------------------------------------------------------------- writes (via the writer)

  /** Stores a new user; fails with IllegalArgumentException if the username is taken. */
  CompletableFuture<Void> createUser(String username, ObjectNode user) {
    return submit(() -> {
      if (users.putIfAbsent(username, Frames.write(user)) != null) {
        throw new IllegalArgumentException("username already exists: " + username);
      }
      return null;
    });
  }

  /** Creates a room with its members; fails with IllegalArgumentException if it exists. */
  CompletableFuture<Void> createRoom(String rid, Collection<String> memberNames) {
    return submit(() -> {
      if (rooms.containsKey(rid)) {
        throw new IllegalArgumentException("room already exists: " + rid);
      }
      ObjectNode room = Frames.object();
      room.put("_id", rid);
      ArrayNode arr = room.putArray("members");
      memberNames.forEach(arr::add);
      rooms.put(rid, Frames.write(room));
      roomMessages.put(rid, store.openMap(ROOM_MAP_PREFIX + rid));
      members.put(rid, Set.copyOf(memberNames));
      return null;
    });
  }

  /** Stores a token record under its hash. */
  CompletableFuture<Void> putToken(String key, ObjectNode record) {
    return submit(() -> {
      tokens.put(key, Frames.write(record));
      return null;
    });
  }

  /** Removes a token record. */
  CompletableFuture<Void> removeToken(String key) {
    return submit(() -> {
      tokens.remove(key);
      return null;
    });
  }

  /**
   * Appends a message unless a message with this {@code _id} exists: then answers the stored one
   * (if it is the same sender's, in the same room) and stores nothing.
   */
  CompletableFuture<Append> append(String id, String rid, String text, ObjectNode sender) {
    return submit(() -> {
      String where = messageIds.get(id);
      if (where != null) {
        return new Append(storedMessage(where, id, rid, sender), true);
      }
      long ts = Math.max(clock.millis(), lastTs + 1);
      ObjectNode m = Frames.object();
      m.put("_id", id);
      m.put("rid", rid);
      m.put("msg", text);
      m.set("ts", Frames.date(ts));
      m.set("u", sender.deepCopy());
      m.set("_updatedAt", Frames.date(ts));
      roomMessages.get(rid).put(ts, Frames.write(m));
      messageIds.put(id, rid + " " + ts);
      lastTs = ts;
      meta.put("lastTs", Long.toString(ts));
      batchMessages.add(m);
      return new Append(m, false);
    });
  }

  private ObjectNode storedMessage(String where, String id, String rid, ObjectNode sender) {
    int sp = where.indexOf(' ');
    String storedRid = where.substring(0, sp);
    String json = roomMessages.get(storedRid).get(Long.parseLong(where.substring(sp + 1)));
    ObjectNode stored = Frames.readStored(json);
    if (!storedRid.equals(rid) || !stored.path("u").path("_id").equals(sender.path("_id"))) {
      throw new CompletionFailure(MethodError.invalid("error-invalid-message-id",
          "Message id " + id + " is already used"));
    }
    return stored;
  }

  /** Carries a MethodError out of a write operation. */
  static final class CompletionFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CompletionFailure(MethodError cause) {
      super(cause.reason(), cause, false, false);
    }
  }

  private <T> CompletableFuture<T> submit(Supplier<T> action) {
    Op<T> op = new Op<>(action);
    if (!accepting) {
      op.done.completeExceptionally(new IllegalStateException("store is closed"));
    } else if (!queue.offer(op)) {
      op.done.completeExceptionally(
          new CompletionFailure(new MethodError("error-too-busy", "Server is busy, try again")));
    }
    return op.done;
  }

  // ---------------------------------------------------------------- writer

  private void writeLoop() {
    List<Op<?>> batch = new ArrayList<>(MAX_BATCH);
    boolean stop = false;
    while (!stop && !abandon) {
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        // Nobody interrupts the writer on purpose: an interrupt during a file write would close
        // the channel. Treat it as an abandon.
        break;
      }
      queue.drainTo(batch, MAX_BATCH - 1);
      if (abandon) {
        // Killed: what was queued is dropped, as a crash would drop it.
        IllegalStateException killed = new IllegalStateException("store was killed");
        batch.forEach(op -> op.done.completeExceptionally(killed));
        break;
      }
      List<Op<?>> applied = new ArrayList<>(batch.size());
      for (Op<?> op : batch) {
        if (op == poison) {
          stop = true;
        } else if (op.apply()) {
          applied.add(op);
        }
      }
      batch.clear();
      if (!applied.isEmpty() || !batchMessages.isEmpty()) {
        makeDurable(applied);
      }
    }
    failPending();
  }

  private void makeDurable(List<Op<?>> applied) {
    try {
      store.commit();
      store.sync();
    } catch (RuntimeException e) {
      log.error("storage write failed; {} operations fail", applied.size(), e);
      batchMessages.clear();
      applied.forEach(op -> op.done.completeExceptionally(e));
      return;
    }
    durableTs = lastTs;
    if (!batchMessages.isEmpty()) {
      List<ObjectNode> fresh = List.copyOf(batchMessages);
      batchMessages.clear();
      try {
        onDurable.accept(fresh);
      } catch (RuntimeException e) {
        log.error("broadcast of {} messages failed", fresh.size(), e);
      }
    }
    applied.forEach(Op::complete);
  }

  private void failPending() {
    List<Op<?>> rest = new ArrayList<>();
    queue.drainTo(rest);
    IllegalStateException stopped = new IllegalStateException("store is closed");
    rest.forEach(op -> op.done.completeExceptionally(stopped));
  }

  /**
   * Stops the writer after it has written everything already submitted, then closes the file.
   */
  void close() {
    stopWriter(false);
    failPending();
    store.close();
  }

  /**
   * Simulates a crash: the writer stops after its current batch, what is queued is dropped, and
   * the file is closed with no further write. Acknowledged writes are already synced.
   */
  void closeImmediately() {
    stopWriter(true);
    failPending();
    store.closeImmediately();
  }

  private void stopWriter(boolean abandonQueued) {
    accepting = false;
    abandon = abandonQueued;
    boolean interrupted = false;
    try {
      if (!queue.offer(poison, 5, TimeUnit.SECONDS)) {
        log.warn("store writer did not take the stop request in 5 s");
      }
      writer.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      interrupted = true;
    }
    if (writer.isAlive()) {
      log.warn("store writer {} still running after close", writer.getName());
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** One write operation and the future completed once it is durable. */
  private static final class Op<T> {
    final Supplier<T> action;
    final CompletableFuture<T> done = new CompletableFuture<>();
    private T result;

    Op(Supplier<T> action) {
      this.action = action;
    }

    /** Applies the change in memory; false if it failed (its future is then failed). */
    boolean apply() {
      try {
        result = action.get();
        return true;
      } catch (CompletionFailure e) {
        done.completeExceptionally(e.getCause());
        return false;
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
        return false;
      }
    }

    void complete() {
      done.complete(result);
    }
  }

  /** Counts of stored entries per map, for diagnostics. */
  Map<String, Long> sizes() {
    Map<String, Long> m = new HashMap<>();
    m.put("users", users.sizeAsLong());
    m.put("tokens", tokens.sizeAsLong());
    m.put("rooms", rooms.sizeAsLong());
    m.put("messages", messageIds.sizeAsLong());
    return m;
  }
}
