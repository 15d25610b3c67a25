package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.server.ChatServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The server side of the footprint benchmark, run in a JVM of its own so that the measured JVM
 * holds only clients: starts a {@link ChatServer} on a free loopback port with one user and one
 * room, prints {@code URL <url>}, {@code ROOM <rid>} and {@code TOKEN <resume token>} (a token
 * for a throw-away benchmark user on loopback; it is the protocol the clients must be given), then
 * serves until its standard input ends.
 */
public final class FootprintServer {
  /** The user the clients log in as. */
  static final String USER = "footprint";
  /** The room the clients subscribe to. */
  static final String ROOM = "footprint-room";

  private FootprintServer() {}

  /** Runs the server until standard input is closed (the parent JVM exited or closed it). */
  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("ddpkit-footprint-");
    ChatServer server = ChatServer.builder().dataDir(dir).build();
    server.start();
    try {
      server.createUser(USER, "footprint-pw");
      server.createRoom(ROOM, USER);
      String token = server.issueToken(USER);
      System.out.println("URL " + server.url());
      System.out.println("ROOM " + ROOM);
      System.out.println("TOKEN " + token);
      System.out.flush();
      InputStream in = System.in;
      while (in.read() >= 0) {
        // serve until the parent closes our stdin
      }
    } finally {
      server.kill();
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
