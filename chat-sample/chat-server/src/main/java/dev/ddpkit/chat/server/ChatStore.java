package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's storage: an append-only journal in the data directory, one checksummed JSON record
 * a line (the format is {@link Journal}'s, the file {@link JournalFile}'s), replayed into memory
 * ({@link StoreMemory}) on open. Every write goes through one writer thread that applies a batch
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
  static final String FILE_NAME = JournalFile.FILE_NAME;

  /** Name of the lock file (see {@link JournalFile#LOCK_NAME}). */
  static final String LOCK_NAME = JournalFile.LOCK_NAME;

  private static final Logger log = LoggerFactory.getLogger(ChatStore.class);
  private static final int QUEUE_CAPACITY = 1 << 16;
  private static final int MAX_BATCH = 1024;

  /** An append's outcome: the stored message, and whether it was stored before. */
  record Append(ObjectNode message, boolean duplicate) {}

  /**
   * A durable change to a stored message, for the broadcasts: an edit (the whole edited message)
   * or a deletion ({@code {_id, rid, ts, _deletedAt}}).
   */
  record Change(Kind kind, ObjectNode doc) {
    /** What changed. */
    enum Kind {
      /** {@code doc} is the whole edited message. */
      EDIT,
      /** {@code doc} is the trash entry of one deleted message. */
      DELETE,
      /** {@code doc} is Rocket.Chat's {@code deleteMessageBulk} event of a pruned history. */
      BULK_DELETE
    }

    /** The room of the changed message. */
    String rid() {
      return doc.path("rid").asText();
    }
  }

  private final StoreMemory memory = new StoreMemory();
  private final JournalFile file;
  private final ArrayBlockingQueue<Op<?>> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  private final Clock clock;
  private final Consumer<List<ObjectNode>> onDurable;
  private final Consumer<List<Change>> onDurableChanges;
  private final Thread writer;
  private final Op<Void> poison = new Op<>(() -> null);

  private volatile boolean accepting = true;
  private volatile boolean abandon;
  /** Messages appended in the batch being applied; writer thread only. */
  private final List<ObjectNode> batchMessages = new ArrayList<>();
  /** Edits and deletions made in the batch being applied; writer thread only. */
  private final List<Change> batchChanges = new ArrayList<>();
  /** Journal records of the batch being applied, encoded; writer thread only. */
  private final ByteArrayOutputStream batchRecords = new ByteArrayOutputStream();
  /** Told about the writer's failure; the server reports an Error to its FatalErrors. */
  private volatile Consumer<Throwable> onWriterError = t -> { };
  /** Set when a journal write failed: memory may be ahead of the disk, so nothing more is taken. */
  private volatile boolean broken;

  private ChatStore(Path dir, String threadName, Clock clock, Consumer<List<ObjectNode>> onDurable,
      Consumer<List<Change>> onDurableChanges) {
    this.clock = clock;
    this.onDurable = onDurable;
    this.onDurableChanges = onDurableChanges;
    this.file = new JournalFile(dir, memory);
    this.writer = new Thread(this::writeLoop, threadName);
    this.writer.setDaemon(true);
  }

  /** Opens (or creates) the store in {@code dir} and starts its writer thread. */
  static ChatStore open(Path dir, String threadName, Clock clock,
      Consumer<List<ObjectNode>> onDurable) {
    return open(dir, threadName, clock, onDurable, changes -> { });
  }

  /**
   * Opens (or creates) the store and starts its writer; {@code onDurable} gets each batch's new
   * messages once durable, then {@code onDurableChanges} its edits and deletions, in order.
   */
  static ChatStore open(Path dir, String threadName, Clock clock,
      Consumer<List<ObjectNode>> onDurable, Consumer<List<Change>> onDurableChanges) {
    ChatStore s = new ChatStore(dir, threadName, clock, onDurable, onDurableChanges);
    s.writer.start();
    return s;
  }

  /** Sets who is told when the writer fails (before the first write). */
  void onWriterError(Consumer<Throwable> listener) {
    this.onWriterError = Objects.requireNonNull(listener, "listener");
  }

  /** Applies a record to memory and queues it for the batch's journal write. */
  private void journal(ObjectNode record) {
    memory.apply(record);
    Journal.encode(Frames.write(record), batchRecords);
  }

  private static ObjectNode record(String type, String key, JsonNode value) {
    return StoreMemory.record(type, key, value);
  }

  /** What the store holds, for reads from any thread (messages: only durable ones). */
  StoreMemory reads() {
    return memory;
  }

  // ---------------------------------------------------------------- writes (via the writer)

  /** Stores a new user; fails with IllegalArgumentException if the username is taken. */
  CompletableFuture<Void> createUser(String username, ObjectNode user) {
    return submit(() -> {
      if (memory.hasUser(username)) {
        throw new IllegalArgumentException("username already exists: " + username);
      }
      journal(record("user", username, user));
      return null;
    });
  }

  /** Creates a room with its members; fails with IllegalArgumentException if it exists. */
  CompletableFuture<Void> createRoom(String rid, Collection<String> memberNames) {
    return submit(() -> {
      if (memory.roomExists(rid)) {
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

  /**
   * Stores a token record under its hash, and removes its user's oldest tokens past the newest
   * {@code keepPerUser}.
   */
  CompletableFuture<Void> putToken(String key, ObjectNode record, int keepPerUser) {
    return submit(() -> {
      journal(record("token", key, record));
      for (String old : memory.tokensPast(record.path("username").asText(), keepPerUser)) {
        journal(record("untoken", old, null));
      }
      return null;
    });
  }

  /** Removes a token record. */
  CompletableFuture<Void> removeToken(String key) {
    return submit(() -> {
      if (memory.hasToken(key)) {
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
      ObjectNode had = memory.message(id);
      if (had == null) {
        had = memory.trashed(id);
        if (had != null) {
          // Deleted since: a late re-send of it must not bring it back. The author is in the trash.
          return new Append(sameSender(had, id, rid, sender), true);
        }
      }
      if (had != null) {
        return new Append(sameSender(had, id, rid, sender), true);
      }
      long ts = nextChangeTime();
      ObjectNode m = Frames.object();
      m.put("_id", id);
      m.put("rid", rid);
      m.put("msg", text);
      m.set("ts", Frames.date(ts));
      m.set("u", sender.deepCopy());
      m.set("_updatedAt", Frames.date(ts));
      if (!memory.roomExists(rid)) {
        throw new IllegalArgumentException("no such room: " + rid);
      }
      journal(record("msg", null, m));
      batchMessages.add(m);
      return new Append(m, false);
    });
  }

  /** A change time after every other one: unique, so a change cursor never skips one. */
  private long nextChangeTime() {
    return Math.max(clock.millis(), memory.lastChange() + 1);
  }

  /** What became of an edit or a deletion. */
  enum ChangeOutcome {
    /** Done, and durable. */
    DONE,
    /** No such message (or not any more): nothing done, as Rocket.Chat answers. */
    NOT_FOUND,
    /** The same text as stored: nothing done. */
    UNCHANGED
  }

  /**
   * Edits a message: only its author may ({@code error-action-not-allowed} otherwise), and only
   * in its own room. The stored message gets the new text, {@code editedAt}, {@code editedBy} and a
   * new {@code _updatedAt}.
   */
  CompletableFuture<ChangeOutcome> edit(String id, String rid, String text, ObjectNode editor) {
    return submit(() -> {
      ObjectNode m = memory.message(id);
      if (m == null) {
        return ChangeOutcome.NOT_FOUND;
      }
      checkAuthor(m, rid, editor, "Message editing not allowed");
      if (m.path("msg").asText().equals(text)) {
        return ChangeOutcome.UNCHANGED;
      }
      long at = nextChangeTime();
      m.put("msg", text);
      m.set("editedAt", Frames.date(at));
      ObjectNode by = m.putObject("editedBy");
      by.put("_id", editor.path("_id").asText());
      by.put("username", editor.path("username").asText());
      m.set("_updatedAt", Frames.date(at));
      journal(record("edit", null, m));
      batchChanges.add(new Change(Change.Kind.EDIT, m));
      return ChangeOutcome.DONE;
    });
  }

  /**
   * Deletes a message (its author only): it moves to the trash with {@code _deletedAt}. A message
   * that is not there (never was, or deleted already) is {@link ChangeOutcome#NOT_FOUND}.
   */
  CompletableFuture<ChangeOutcome> delete(String id, ObjectNode user) {
    return submit(() -> {
      ObjectNode m = memory.message(id);
      if (m == null) {
        return ChangeOutcome.NOT_FOUND;
      }
      checkAuthor(m, m.path("rid").asText(), user, "Not allowed");
      ObjectNode d = Frames.object();
      d.put("_id", id);
      d.put("rid", m.path("rid").asText());
      d.set("ts", m.path("ts"));
      d.set("u", m.path("u"));
      d.set("_deletedAt", Frames.date(nextChangeTime()));
      journal(record("del", null, d));
      batchChanges.add(new Change(Change.Kind.DELETE, d));
      return ChangeOutcome.DONE;
    });
  }

  /**
   * Deletes the room's messages with {@code from <= ts <= to} (of these users only, if any are
   * named), as Rocket.Chat's history pruning does, and sends one {@code deleteMessageBulk} event:
   * with the ids when {@code withIds}, else only the time range and the users, as older servers
   * did. Completes with how many were deleted.
   */
  CompletableFuture<Integer> prune(String rid, long from, long to, List<String> usernames,
      boolean withIds) {
    return submit(() -> {
      List<String> ids = new ArrayList<>();
      for (ObjectNode m : memory.history(rid, to + 1, Integer.MAX_VALUE)) {
        long ts = m.path("ts").path("$date").asLong();
        String author = m.path("u").path("username").asText();
        if (ts >= from && (usernames.isEmpty() || usernames.contains(author))) {
          ObjectNode d = Frames.object();
          d.put("_id", m.path("_id").asText());
          d.put("rid", rid);
          d.set("ts", m.path("ts"));
          d.set("u", m.path("u"));
          d.set("_deletedAt", Frames.date(nextChangeTime()));
          journal(record("del", null, d));
          ids.add(m.path("_id").asText());
        }
      }
      if (!ids.isEmpty()) {
        ObjectNode bulk = Frames.object();
        bulk.put("rid", rid);
        bulk.put("excludePinned", false);
        bulk.put("ignoreDiscussion", true);
        ObjectNode range = bulk.putObject("ts");
        range.set("$gte", Frames.date(from));
        range.set("$lte", Frames.date(to));
        ArrayNode users = bulk.putArray("users");
        usernames.forEach(users::add);
        if (withIds) {
          ArrayNode arr = bulk.putArray("ids");
          ids.forEach(arr::add);
        }
        batchChanges.add(new Change(Change.Kind.BULK_DELETE, bulk));
      }
      return ids.size();
    });
  }

  private static void checkAuthor(ObjectNode m, String rid, ObjectNode user, String reason) {
    if (!m.path("rid").asText().equals(rid)
        || !m.path("u").path("_id").equals(user.path("_id"))) {
      throw new CompletionFailure(new MethodError("error-action-not-allowed", reason));
    }
  }

  /** The stored message, if the same sender sent it to the same room; else a refusal. */
  private static ObjectNode sameSender(ObjectNode stored, String id, String rid,
      ObjectNode sender) {
    if (!stored.path("rid").asText().equals(rid)
        || !stored.path("u").path("_id").equals(sender.path("_id"))) {
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
      onWriterError.accept(t);
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
      if (!applied.isEmpty() || !batchMessages.isEmpty() || !batchChanges.isEmpty()) {
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
        file.append(batchRecords);
      }
    } catch (IOException | RuntimeException e) {
      // Memory is now ahead of the disk: refuse every further write rather than acknowledge
      // something a restart would not find.
      broken = true;
      accepting = false;
      log.error("journal write failed; {} operations fail and the store takes no more writes",
          applied.size(), e);
      batchMessages.clear();
      batchChanges.clear();
      batchRecords.reset();
      applied.forEach(op -> op.done.completeExceptionally(e));
      return;
    } finally {
      batchRecords.reset();
    }
    memory.markDurable();
    if (!batchMessages.isEmpty()) {
      List<ObjectNode> fresh = List.copyOf(batchMessages);
      batchMessages.clear();
      try {
        onDurable.accept(fresh);
      } catch (RuntimeException e) {
        log.error("broadcast of {} messages failed", fresh.size(), e);
      }
    }
    if (!batchChanges.isEmpty()) {
      List<Change> changes = List.copyOf(batchChanges);
      batchChanges.clear();
      try {
        onDurableChanges.accept(changes);
      } catch (RuntimeException e) {
        log.error("broadcast of {} edits and deletions failed", changes.size(), e);
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
        file.compact(memory);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("journal compaction failed; the journal is kept as it was", e);
    } finally {
      file.release();
    }
  }

  /**
   * Simulates a crash: the writer stops after its current batch, what is queued is dropped, and
   * the file is closed with no further write. Acknowledged writes are already synced.
   */
  void closeImmediately() {
    stopWriter(true);
    failPending();
    file.release();
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

}
