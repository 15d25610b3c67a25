package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A power loss leaves the batch being written torn, zero-filled or garbled: the server must still
 * open with every acknowledged message, and say what it cut. Damage followed by whole records is
 * not a torn write: the open stops and names the byte offset. A journal of version 1 (no
 * checksums) is migrated, and a server that is only ever killed keeps a bounded journal.
 */
@Timeout(value = 120, unit = SECONDS)
class JournalRecoveryTest {
  @TempDir Path dir;
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger storeLog = (Logger) LoggerFactory.getLogger(ChatStore.class);

  @BeforeEach
  void captureLog() {
    logged.start();
    storeLog.addAppender(logged);
    storeLog.setAdditive(false); // a thousand cuts would flood the console
  }

  @AfterEach
  void releaseLog() {
    storeLog.detachAppender(logged);
    storeLog.setAdditive(true);
  }

  private Path file() {
    return dir.resolve(ChatStore.FILE_NAME);
  }

  private ChatStore open() {
    return ChatStore.open(dir, "test-store", Clock.systemUTC(), messages -> {});
  }

  private static ObjectNode alice() {
    ObjectNode u = Frames.object();
    u.put("_id", "id-alice");
    u.put("username", "alice");
    return u;
  }

  private static Set<String> ids(ChatStore store) {
    Set<String> ids = new TreeSet<>();
    store.reads().since("general", Long.MIN_VALUE + 1, 100_000)
        .forEach(m -> ids.add(m.path("_id").asText()));
    return ids;
  }

  /** Writes acknowledged messages a0..a4, then a batch b0, b1 whose bytes are the tail. */
  private byte[] journalWithATail(int acknowledged) throws Exception {
    ChatStore store = open();
    store.createRoom("general", List.of("alice")).get(5, SECONDS);
    for (int i = 0; i < acknowledged; i++) {
      store.append("a" + i, "general", "acknowledged " + i, alice()).get(5, SECONDS);
    }
    store.closeImmediately();
    return Files.readAllBytes(file());
  }

  /** The bytes of the batch {b0, b1} appended after {@code base}. */
  private byte[] appendTail() throws Exception {
    ChatStore store = open();
    var first = store.append("b0", "general", "in the torn batch", alice());
    var second = store.append("b1", "general", "in the torn batch too", alice());
    first.get(5, SECONDS);
    second.get(5, SECONDS);
    store.closeImmediately();
    return Files.readAllBytes(file());
  }

  /** Opens the store on {@code bytes} and returns the message ids it holds. */
  private Set<String> openOn(byte[] bytes) throws Exception {
    Files.write(file(), bytes);
    ChatStore store = open();
    try {
      return ids(store);
    } finally {
      store.closeImmediately();
    }
  }

  @Test
  void aTailCutOrDamagedAtEveryByteOffsetOpensWithEveryAcknowledgedMessage() throws Exception {
    byte[] base = journalWithATail(5);
    byte[] full = appendTail();
    List<Journal.Entry> entries = Journal.read(full, file()).entries();
    long b1Start = entries.get(entries.size() - 1).offset();
    Set<String> acknowledged = Set.of("a0", "a1", "a2", "a3", "a4");
    Random random = new Random(12);
    for (int cut = base.length; cut < full.length; cut++) {
      // What survives of the batch: b0 once its record is whole, never b1 (it is not whole).
      Set<String> expected = new TreeSet<>(acknowledged);
      if (cut >= b1Start) {
        expected.add("b0");
      }
      byte[] torn = Arrays.copyOf(full, cut);
      assertThat(openOn(torn)).as("cut at %d", cut).isEqualTo(expected);

      byte[] zeroed = Arrays.copyOf(full, full.length + 4096); // a zero-filled block past the end
      Arrays.fill(zeroed, cut, zeroed.length, (byte) 0);
      assertThat(openOn(zeroed)).as("zeros from %d", cut).isEqualTo(expected);

      byte[] garbled = full.clone();
      for (int i = cut; i < garbled.length; i++) {
        garbled[i] = (byte) random.nextInt(256);
      }
      assertThat(openOn(garbled)).as("garbage from %d", cut).isEqualTo(expected);

      if (cut >= b1Start) {
        byte[] flipped = full.clone();
        flipped[cut] ^= (byte) (1 + random.nextInt(255));
        assertThat(openOn(flipped)).as("last record's byte %d changed", cut).isEqualTo(expected);
      }
    }
    // The cut is written back: a second open finds a clean journal and can append again.
    Files.write(file(), Arrays.copyOf(full, (int) b1Start + 7));
    ChatStore store = open();
    store.append("c0", "general", "after the repair", alice()).get(5, SECONDS);
    store.closeImmediately();
    logged.list.clear();
    store = open();
    assertThat(ids(store)).contains("a0", "a4", "b0", "c0").doesNotContain("b1");
    store.closeImmediately();
    assertThat(logged.list).noneMatch(e -> e.getFormattedMessage().contains("cut off"));
  }

  @Test
  void theCutIsLoggedWithItsOffsetAndTheMessagesItHeld() throws Exception {
    byte[] base = journalWithATail(2);
    byte[] full = appendTail();
    Files.write(file(), Arrays.copyOf(full, full.length - 3));

    ChatStore store = open();
    store.closeImmediately();

    assertThat(logged.list).anySatisfy(e -> {
      assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
      assertThat(e.getFormattedMessage())
          .contains("cut off a damaged tail at byte offset " + (base.length + recordLength(full, base.length)))
          .contains("msg b1").doesNotContain("msg b0");
    });
  }

