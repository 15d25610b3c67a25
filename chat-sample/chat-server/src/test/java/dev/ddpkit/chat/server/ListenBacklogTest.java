package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server listens with a backlog sized for a reconnect wave, not the JDK's default of 50 that
 * Java-WebSocket passed on: in {@code herd --real} (1,000 clients dialling at several hundred per
 * second while the selector thread shares two cores with 2,000 client threads) the kernel dropped
 * hundreds to thousands of SYNs per wave on the full accept queue, and each dropped SYN cost its
 * client a retransmission 1 s, then 3 s, then 7 s later. The backlog is read back from the kernel
 * ({@code ss}, Linux), capped there by {@code net.core.somaxconn}.
 */
@Timeout(value = 30, unit = SECONDS)
class ListenBacklogTest {
  @TempDir Path dir;

  @Test
  void theServerListensWithTheConfiguredBacklog() throws Exception {
    OptionalInt somaxconn = somaxconn();
    assumeTrue(somaxconn.isPresent(), "Linux only: net.core.somaxconn");
    ChatServer server = ChatServer.builder().dataDir(dir).build();
    server.start();
    try {
      OptionalInt backlog = listenBacklog(server.port());
      assumeTrue(backlog.isPresent(), "needs ss (iproute2)");
      assertThat(backlog.getAsInt())
          .isEqualTo(Math.min(ChatServerBuilder.DEFAULT_LISTEN_BACKLOG, somaxconn.getAsInt()));
    } finally {
      server.kill();
    }
  }

  @Test
  void aBacklogCanBeSetAndIsValidated() throws Exception {
    assumeTrue(somaxconn().isPresent(), "Linux only: net.core.somaxconn");
    ChatServer server = ChatServer.builder().dataDir(dir).listenBacklog(77).build();
    server.start();
    try {
      OptionalInt backlog = listenBacklog(server.port());
      assumeTrue(backlog.isPresent(), "needs ss (iproute2)");
      assertThat(backlog.getAsInt()).isEqualTo(77);
    } finally {
      server.kill();
    }
    assertThatThrownBy(() -> ChatServer.builder().listenBacklog(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listenBacklog");
  }

  private static OptionalInt somaxconn() {
    try {
      // Not readString: on JDK 17 it returns only the first byte of this procfs file ("4").
      return OptionalInt.of(Integer.parseInt(
          Files.readAllLines(Path.of("/proc/sys/net/core/somaxconn")).get(0).trim()));
    } catch (IOException | RuntimeException e) {
      return OptionalInt.empty();
    }
  }

  /** The listening socket's backlog on {@code port}: the Send-Q column of {@code ss -ltn}. */
  private static OptionalInt listenBacklog(int port) throws InterruptedException {
    try {
      Process p = new ProcessBuilder("ss", "-Hltn", "sport = :" + port).redirectErrorStream(true)
          .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return OptionalInt.empty();
      }
      // "LISTEN 0 1024 127.0.0.1:40123 0.0.0.0:*": state, Recv-Q, Send-Q (the backlog), ...
      String[] fields = out.trim().split("\\s+");
      return fields.length >= 3 && fields[0].equals("LISTEN")
          ? OptionalInt.of(Integer.parseInt(fields[2])) : OptionalInt.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalInt.empty();
    }
  }
}
