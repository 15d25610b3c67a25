package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chat clients with the default event loop, on the pool every client of the JVM shares, next to
 * clients with an executor of their own: the same messages, once each, through a server restart;
 * no thread of their own (the socket's two only); the listener on a shared loop thread, free to
 * close the client. Until issue 11 the first half used {@code directExecution()} and the second
 * the default loop thread of each client's own, both replaced by the shared pool.
 */
class SharedLoopChatTest {
  private static final int PAIRS = 3;

  @Test
  @Timeout(value = 60, unit = SECONDS)
  void sharedLoopClientsGoThroughARestartLikeOnesWithAnExecutorWithTwoThreadsEach(
      @TempDir Path dir) {
    java.util.concurrent.ExecutorService own = java.util.concurrent.Executors.newSingleThreadExecutor(
        r -> new Thread(r, "own-executor"));
    try (LoopbackChat chat = new LoopbackChat(dir)) {
      List<String> users = chat.createUsers("d", 2 * PAIRS);
      chat.server().createRoom("room", users.toArray(String[]::new));
      List<ChatClient> clients = new ArrayList<>();
      List<Recorder> recorders = new ArrayList<>();
      List<List<String>> deliveredOn = new ArrayList<>();
      for (int i = 0; i < 2 * PAIRS; i++) {
        List<String> threads = new CopyOnWriteArrayList<>();
        Recorder r = new Recorder();
        ChatClientBuilder b = chat.client(users.get(i), r).room("room")
            .listener(new OnMessage(r, m -> threads.add(Thread.currentThread().getName())));
        if (!shared(i)) {
          b.executor(own);
        }
        clients.add(chat.start(b));
        recorders.add(r);
        deliveredOn.add(threads);
      }
      await().atMost(20, SECONDS).until(() -> clients.stream().allMatch(
          c -> c.joinedRooms().contains("room") && c.status().state() == ChatStatus.State.CONNECTED));
      for (int i = 0; i < 2 * PAIRS; i += 2) {
        String name = "test-" + users.get(i);
        assertThat(threadsOf(name)).as("default client %s: the socket's two threads only", name)
            .containsExactlyInAnyOrder(name + "-ws-read", name + "-ws-write");
        String other = "test-" + users.get(i + 1);
        assertThat(threadsOf(other)).as("client %s with an executor: the same", other)
            .containsExactlyInAnyOrder(other + "-ws-read", other + "-ws-write");
      }

      List<String> written = new ArrayList<>();
      writeRound(clients, written, "before");
      await().atMost(20, SECONDS).until(() -> clients.stream().allMatch(c -> c.outboxSize() == 0));
      chat.kill();
      writeRound(clients, written, "while down");
      await().atMost(20, SECONDS).until(() -> clients.stream()
          .allMatch(c -> c.status().state() != ChatStatus.State.CONNECTED));
      chat.restart();
      writeRound(clients, written, "after");
      await().atMost(30, SECONDS).until(() -> clients.stream().allMatch(c -> c.outboxSize() == 0));
      await().atMost(20, SECONDS).until(
          () -> recorders.stream().allMatch(r -> written.stream().allMatch(r::saw)));

      for (int i = 0; i < 2 * PAIRS; i++) {
        Recorder r = recorders.get(i);
        assertThat(r.ids()).as("client %d sees each message once", i)
            .containsExactlyInAnyOrderElementsOf(written);
        assertThat(r.duplicates()).isZero();
        assertThat(clients.get(i).stats().logins()).as("logged in again").isGreaterThanOrEqualTo(2);
      }
      for (int i = 0; i < 2 * PAIRS; i += 2) {
        String name = "test-" + users.get(i);
        assertThat(deliveredOn.get(i)).as("live messages of a default client")
            .isNotEmpty()
            .allMatch(t -> t.startsWith("ddpkit-loop-"), "on the shared pool")
            .allMatch(t -> !t.equals(name), "never a loop thread of its own");
        assertThat(deliveredOn.get(i + 1)).as("live messages of a client with an executor")
            .isNotEmpty().containsOnly("own-executor");
      }
    } finally {
      own.shutdownNow();
    }
  }

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void aClientClosedFromItsListenerEndsItsThreads(@TempDir Path dir) {
    try (LoopbackChat chat = new LoopbackChat(dir)) {
      chat.createUsers("c", 2);
      chat.server().createRoom("room", "c0", "c1");
      AtomicReference<ChatClient> self = new AtomicReference<>();
      AtomicReference<String> closedOn = new AtomicReference<>();
      Recorder r = new Recorder();
      ChatListener closeOnMessage = new OnMessage(r, m -> {
        self.get().close();
        closedOn.compareAndSet(null, Thread.currentThread().getName());
      });
      ChatClient closing =
          chat.client("c0", r).listener(closeOnMessage).room("room").build();
      self.set(closing);
      try {
        closing.start();
        ChatClient writer = chat.start(chat.client("c1", new Recorder()).room("room"));
        await().atMost(20, SECONDS).until(() -> closing.joinedRooms().contains("room")
            && writer.joinedRooms().contains("room"));

        writer.sendMessage("room", "close yourself");

        await().atMost(10, SECONDS).until(() -> closedOn.get() != null);
        assertThat(closedOn.get()).startsWith("ddpkit-loop-");
        // close() from the listener queues the DDP client's shutdown behind it.
        await().atMost(10, SECONDS)
            .until(() -> closing.status().state() == ChatStatus.State.STOPPED);
        await().atMost(10, SECONDS).until(() -> threadsOf("test-c0").isEmpty());
      } finally {
        closing.close();
      }
    }
  }

  /** Passes every event to a recorder; on a message, runs {@code action} first. */
  private record OnMessage(Recorder recorder, java.util.function.Consumer<ChatMessage> action)
      implements ChatListener {
    @Override
    public void onMessage(ChatMessage message) {
      action.accept(message);
      recorder.onMessage(message);
    }

    @Override
    public void onSent(String rid, String id) {
      recorder.onSent(rid, id);
    }

    @Override
    public void onStatus(ChatStatus status) {
      recorder.onStatus(status);
    }

    @Override
    public void onError(String message) {
      recorder.onError(message);
    }
  }

  private static boolean shared(int i) {
    return i % 2 == 0;
  }

  private static void writeRound(List<ChatClient> clients, List<String> written, String when) {
    for (int i = 0; i < clients.size(); i++) {
      written.add(clients.get(i).sendMessage("room", when + " from " + i));
    }
  }

  private static Set<String> threadsOf(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.equals(name) || n.startsWith(name + "-"))
        .collect(Collectors.toSet());
  }
}
