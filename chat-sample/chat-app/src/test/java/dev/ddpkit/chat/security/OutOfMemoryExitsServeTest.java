package dev.ddpkit.chat.security;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.cli.ServeCommand;
import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.testing.RawPeer;
import dev.ddpkit.chat.server.testing.WebSocketWire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} in a JVM of its own with a small heap, run out of memory by many clients each
 * holding a fragmented message just under the limit: it exits at once with status 70 (before, an
 * {@code OutOfMemoryError} in its selector, worker and timer threads left a process that served
 * nobody and ignored SIGTERM), and a server started on the same data directory has its data.
 */
@Timeout(value = 120, unit = SECONDS)
class OutOfMemoryExitsServeTest {
  private static final Pattern URL = Pattern.compile("listening on (ws://\\S+)");
  private static final int FRAGMENT = 64 * 1024;
  /** A message of just under the server's 1 MiB limit: never refused, never finished. */
  private static final int HELD_BYTES = (1 << 20) - FRAGMENT;

  @TempDir Path dir;
  private final List<RawPeer> sockets = new ArrayList<>();
  private Process child;

  @AfterEach
  void cleanUp() {
    sockets.forEach(RawPeer::close);
    if (child != null) {
      child.destroyForcibly();
    }
  }

  @Test
  void anOutOfMemoryErrorEndsTheProcessWithStatus70AndTheJournalIsKept() throws Exception {
    Path data = dir.resolve("data");
    String java = ProcessHandle.current().info().command().orElse("java");
    child = new ProcessBuilder(java, "-Xmx48m", "-cp", System.getProperty("java.class.path"),
        "dev.ddpkit.chat.cli.Main", "serve", "--port", "0", "--data", data.toString(),
        "--seed-demo").redirectError(dir.resolve("stderr.txt").toFile()).start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    String url = null;
    for (String line; url == null && (line = out.readLine()) != null; ) {
      Matcher m = URL.matcher(line);
      if (m.find()) {
        url = m.group(1);
      }
    }
    assertThat(url).as("serve printed its URL").isNotNull();
    CompletableFuture.runAsync(() -> out.lines().forEach(l -> { })); // keep its stdout drained

    byte[] fragment = new byte[FRAGMENT];
    int opened = 0;
    while (child.isAlive() && opened < 400) {
      try {
        RawPeer ws = RawPeer.upgraded(url);
        sockets.add(ws);
        ws.sendFragment(WebSocketWire.TEXT, /* fin= */ false, fragment);
        for (int sent = FRAGMENT; sent < HELD_BYTES; sent += FRAGMENT) {
          ws.sendFragment(0, /* fin= */ false, fragment);
        }
        opened++;
      } catch (IOException e) {
        break; // the server is gone (or going)
      }
    }
    boolean ended = child.waitFor(60, SECONDS);
    String stderr = Files.readString(dir.resolve("stderr.txt"));
    assertThat(ended).as("serve ended after %d sockets; stderr:%n%s", opened, stderr).isTrue();
    assertThat(child.exitValue()).as("exit status; stderr:%n%s", stderr)
        .isEqualTo(ServeCommand.EXIT_FATAL_ERROR);
    assertThat(stderr).contains("java.lang.OutOfMemoryError").contains("exiting with status 70");

    ChatServer again = ChatServer.builder().dataDir(data).build();
    again.start();
    try {
      RawPeer fresh = RawPeer.ddp(again.url());
      sockets.add(fresh);
      fresh.sendText(ServerHostileInputTest.login("alice", "alice-pw", "1"));
      JsonNode login = fresh.nextJson();
      assertThat(login.has("result")).as("alice, seeded before the crash: %s", login).isTrue();
    } finally {
      again.kill();
    }
  }
}
