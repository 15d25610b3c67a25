package dev.ddpkit.chat;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.chat.server.ChatServer;
import dev.ddpkit.chat.server.ChatServerBuilder;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.ddp.testing.LiveThreads;
import dev.ddpkit.reconnect.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A loopback fixture: an embedded server in a temporary folder, restartable on the same port and
 * data, and fast-reconnecting clients; {@link #close()} leaves no thread behind.
 */
final class LoopbackChat implements AutoCloseable {
  private final Path dataDir;
  private final UnaryOperator<ChatServerBuilder> serverSettings;
  private final List<ChatClient> clients = new ArrayList<>();
  private ChatServer server;
  private int port;

  LoopbackChat(Path dataDir) {
    this(dataDir, b -> b);
  }

  LoopbackChat(Path dataDir, UnaryOperator<ChatServerBuilder> serverSettings) {
    this.dataDir = dataDir;
    this.serverSettings = serverSettings;
    this.server = build(0);
    server.start();
    this.port = server.port();
  }

  private ChatServer build(int port) {
    return serverSettings.apply(ChatServer.builder().port(port).dataDir(dataDir)).build();
  }

  ChatServer server() {
    return server;
  }

  String url() {
    return "ws://127.0.0.1:" + port + "/websocket";
  }

  /** Kills the server hard (no close frames). */
  void kill() {
    server.kill();
  }

  /** Starts a new server on the same port and data. */
  void restart() {
    server = build(port);
    server.start();
  }

  /**
   * Cuts {@code client} off behind {@code proxy}: its connection reset and its dials refused,
   * until it says it is waiting to retry.
   */
  static void cutOff(FaultProxy proxy, ChatClient client) {
    proxy.mode(FaultProxy.Mode.REFUSE);
    proxy.reset();
    await().atMost(20, SECONDS)
        .until(() -> client.status().state() == ChatStatus.State.WAITING);
  }

  /** A builder for a client of this server with short, jittered reconnect delays. */
  ChatClientBuilder client(String user, Recorder recorder) {
    return ChatClient.builder()
        .url(url())
        .username(user)
        .password(user + "-pw")
        .backoff(Backoff.fullJitter(Duration.ofMillis(50), Duration.ofMillis(500)))
        .stableAfter(Duration.ofSeconds(1))
        .catchUpOverlap(Duration.ofMillis(500))
        .resendDelay(Duration.ofMillis(200))
        .listener(recorder)
        .name("test-" + user);
  }

  /** A builder for a client logging in with a resume token. */
  ChatClientBuilder tokenClient(String token, Recorder recorder) {
    return ChatClient.builder()
        .url(url())
        .token(token)
        .backoff(Backoff.fullJitter(Duration.ofMillis(50), Duration.ofMillis(500)))
        .stableAfter(Duration.ofSeconds(1))
        .listener(recorder)
        .name("test-token");
  }

  /** Builds, remembers (for close) and starts a client. */
  ChatClient start(ChatClientBuilder builder) {
    ChatClient c = builder.build();
    clients.add(c);
    c.start();
    return c;
  }

  /** Creates users named {@code prefix0..prefix(n-1)} with passwords {@code name-pw}. */
  List<String> createUsers(String prefix, int n) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = prefix + i;
      server.createUser(name, name + "-pw");
      names.add(name);
    }
    return names;
  }

  /** Closes every client and kills the server, then checks that no client thread is left. */
  @Override
  public void close() {
    clients.forEach(ChatClient::close);
    server.kill();
    await("client threads to end").atMost(10, SECONDS).until(() -> clientThreads().isEmpty());
  }

  /** Live threads of our clients: their event loops and Java-WebSocket's client threads. */
  static List<String> clientThreads() {
    return LiveThreads.startingWith(
        "test-", "WebSocketConnectReadThread", "WebSocketWriteThread");
  }
}
