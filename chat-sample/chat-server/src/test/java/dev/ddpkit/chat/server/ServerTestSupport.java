package dev.ddpkit.chat.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Starts servers on an ephemeral loopback port in a temp directory and cleans up after. */
abstract class ServerTestSupport {
  @TempDir Path dataDir;

  private final List<ChatServer> servers = new ArrayList<>();
  private final List<DdpPeer> peers = new ArrayList<>();

  /** A started server with the demo seed (alice, bob, carol in general) and a room "secret". */
  ChatServer startSeeded(UnaryOperator<ChatServerBuilder> tweak) {
    ChatServer s = start(tweak);
    s.seedDemo();
    s.createUser("dave", "dave-pw");
    s.createRoom("secret", "alice", "dave");
    return s;
  }

  ChatServer start(UnaryOperator<ChatServerBuilder> tweak) {
    ChatServer s = tweak.apply(ChatServer.builder().dataDir(dataDir).drainPeriod(
        java.time.Duration.ZERO)).build();
    servers.add(s);
    s.start();
    return s;
  }

  <T extends DdpPeer> T track(T peer) {
    peers.add(peer);
    return peer;
  }

  DdpPeer connect(ChatServer s) throws InterruptedException {
    return track(DdpPeer.connect(s.url()));
  }

  DdpPeer login(ChatServer s, String user) throws InterruptedException {
    return track(DdpPeer.loggedIn(s.url(), user, user + "-pw"));
  }

  @AfterEach
  void cleanUp() {
    peers.forEach(DdpPeer::close);
    servers.forEach(ChatServer::kill);
  }
}
