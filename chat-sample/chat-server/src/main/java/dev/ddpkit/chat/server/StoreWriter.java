package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
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
 * The {@link ChatStore}'s writer thread: group commit. Operations queue here ({@link #submit}); the
 * thread takes them a batch at a time, applies each in memory (an operation journals its records
 * with {@link #journal} and names what the batch broadcasts with {@link #announce}), appends the
 * batch's records to the journal and forces it with one fsync, then tells the broadcasts and
 * completes the operations' futures. Nothing is acknowledged before it is durable.
 *
 * <p>A failed journal write leaves memory ahead of the disk: the writer fails that batch and every
 * later operation, and takes no more. An Error on the thread does the same and is reported to
 * {@link #onError}. A stop completes every operation it does not write, so no future hangs.
 */
final class StoreWriter {
  private static final Logger log = LoggerFactory.getLogger(StoreWriter.class);
  private static final int QUEUE_CAPACITY = 1 << 16;
  private static final int MAX_BATCH = 1024;

  private final StoreMemory memory;
  private final JournalFile file;
  private final Consumer<List<ObjectNode>> onDurable;
  private final Consumer<List<ChatStore.Change>> onDurableChanges;
  private final ArrayBlockingQueue<Op<?>> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  private final Thread thread;
  private final Op<Void> poison = new Op<>(() -> null);

  private volatile boolean accepting = true;
  private volatile boolean abandon;
  /** Set when a journal write failed: memory may be ahead of the disk, so nothing more is taken. */
  private volatile boolean broken;
  /** Told about the writer's failure; the server reports an Error to its FatalErrors. */
  private volatile Consumer<Throwable> onError = t -> { };
  /** Messages appended in the batch being applied; writer thread only. */
  private final List<ObjectNode> batchMessages = new ArrayList<>();
  /** Edits and deletions made in the batch being applied; writer thread only. */
  private final List<ChatStore.Change> batchChanges = new ArrayList<>();
  /** Journal records of the batch being applied, encoded; writer thread only. */
  private final ByteArrayOutputStream batchRecords = new ByteArrayOutputStream();

  /**
   * A writer (not started) that applies records to {@code memory} and appends them to {@code
   * file}; {@code onDurable} gets each batch's new messages once durable, then {@code
   * onDurableChanges} its edits and deletions, in order.
   */
  StoreWriter(String threadName, StoreMemory memory, JournalFile file,
      Consumer<List<ObjectNode>> onDurable, Consumer<List<ChatStore.Change>> onDurableChanges) {
    this.memory = memory;
    this.file = file;
    this.onDurable = onDurable;
    this.onDurableChanges = onDurableChanges;
    this.thread = new Thread(this::writeLoop, threadName);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Sets who is told when the writer fails (before the first write). */
  void onError(Consumer<Throwable> listener) {
    this.onError = Objects.requireNonNull(listener, "listener");
  }

  // ---------------------------------------------------------------- for the operations

  /** Applies a record to memory and adds it to the batch's journal write. Writer thread only. */
  void journal(ObjectNode record) {
    memory.apply(record);
    Journal.encode(Frames.write(record), batchRecords);
  }

  /** A new message of the batch, broadcast once durable. Writer thread only. */
  void announce(ObjectNode message) {
    batchMessages.add(message);
  }

  /** An edit or a deletion of the batch, broadcast once durable. Writer thread only. */
  void announce(ChatStore.Change change) {
    batchChanges.add(change);
  }

  /**
   * Queues an operation, run on the writer thread; its future completes with its result once its
   * batch is durable, or with its failure. Fails at once if the writer is stopped or broken, and
   * with {@code error-too-busy} if the queue is full.
   */
  <T> CompletableFuture<T> submit(Supplier<T> action) {
    Op<T> op = new Op<>(action);
    if (!accepting || broken) {
      op.done.completeExceptionally(notAccepting());
    } else if (!queue.offer(op)) {
      op.done.completeExceptionally(new ChatStore.CompletionFailure(
          new MethodError("error-too-busy", "Server is busy, try again")));
    } else if ((!accepting || broken) && queue.remove(op)) {
      // The store stopped between the check above and the offer: the writer may be gone already,
      // so nobody else would ever complete this operation.
      op.done.completeExceptionally(notAccepting());
    }
    return op.done;
  }

  /** Why an operation is refused once the writer stopped taking them: broken, or closed. */
  private IllegalStateException notAccepting() {
    return new IllegalStateException(
        broken ? "store failed to write its journal" : "store is closed");
  }

  // ---------------------------------------------------------------- the thread

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
      onError.accept(t);
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
      List<ChatStore.Change> changes = List.copyOf(batchChanges);
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

  // ---------------------------------------------------------------- stopping

  /**
   * Stops the writer: after it has written everything already submitted, or, if {@code
   * abandonQueued} (a simulated crash), after its current batch, dropping what is queued. Every
   * operation not written is failed. Returns whether the journal holds everything memory does (the
   * writer ended without a failure), so that a compaction may rewrite it from memory.
   */
  boolean stop(boolean abandonQueued) {
    accepting = false;
    abandon = abandonQueued;
    boolean interrupted = false;
    try {
      if (!queue.offer(poison, 5, TimeUnit.SECONDS)) {
        log.warn("store writer did not take the stop request in 5 s");
      }
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      interrupted = true;
    }
    if (thread.isAlive()) {
      log.warn("store writer {} still running after close", thread.getName());
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    failPending();
    return !broken && !thread.isAlive();
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
      } catch (ChatStore.CompletionFailure e) {
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
