package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's storage: an append-only journal in the data directory, one checksummed JSON record
 * a line (the format is {@link Journal}'s), replayed into memory on open. Every write goes through one writer thread that applies a batch
 * of operations in memory, appends their records to the journal and forces it to the device, and
 * only then completes the operations' futures: nothing is acknowledged before it is durable, and
 * one fsync covers a whole batch (group commit). Reads go straight to the in-memory maps from any
 * thread; reads of messages only see messages that are already durable.
 *
 * <p>A crash or a power loss can leave at most a damaged tail (a batch that was never
 * acknowledged): it is cut off, and logged, when the journal is opened again. A damaged record
 * followed by whole ones stops the open with an error naming its byte offset rather than silently
 * losing what follows. A clean {@link #close()} compacts the journal into a snapshot (written
 * aside, forced, then moved over the journal atomically), and so does an open that finds the
 * journal more than twice the size of what it holds, so a server that is only ever killed keeps a
 * bounded journal. An open migrates a journal of version 1 (no checksums) to version 2.
 *
 * <p>Why not an embedded database: the first version used H2's MVStore, and a ten-minute chaos run
 * (200 hard kills and drains) lost acknowledged messages: after a {@code closeImmediately()} the
 * reopened store came back at an older version once it had started reusing file space. A journal
 * that only ever appends and forces is simple enough to be obviously right.
 */
final class ChatStore {
  /** Name of the journal file inside the data directory. */
  static final String FILE_NAME = "chat.journal";

  /**
   * Name of the lock file. The lock is taken on a file that nothing else opens and compaction never
   * replaces: POSIX drops a process's lock when any of its descriptors on the file is closed, and a
   * lock on the journal itself would stay on the old inode after compaction moved a new file over it.
   */
  static final String LOCK_NAME = "chat.lock";

  /** Data directories open in this JVM: the OS lock cannot tell two stores of one process apart. */
  private static final Set<Path> OPEN_DIRS = ConcurrentHashMap.newKeySet();

  private static final Logger log = LoggerFactory.getLogger(ChatStore.class);
  private static final int QUEUE_CAPACITY = 1 << 16;
  private static final int MAX_BATCH = 1024;
  /** Dead records an open tolerates beyond the live ones before it compacts. */
  private static final int COMPACT_SLACK = 256;

  /** An append's outcome: the stored message, and whether it was stored before. */
  record Append(ObjectNode message, boolean duplicate) {}

  private final Path dir;
  private final Path file;
  private final FileChannel channel;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final Map<String, String> users = new ConcurrentHashMap<>();
  private final Map<String, String> tokens = new ConcurrentHashMap<>();
  private final Map<String, String> rooms = new ConcurrentHashMap<>();
  private final Map<String, String> messageIds = new ConcurrentHashMap<>();
  private final Map<String, NavigableMap<Long, String>> roomMessages = new ConcurrentHashMap<>();
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
  /** Journal records of the batch being applied, encoded; writer thread only. */
  private final ByteArrayOutputStream batchRecords = new ByteArrayOutputStream();
  /** Set when a journal write failed: memory may be ahead of the disk, so nothing more is taken. */
  private volatile boolean broken;

  private ChatStore(Path dir, String threadName, Clock clock, Consumer<List<ObjectNode>> onDurable) {
    this.clock = clock;
    this.onDurable = onDurable;
    this.dir = canonical(dir);
    this.file = this.dir.resolve(FILE_NAME);
    if (!OPEN_DIRS.add(this.dir)) {
      throw new IllegalStateException("the data directory is in use by another server: " + dir);
    }
    FileChannel lockCh = null;
    FileChannel ch = null;
    try {
      lockCh = FileChannel.open(this.dir.resolve(LOCK_NAME), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      this.lock = lockOrFail(lockCh);
      this.lockChannel = lockCh;
      ch = recover();
      this.channel = ch;
    } catch (IOException e) {
      closeQuietly(ch);
      closeQuietly(lockCh);
      OPEN_DIRS.remove(this.dir);
      throw new UncheckedIOException("cannot open the journal " + file, e);
    } catch (RuntimeException e) {
      closeQuietly(ch);
      closeQuietly(lockCh);
      OPEN_DIRS.remove(this.dir);
      throw e;
    }
    this.durableTs = lastTs;
    this.writer = new Thread(this::writeLoop, threadName);
    this.writer.setDaemon(true);
  }

  private static Path canonical(Path dir) {
    try {
      Files.createDirectories(dir);
      return dir.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot use the data directory " + dir, e);
    }
  }

  private FileLock lockOrFail(FileChannel ch) throws IOException {
    FileLock l;
    try {
      l = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null;
    }
    if (l == null) {
      throw new IllegalStateException("the data directory is in use by another server: " + file);
    }
    return l;
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException e) {
        log.debug("closing the journal after a failed open", e);
      }
    }
  }

  /** Opens (or creates) the store in {@code dir} and starts its writer thread. */
  static ChatStore open(Path dir, String threadName, Clock clock,
      Consumer<List<ObjectNode>> onDurable) {
    ChatStore s = new ChatStore(dir, threadName, clock, onDurable);
    s.writer.start();
    return s;
  }

  // ---------------------------------------------------------------- the journal

  /**
   * Reads the journal into memory, cuts off a damaged tail, migrates or compacts it when due, and
   * opens it for appending.
   */
  private FileChannel recover() throws IOException {
    boolean existed = Files.exists(file);
    byte[] bytes = Journal.readAll(file);
    Journal.Contents contents = Journal.read(bytes, file);
    for (Journal.Entry e : contents.entries()) {
      try {
        applyRecord(Frames.readStored(e.json()));
      } catch (RuntimeException ex) {
        throw new IllegalStateException("journal " + file + ": the record at byte offset "
            + e.offset() + " cannot be applied: " + ex.getMessage(), ex);
      }
    }
    if (contents.lost() != null) {
      log.warn("journal {}: cut off a damaged tail at byte offset {} after {} whole records: {};"
          + " it was never acknowledged (acknowledgements wait for the write to be forced)",
          file, contents.validEnd(), contents.entries().size(), contents.lost());
    }
    long live = users.size() + rooms.size() + tokens.size() + messageIds.size();
    if (contents.version() == 1) {
      compact();
      log.info("journal {}: migrated {} records from version 1 to version 2 (checksummed)", file,
          contents.entries().size());
    } else if (contents.entries().size() > 2 * live + COMPACT_SLACK) {
      compact();
      log.info("journal {}: compacted on open, {} records ({} bytes) down to {} live ones", file,
          contents.entries().size(), bytes.length, live);
    } else if (contents.needsRepair(bytes.length)) {
      repair(contents.validEnd(), existed);
    }
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    ch.position(ch.size());
    return ch;
  }

  /** Cuts the journal back to its last whole record, or writes the header of a new one. */
  private void repair(long validEnd, boolean existed) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      ch.truncate(validEnd);
      if (validEnd == 0) {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        header.writeBytes(Journal.header());
        ch.position(0);
        Journal.writeFully(ch, header);
      }
      ch.force(true);
    }
    if (!existed) {
      Journal.forceDirectory(dir); // the new file's name must survive a power loss too
    }
  }

  /** Applies one journal record to memory (on replay, and when a write is applied). */
  private void applyRecord(ObjectNode r) {
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

  private static ObjectNode record(String type, String key, JsonNode value) {
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

  /** Applies a record to memory and queues it for the batch's journal write. */
  private void journal(ObjectNode record) {
    applyRecord(record);
    Journal.encode(Frames.write(record), batchRecords);
  }

  /** Writes the current state as a fresh journal, then moves it over the old one. */
  private void compact() throws IOException {
    List<String> records = new ArrayList<>();
    users.forEach((k, v) -> records.add(Frames.write(record("user", k, Frames.readStored(v)))));
    rooms.forEach((k, v) -> records.add(Frames.write(record("room", k, Frames.readStored(v)))));
    tokens.forEach((k, v) -> records.add(Frames.write(record("token", k, Frames.readStored(v)))));
    for (NavigableMap<Long, String> room : roomMessages.values()) {
      for (String m : room.values()) {
        records.add(Frames.write(record("msg", null, Frames.readStored(m))));
      }
    }
    Journal.writeSnapshot(file, records);
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

  // ---------------------------------------------------------------- writes (via the writer)

  /** Stores a new user; fails with IllegalArgumentException if the username is taken. */
  CompletableFuture<Void> createUser(String username, ObjectNode user) {
    return submit(() -> {
      if (users.containsKey(username)) {
        throw new IllegalArgumentException("username already exists: " + username);
      }
      journal(record("user", username, user));
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
      journal(record("room", rid, room));
      return null;
    });
  }

  /** Stores a token record under its hash. */
  CompletableFuture<Void> putToken(String key, ObjectNode record) {
    return submit(() -> {
      journal(record("token", key, record));
      return null;
    });
  }

  /** Removes a token record. */
  CompletableFuture<Void> removeToken(String key) {
    return submit(() -> {
      if (tokens.containsKey(key)) {
        journal(record("untoken", key, null));
      }
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
      if (!roomMessages.containsKey(rid)) {
        throw new IllegalArgumentException("no such room: " + rid);
      }
      journal(record("msg", null, m));
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
    if (!accepting || broken) {
      op.done.completeExceptionally(new IllegalStateException(
          broken ? "store failed to write its journal" : "store is closed"));
    } else if (!queue.offer(op)) {
      op.done.completeExceptionally(
          new CompletionFailure(new MethodError("error-too-busy", "Server is busy, try again")));
    } else if ((!accepting || broken) && queue.remove(op)) {
      // The store stopped between the check above and the offer: the writer may be gone already,
      // so nobody else would ever complete this operation.
      op.done.completeExceptionally(new IllegalStateException(
          broken ? "store failed to write its journal" : "store is closed"));
    }
    return op.done;
  }

  // ---------------------------------------------------------------- writer

  private void writeLoop() {
    List<Op<?>> batch = new ArrayList<>(MAX_BATCH);
    try {
      writeBatches(batch);
    } catch (Throwable t) {
      // An Error (out of memory, a broken broadcast) must not leave futures hanging: fail the batch
      // in hand and everything queued, and take no more writes.
      broken = true;
      accepting = false;
      log.error("store writer failed; the store takes no more writes", t);
      batch.forEach(op -> op.done.completeExceptionally(t));
    } finally {
      failPending();
    }
  }

  private void writeBatches(List<Op<?>> batch) {
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
      if (!applied.isEmpty() || !batchMessages.isEmpty()) {
        makeDurable(applied);
      }
      batch.clear();
      if (broken) {
        break;
      }
    }
  }

  private void makeDurable(List<Op<?>> applied) {
    try {
      if (batchRecords.size() > 0) {
        Journal.writeFully(channel, batchRecords);
        channel.force(false);
      }
    } catch (IOException | RuntimeException e) {
      // Memory is now ahead of the disk: refuse every further write rather than acknowledge
      // something a restart would not find.
      broken = true;
      accepting = false;
      log.error("journal write failed; {} operations fail and the store takes no more writes",
          applied.size(), e);
      batchMessages.clear();
      batchRecords.reset();
      applied.forEach(op -> op.done.completeExceptionally(e));
      return;
    } finally {
      batchRecords.reset();
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
    try {
      if (!broken && !writer.isAlive()) {
        compact();
      }
    } catch (IOException | RuntimeException e) {
      log.warn("journal compaction failed; the journal is kept as it was", e);
    } finally {
      release();
    }
  }

  /**
   * Simulates a crash: the writer stops after its current batch, what is queued is dropped, and
   * the file is closed with no further write. Acknowledged writes are already synced.
   */
  void closeImmediately() {
    stopWriter(true);
    failPending();
    release();
  }

  private void release() {
    closeQuietly(channel);
    try {
      lock.release();
    } catch (IOException e) {
      log.debug("releasing the data directory lock", e);
    } finally {
      closeQuietly(lockChannel);
      OPEN_DIRS.remove(dir);
    }
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
    m.put("users", (long) users.size());
    m.put("tokens", (long) tokens.size());
    m.put("rooms", (long) rooms.size());
    m.put("messages", (long) messageIds.size());
    return m;
  }
}
