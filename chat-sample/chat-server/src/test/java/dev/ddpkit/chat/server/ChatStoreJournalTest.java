package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal keeps every acknowledged write across crashes. Named after what broke: with H2's
 * MVStore, a ten-minute chaos run lost acknowledged messages once the store reused file space and
 * was reopened after {@code closeImmediately()}.
 */
@Timeout(value = 60, unit = SECONDS)
class ChatStoreJournalTest {
  @TempDir Path dir;

  private ChatStore open() {
    return ChatStore.open(dir, "test-store", Clock.systemUTC(), messages -> {});
  }

  private static ObjectNode sender(String name) {
    ObjectNode u = Frames.object();
    u.put("_id", "id-" + name);
    u.put("username", name);
    return u;
  }

  @Test
  void everyAcknowledgedMessageSurvivesManyCrashesAndReopens() throws Exception {
    ChatStore store = open();
    store.createRoom("general", List.of("alice")).get(5, SECONDS);
    store.putToken("key-1", Frames.object().put("user", "alice"), Integer.MAX_VALUE).get(5, SECONDS);
    int acknowledged = 0;
    for (int cycle = 0; cycle < 30; cycle++) {
      List<CompletableFuture<ChatStore.Append>> sends = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        sends.add(store.append("m-" + cycle + "-" + i, "general", "text " + i, sender("alice")));
      }
      for (CompletableFuture<ChatStore.Append> f : sends) {
        f.get(5, SECONDS);
        acknowledged++;
      }
      if (cycle % 3 == 0) {
        store.removeToken("key-1").get(5, SECONDS);
        store.putToken("key-1", Frames.object().put("user", "alice"), Integer.MAX_VALUE).get(5, SECONDS);
      }
      // A crash: no compaction, no further write.
      store.closeImmediately();
      store = open();
      assertThat(store.reads().messageCount("general")).as("after crash %d", cycle)
          .isEqualTo(acknowledged);
      assertThat(store.reads().token("key-1")).isNotNull();
    }
    List<ObjectNode> all = store.reads().since("general", Long.MIN_VALUE + 1, 100_000);
    assertThat(all).hasSize(acknowledged);
    for (int i = 1; i < all.size(); i++) {
      assertThat(all.get(i).path("ts").path("$date").asLong())
          .isGreaterThan(all.get(i - 1).path("ts").path("$date").asLong());
    }
    // A re-send of a stored id after the crashes is still recognised as a duplicate.
    assertThat(store.append("m-0-0", "general", "text 0", sender("alice")).get(5, SECONDS)
        .duplicate()).isTrue();
    store.close();
  }

  @Test
  void aTornLastRecordIsCutOffAndTheRestIsKept() throws Exception {
    ChatStore store = open();
    store.createRoom("general", List.of("alice")).get(5, SECONDS);
    store.append("kept", "general", "hello", sender("alice")).get(5, SECONDS);
    store.closeImmediately();
    // What a crash in the middle of a batch write leaves behind: a record without its newline.
    Files.writeString(dir.resolve(ChatStore.FILE_NAME), "{\"t\":\"msg\",\"v\":{\"_id\":\"to",
        StandardOpenOption.APPEND);

    store = open();
    assertThat(store.reads().messageCount("general")).isEqualTo(1);
    store.append("after", "general", "again", sender("alice")).get(5, SECONDS);
    store.closeImmediately();
    store = open();
    assertThat(store.reads().messageCount("general")).isEqualTo(2);
    store.close();
  }

  @Test
  void aCorruptRecordInTheMiddleStopsTheOpenWithItsByteOffset() throws Exception {
    ChatStore store = open();
    store.createRoom("general", List.of("alice")).get(5, SECONDS);
    store.closeImmediately();
    Path file = dir.resolve(ChatStore.FILE_NAME);
    String good = Files.readString(file);
    String header = Journal.HEADER_TEXT + "\n";
    Files.writeString(file, good + "not json\n" + good.substring(header.length()),
        StandardCharsets.UTF_8);

    assertThatThrownBy(this::open)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("corrupt at byte offset " + good.length());
  }

  @Test
  void aCleanCloseCompactsTheJournalAndKeepsEverything() throws Exception {
    ChatStore store = open();
    store.createUser("alice", Frames.object().put("hash", "h")).get(5, SECONDS);
    store.createRoom("general", List.of("alice")).get(5, SECONDS);
    for (int i = 0; i < 20; i++) {
      store.putToken("churn", Frames.object().put("n", i), Integer.MAX_VALUE).get(5, SECONDS);
      store.removeToken("churn").get(5, SECONDS);
    }
    store.append("m1", "general", "hello", sender("alice")).get(5, SECONDS);
    long before = Files.size(dir.resolve(ChatStore.FILE_NAME));
    store.close();

    assertThat(Files.size(dir.resolve(ChatStore.FILE_NAME))).isLessThan(before);
    store = open();
    assertThat(store.reads().user("alice")).isNotNull();
    assertThat(store.reads().isMember("general", "alice")).isTrue();
    assertThat(store.reads().token("churn")).isNull();
    assertThat(store.reads().messageCount("general")).isEqualTo(1);
    store.close();
  }

  @Test
  void aSecondStoreOnTheSameDirectoryIsRefused() {
    ChatStore store = open();
    try {
      assertThatThrownBy(this::open)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("in use");
    } finally {
      store.close();
    }
  }

  @Test
  void anErrorOnTheWriterThreadFailsTheFuturesInsteadOfLeavingThemHanging() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean blowUp = new java.util.concurrent.atomic.AtomicBoolean();
    ChatStore store = ChatStore.open(dir, "test-store", Clock.systemUTC(), messages -> {
      if (blowUp.get()) {
        throw new OutOfMemoryError("simulated");
      }
    });
    try {
      store.createRoom("general", List.of("alice")).get(5, SECONDS);
      blowUp.set(true);
      CompletableFuture<ChatStore.Append> first = store.append("a", "general", "x", sender("alice"));
      CompletableFuture<ChatStore.Append> second = store.append("b", "general", "y", sender("alice"));
      for (CompletableFuture<ChatStore.Append> f : List.of(first, second)) {
        assertThatThrownBy(() -> f.get(5, SECONDS))
            .isInstanceOf(java.util.concurrent.ExecutionException.class);
      }
      assertThatThrownBy(() -> store.append("c", "general", "z", sender("alice")).get(5, SECONDS))
          .hasMessageContaining("store");
    } finally {
      store.closeImmediately();
    }
  }

  @Test
  void writesRacingACloseAllComplete() throws Exception {
    for (int round = 0; round < 30; round++) {
      Path roundDir = dir.resolve("round-" + round);
      ChatStore store = ChatStore.open(roundDir, "test-store", Clock.systemUTC(), m -> {});
      List<CompletableFuture<Void>> futures = java.util.Collections.synchronizedList(new ArrayList<>());
      java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        Thread w = new Thread(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int i = 0; i < 500; i++) {
            futures.add(store.removeToken("k" + i));
          }
        }, "test-submitter-" + t);
        w.start();
        writers.add(w);
      }
      go.countDown();
      store.closeImmediately();
      for (Thread w : writers) {
        w.join(10_000);
      }
      for (CompletableFuture<Void> f : futures) {
        try {
          f.get(5, SECONDS);
        } catch (java.util.concurrent.ExecutionException expected) {
          // failed because the store closed: completed, which is the point
        }
      }
    }
  }

  @Test
  void theLockSurvivesARefusedSecondOpenAndReadsOfTheJournal() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(pythonCanLock() != null, "python3 is needed");
    ChatStore store = open();
    try {
      assertThat(pythonCanLock()).as("held by the open store").isFalse();
      assertThatThrownBy(this::open).hasMessageContaining("in use");
      Files.readAllBytes(dir.resolve(ChatStore.FILE_NAME));
      assertThat(pythonCanLock()).as("still held after a refused open and a read").isFalse();
    } finally {
      store.close();
    }
    assertThat(pythonCanLock()).as("released on close").isTrue();
  }

  /** Whether another process can take the data directory's lock; null if python3 is missing. */
  private Boolean pythonCanLock() throws Exception {
    Process p;
    try {
      p = new ProcessBuilder("python3", "-c",
          "import fcntl,sys\nf=open(sys.argv[1],'a')\n"
              + "try:\n fcntl.lockf(f, fcntl.LOCK_EX|fcntl.LOCK_NB); print('locked')\n"
              + "except OSError: print('busy')\n",
          dir.resolve(ChatStore.LOCK_NAME).toString()).redirectErrorStream(true).start();
    } catch (java.io.IOException e) {
      return null;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    p.waitFor(10, SECONDS);
    if (!out.equals("locked") && !out.equals("busy")) {
      return null;
    }
    return out.equals("locked");
  }
}
