package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.ddp.testing.LiveThreads;
import java.util.List;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every server thread is named chat-server-* and none is left after stop() or kill(). */
@Timeout(value = 30, unit = SECONDS)
class ThreadsTest extends ServerTestSupport {

  @Test
  void noThreadIsLeftAfterStop() throws Exception {
    noneLeft(ChatServer::stop);
  }

  @Test
  void noThreadIsLeftAfterKill() throws Exception {
    noneLeft(ChatServer::kill);
  }

  private void noneLeft(Consumer<ChatServer> end) throws Exception {
    List<String> before = serverThreads();
    ChatServer s = startSeeded(b -> b);
    DdpPeer p = login(s, "alice");
    p.call("sendMessage", DdpPeer.message("t1", "general", "hi"));
    List<String> running = serverThreads();
    assertThat(running).hasSizeGreaterThan(before.size());
    running.removeAll(before);
    assertThat(running).allMatch(n -> n.startsWith("chat-server-"))
        .anyMatch(n -> n.endsWith("-selector")).anyMatch(n -> n.endsWith("-store"))
        .anyMatch(n -> n.endsWith("-timer")).anyMatch(n -> n.endsWith("-worker-1"));
    end.accept(s);
    Awaitility.await().atMost(10, SECONDS).until(() -> {
      List<String> left = serverThreads();
      left.removeAll(before);
      return left.isEmpty();
    });
  }

  /** Threads of any chat server, and any Java-WebSocket server thread we failed to rename. */
  private static List<String> serverThreads() {
    return LiveThreads.startingWith("chat-server-", "WebSocketSelector", "WebSocketWorker");
  }
}