  private static int recordLength(byte[] full, int start) {
    int i = start;
    while (full[i] != '\n') {
      i++;
    }
    return i + 1 - start;
  }

  @Test
  void aDamagedRecordFollowedByAWholeOneStopsTheOpenNamingItsOffset() throws Exception {
    byte[] base = journalWithATail(3);
    byte[] full = appendTail();
    List<Journal.Entry> entries = Journal.read(full, file()).entries();
    int b0Start = (int) entries.get(entries.size() - 2).offset();
    int b1Start = (int) entries.get(entries.size() - 1).offset();
    assertThat(b0Start).isEqualTo(base.length);
    for (int at = b0Start; at < b1Start; at++) {
      byte[] damaged = full.clone();
      damaged[at] ^= 0x55;
      Files.write(file(), damaged);
      assertThatThrownBy(this::open).as("byte %d changed", at)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("corrupt at byte offset " + b0Start)
          .hasMessageContaining("whole record follows at byte offset " + b1Start);
      assertThat(Files.readAllBytes(file())).as("left as it was").isEqualTo(damaged);
    }
  }

  @Test
  void aVersion1JournalIsMigratedOnOpen() throws Exception {
    String v1 = """
        {"t":"room","k":"general","v":{"_id":"general","members":["alice"]}}
        {"t":"token","k":"key-1","v":{"user":"alice"}}
        {"t":"msg","v":{"_id":"old-1","rid":"general","msg":"hi","ts":{"$date":1000},"u":{"_id":"id-alice","username":"alice"},"_updatedAt":{"$date":1000}}}
        {"t":"msg","v":{"_id":"old-2","rid":"general","msg":"there","ts":{"$date":2000},"u":{"_id":"id-alice","username":"alice"},"_updatedAt":{"$date":2000}}}
        {"t":"msg","v":{"_id":"to""";
    Files.writeString(file(), v1, StandardCharsets.UTF_8);

    ChatStore store = open();
    assertThat(ids(store)).containsExactly("old-1", "old-2");
    assertThat(store.reads().token("key-1")).isNotNull();
    store.append("new-1", "general", "after", alice()).get(5, SECONDS);
    store.closeImmediately();

    assertThat(new String(Files.readAllBytes(file()), StandardCharsets.UTF_8))
        .startsWith(Journal.HEADER_TEXT + "\n");
    assertThat(logged.list).anyMatch(e -> e.getFormattedMessage().contains("migrated 4 records"));
    store = open();
    assertThat(ids(store)).containsExactly("new-1", "old-1", "old-2");
    store.close();
  }

  @Test
  void aVersion1JournalWithADamagedLineInTheMiddleIsRefused() throws Exception {
    String room = "{\"t\":\"room\",\"k\":\"general\",\"v\":{\"_id\":\"general\",\"members\":[]}}\n";
    Files.writeString(file(), room + "garbage\n" + room, StandardCharsets.UTF_8);

    assertThatThrownBy(this::open).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("corrupt at line 2, byte offset " + room.length());
  }

  @Test
  void aFileThatIsNoJournalIsRefused() throws Exception {
    Files.writeString(file(), "PK\u0003\u0004 not ours", StandardCharsets.ISO_8859_1);

    assertThatThrownBy(this::open).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is not a ddpkit journal");
  }

  @Test
  void aServerOnlyEverKilledKeepsABoundedJournal() throws Exception {
    ChatStore store = open();
    store.createRoom("general", List.of("alice")).get(5, SECONDS);
    store.closeImmediately();
    int cycles = 1_000;
    long[] sizes = new long[cycles];
    long appended = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
      store = open();
      long opened = Files.size(file());
      // A login and a logout per life: records that only a compaction drops.
      store.putToken("t" + cycle, Frames.object().put("user", "alice"), Integer.MAX_VALUE).get(5, SECONDS);
      store.removeToken("t" + (cycle - 1)).get(5, SECONDS);
      if (cycle % 100 == 0) {
        store.append("m" + cycle, "general", "life " + cycle, alice()).get(5, SECONDS);
      }
      store.closeImmediately();
      sizes[cycle] = Files.size(file());
      appended += sizes[cycle] - opened;
      // Live: the room, one token, the messages so far. An open compacts past 2 x live + 256,
      // and one life adds at most 4 records.
      long live = 2 + cycle / 100 + 1;
      int records = Journal.read(Files.readAllBytes(file()), file()).entries().size();
      assertThat((long) records).as("records after kill %d", cycle)
          .isLessThanOrEqualTo(2 * live + 256 + 4);
    }
    store = open();
    assertThat(ids(store)).hasSize(10);
    assertThat(store.reads().token("t" + (cycles - 1))).isNotNull();
    assertThat(store.reads().token("t0")).isNull();
    store.closeImmediately();

    List<Long> sample = new ArrayList<>();
    for (int i = 0; i < cycles; i += 100) {
      sample.add(sizes[i]);
    }
    long peak = Arrays.stream(sizes).max().orElseThrow();
    assertThat(peak).as("compacted: sizes every 100 kills %s, %d bytes appended in all", sample,
        appended).isLessThan(appended / 4);
  }
}
