package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Several chat clients share one small executor instead of a thread each. */
class SharedExecutorTest {
  @Test
  @Timeout(value = 60, unit = SECONDS)
  void clientsOnASharedPoolLogInAndTalk(@TempDir Path dir) throws Exception {
    AtomicInteger tasks = new AtomicInteger();
    AtomicInteger threads = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "shared-chat-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try (LoopbackChat chat = new LoopbackChat(dir)) {
      chat.server().seedDemo();
      Recorder alice = new Recorder();
      Recorder bob = new Recorder();
      Recorder carol = new Recorder();
      java.util.concurrent.Executor counting = r -> {
        tasks.incrementAndGet();
        pool.execute(r);
      };
      ChatClient a = chat.start(chat.client("alice", alice).room("general").executor(counting));
      chat.start(chat.client("bob", bob).room("general").executor(counting));
      chat.start(chat.client("carol", carol).room("general").executor(counting));
      await().atMost(20, SECONDS).until(() -> alice.lastState() == ChatStatus.State.CONNECTED
          && bob.lastState() == ChatStatus.State.CONNECTED
          && carol.lastState() == ChatStatus.State.CONNECTED
          && a.joinedRooms().contains("general"));
      String id = a.sendMessage("general", "on a shared pool");
      await().atMost(20, SECONDS).until(() -> bob.saw(id) && carol.saw(id) && alice.saw(id));
      assertThat(tasks.get()).as("the clients' event loops ran on the given executor").isPositive();
      // No event-loop thread of their own: only the socket threads carry the clients' names.
      assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
          .filteredOn(n -> n.startsWith("test-alice") || n.startsWith("test-bob")
              || n.startsWith("test-carol"))
          .isNotEmpty()
          .allMatch(n -> n.contains("-ws-"));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @Timeout(value = 10, unit = SECONDS)
  void nullSettingsAreRefusedAtTheSetter() {
    assertThatThrownBy(() -> ChatClient.builder().executor(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("executor");
    assertThatThrownBy(() -> ChatClient.builder().sslContext(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("sslContext");
  }
}
