package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's storage: an append-only journal in the data directory, one checksummed JSON record
 * a line (the format is {@link Journal}'s, the file {@link JournalFile}'s), replayed into memory
 * ({@link StoreMemory}) on open. Every write goes through one writer thread ({@link StoreWriter})
 * that applies a batch of operations in memory, appends their records to the journal and forces
 * it to the device, and only then completes the operations' futures: nothing is acknowledged
 * before it is durable, and one fsync covers a whole batch (group commit). This class holds the
 * operations themselves and what they check. Reads go straight to the in-memory maps from any
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
  private final Clock clock;
  private final StoreWriter writer;

  private ChatStore(Path dir, String threadName, Clock clock, Consumer<List<ObjectNode>> onDurable,
      Consumer<List<Change>> onDurableChanges) {
    this.clock = clock;
    this.file = new JournalFile(dir, memory);
    this.writer = new StoreWriter(threadName, memory, file, onDurable, onDurableChanges);
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
    writer.onError(listener);
  }

  /** Applies a record to memory and adds it to the batch's journal write (writer thread). */
  private void journal(ObjectNode record) {
    writer.journal(record);
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
      writer.announce(m);
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
      writer.announce(new Change(Change.Kind.EDIT, m));
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
      writer.announce(new Change(Change.Kind.DELETE, d));
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
        writer.announce(new Change(Change.Kind.BULK_DELETE, bulk));
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
    return writer.submit(action);
  }

  /**
   * Stops the writer after it has written everything already submitted, then closes the file.
   */
  void close() {
    boolean whole = writer.stop(false);
    try {
      if (whole) {
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
    writer.stop(true);
    file.release();
  }
}
