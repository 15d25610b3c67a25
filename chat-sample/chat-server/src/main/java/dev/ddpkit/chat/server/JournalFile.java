package dev.ddpkit.chat.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ChatStore}'s journal on disk: the data directory taken (an OS lock, and a guard
 * against two stores of one JVM), the journal replayed into a {@link StoreMemory} on open (a
 * damaged tail cut off, a version 1 journal migrated, a bloated one compacted), then appended to
 * and forced batch by batch, and written out as a snapshot on a clean close. Not thread-safe: the
 * store's open, then its writer thread, then its close use it in turn.
 */
final class JournalFile {
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

  /** The store's logger: what an operator configures for the store covers its journal too. */
  private static final Logger log = LoggerFactory.getLogger(ChatStore.class);
  /** Dead records an open tolerates beyond the live ones before it compacts. */
  private static final int COMPACT_SLACK = 256;

  private final Path dir;
  private final Path file;
  private final FileChannel channel;
  private final FileChannel lockChannel;
  private final FileLock lock;

  /**
   * Takes the data directory {@code dir} and replays its journal into {@code memory}.
   *
   * @throws IllegalStateException if another server uses the directory, or a damaged record is
   *     followed by whole ones
   * @throws UncheckedIOException if the journal cannot be read or opened
   */
  JournalFile(Path dir, StoreMemory memory) {
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
      ch = recover(memory);
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

  /**
   * Reads the journal into memory, cuts off a damaged tail, migrates or compacts it when due, and
   * opens it for appending.
   */
  private FileChannel recover(StoreMemory memory) throws IOException {
    boolean existed = Files.exists(file);
    byte[] bytes = Journal.readAll(file);
    Journal.Contents contents = Journal.read(bytes, file);
    for (Journal.Entry e : contents.entries()) {
      try {
        memory.apply(Frames.readStored(e.json()));
      } catch (RuntimeException ex) {
        throw new IllegalStateException("journal " + file + ": the record at byte offset "
            + e.offset() + " cannot be applied: " + ex.getMessage(), ex);
      }
    }
    memory.markDurable();
    if (contents.lost() != null) {
      log.warn("journal {}: cut off a damaged tail at byte offset {} after {} whole records: {};"
          + " it was never acknowledged (acknowledgements wait for the write to be forced)",
          file, contents.validEnd(), contents.entries().size(), contents.lost());
    }
    long live = memory.liveRecords();
    if (contents.version() == 1) {
      compact(memory);
      log.info("journal {}: migrated {} records from version 1 to version 2 (checksummed)", file,
          contents.entries().size());
    } else if (contents.entries().size() > 2 * live + COMPACT_SLACK) {
      compact(memory);
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

  /** Appends encoded records and forces them to the device. */
  void append(ByteArrayOutputStream records) throws IOException {
    Journal.writeFully(channel, records);
    channel.force(false);
  }

  /** Writes the current state as a fresh journal, then moves it over the old one. */
  void compact(StoreMemory memory) throws IOException {
    Journal.writeSnapshot(file, memory.snapshot());
  }

  /** Closes the journal and gives the data directory up. */
  void release() {
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
}
