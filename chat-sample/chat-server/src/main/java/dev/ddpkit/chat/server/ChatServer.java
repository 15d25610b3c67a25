package dev.ddpkit.chat.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded Rocket.Chat-compatible chat server speaking DDP v1 over WebSocket at
 * {@code /websocket}: password and resume-token login, {@code sendMessage} (idempotent by the
 * client's {@code _id}), {@code loadHistory}, {@code loadMissedMessages}, and the
 * {@code stream-room-messages} stream, with server pings, admission control and a graceful
 * drain. Messages, users, rooms and (hashed) tokens live in a journal file in the data
 * directory, and every answer is sent only once what it acknowledges is on disk, so a new server
 * on the same directory (and port) carries on after {@link #stop()} or {@link #kill()}.
 *
 * <p>It is the backend of the demo and a test peer a test suite depends on (artifact {@code
 * dev.ddpkit:chat-server}, test scope): start it, seed users and rooms, inject faults through the
 * {@link ServerFaults} it was built with, read {@link #stats()}, stop it.
 *
 * <pre>{@code
 * ScriptedFaults faults = new ScriptedFaults();
 * try (ChatServer server = ChatServer.builder().dataDir(tempDir).faults(faults).build()) {
 *   server.start();                                   // a free port on 127.0.0.1
 *   server.createUser("alice", "alice-pw");
 *   server.createRoom("general", "alice");
 *   // ... point a client at server.url() ...
 *   faults.loseNextAcknowledgement();                 // stored, but its answer is lost
 *   faults.dropAll();                                 // every socket reset mid-session
 *   assertThat(server.messageCount("general")).isEqualTo(1);
 * }                                                   // close(): stops it, waits for its threads
 * }</pre>
 *
 * <p>With {@link ChatServerBuilder#ticker} and {@link ChatServerBuilder#scheduler} both a {@link
 * dev.ddpkit.reconnect.VirtualScheduler} (and a {@link ChatServerBuilder#clock} on the same
 * time), its heartbeats, holds and token expiry run on virtual time. Which thread runs what, and
 * what guards what, is the package's one concurrency model (see {@code package-info}).
 */
public final class ChatServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ChatServer.class);
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final ServerConfig cfg;
  private final String threadPrefix;
  private final Secrets secrets = new Secrets();
  private final Counters counters = new Counters();
  private final Lifecycle lifecycle = new Lifecycle();
  /** What the current start opened; null before it. */
  private volatile ServerParts parts;
  private volatile StoreAdmin admin;
  private volatile int boundPort = -1;

  ChatServer(ServerConfig cfg) {
    this.cfg = cfg;
    this.threadPrefix = "chat-server-" + INSTANCES.incrementAndGet() + "-";
  }

  /** A builder with every default set; only {@link ChatServerBuilder#dataDir(Path)} is required. */
  public static ChatServerBuilder builder() {
    return new ChatServerBuilder();
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Opens the store and starts listening; returns once the port is bound.
   *
   * @throws IllegalStateException if already started, or if the store or port cannot be opened
   */
  public void start() {
    lifecycle.beginStart();
    FatalErrors fatal = new FatalErrors(this, cfg.fatalErrorHandler);
    ServerParts p = new ServerParts(cfg, threadPrefix, counters, fatal);
    parts = p;
    try {
      p.open(threadPrefix, secrets, fatal);
      boundPort = p.port();
      admin = new StoreAdmin(p.store(), secrets, cfg);
      cfg.faults.attached(new FaultTargets(this::runningHandler));
    } catch (Exception e) {
      p.close(/* immediately= */ false);
      lifecycle.terminated();
      throw new IllegalStateException("cannot start the chat server: " + e, e);
    }
    lifecycle.started();
    log.info("chat server listening on {} (data in {})", url(), cfg.dataDir);
  }

  /** The port the server listens on (the real one when built with port 0). */
  public int port() {
    int p = boundPort;
    if (p < 0) {
      throw new IllegalStateException("server is not started");
    }
    return p;
  }

  /** The WebSocket URL clients dial, such as {@code ws://127.0.0.1:3000/websocket}. */
  public String url() {
    return "ws://" + cfg.dialHost() + ":" + port() + Endpoint.PATH;
  }

  /**
   * Graceful drain: turns new connections away (1012 with a {@code retry-after} hint), closes
   * the open ones with 1012 "service restart" in batches spread over the drain period, then
   * stops listening, stops every thread and closes the store. Idempotent; blocks until done.
   */
  public void stop() {
    shutdown(null);
  }

  /**
   * Planned restart by appointment: the next server is expected to be ready {@code readyIn} from
   * now and to admit this server's {@linkplain ChatServerBuilder#acceptRate accept rate}; see
   * {@link #stopForRestart(Duration, int)}.
   */
  public void stopForRestart(Duration readyIn) {
    stopForRestart(readyIn, cfg.acceptRate);
  }

  /**
   * Planned restart by appointment: closes every connection at once with 1012 "service restart"
   * and its own {@code retry-after}, the time until {@code readyIn + k / capacityAfter} for the
   * connection in place k of the queue (oldest first; a connection that arrives meanwhile joins
   * the end), so that N clients come back one slot each and are all back at {@code readyIn +
   * N / capacityAfter}; then stops as {@link #stop()} does. A client that keeps its appointment
   * finds the next server's admission (empty when it starts) with a token for it.
   *
   * @param readyIn the expected time from now until the next server is ready
   * @param capacityAfter the connections per second the next server admits; 0 for all at once
   *     (then every appointment is {@code readyIn})
   * @throws IllegalArgumentException if {@code readyIn} is negative or {@code capacityAfter} is
   */
  public void stopForRestart(Duration readyIn, int capacityAfter) {
    shutdown(new RestartPlan(readyIn, capacityAfter, cfg.ticker));
  }

  private void shutdown(RestartPlan plan) {
    if (!lifecycle.beginStop()) {
      return;
    }
    ServerParts p = parts;
    try {
      Drain.run(p.handler(), p.own, cfg.drainPeriod, plan);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      p.close(/* immediately= */ false);
      lifecycle.terminated();
    }
    log.info("chat server on port {} stopped", boundPort);
  }

  /**
   * Hard stop, for tests and the demo: drops every TCP connection with no close frame, stops
   * listening and closes the store without any further write. Whatever was acknowledged is
   * already on disk. Idempotent; blocks until done.
   */
  public void kill() {
    if (!lifecycle.beginStop()) {
      return;
    }
    ServerParts p = parts;
    try {
      p.handler().mode(Arrivals.Mode.KILLED, () -> "killed");
      p.handler().sessions().forEach(s -> Liveness.dropAbruptly(s.conn));
    } finally {
      p.close(/* immediately= */ true);
      lifecycle.terminated();
    }
    log.info("chat server on port {} killed", boundPort);
  }

  /** Same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  // ------------------------------------------------------------------ seeding

  /**
   * Creates a user with a password (stored as a salted hash of its SHA-256 digest); returns the
   * new user's id.
   *
   * @throws IllegalArgumentException if the username is malformed or taken
   */
  public String createUser(String username, String password) {
    return runningAdmin().createUser(username, password);
  }

  /**
   * Creates a room with the given members (existing usernames).
   *
   * @throws IllegalArgumentException if the id is malformed, the room exists or a member does not
   */
  public void createRoom(String rid, String... members) {
    runningAdmin().createRoom(rid, members);
  }

  /**
   * Seeds the demo data when the database has no user yet: users alice, bob and carol (passwords
   * {@code alice-pw}, {@code bob-pw}, {@code carol-pw}) in room {@code general}.
   *
   * @return true if it seeded, false if the database already had users
   */
  public boolean seedDemo() {
    return runningAdmin().seedDemo();
  }

  /**
   * For tests: issues a resume token for a user, stored (hashed) like one from a password login,
   * with the configured time to live.
   */
  public String issueToken(String username) {
    return runningAdmin().issueToken(username);
  }

  /**
   * Admin: deletes the room's messages with {@code from <= ts <= to} (epoch ms) of these users
   * (any user if none), as Rocket.Chat's history pruning does, and tells the room's {@code
   * stream-notify-room} subscribers with one {@code <rid>/deleteMessageBulk} event, listing the
   * ids when {@code withIds} (else only the range and the users, as older servers did). Returns
   * how many were deleted, once durable.
   */
  public int pruneMessages(String rid, long from, long to, List<String> usernames,
      boolean withIds) {
    return runningAdmin().pruneMessages(rid, from, to, usernames, withIds);
  }

  // ------------------------------------------------------------------ stats

  /** For tests: the number of messages stored in a room (0 for an unknown room). */
  public long messageCount(String rid) {
    return runningAdmin().messageCount(rid);
  }

  /**
   * The room's messages as the server holds them now (live ones only, oldest first): what every
   * client's view of the room must converge to.
   */
  public List<StoredMessage> storedMessages(String rid) {
    return runningAdmin().storedMessages(rid);
  }

  /** An immutable snapshot of the counters. */
  public ChatServerStats stats() {
    ServerParts p = parts;
    return counters.stats(p == null ? null : p.handler());
  }

  /** The counters of DDP traffic and session resumption, as a snapshot. */
  public SessionStats sessionStats() {
    ServerParts p = parts;
    return counters.sessionStats(p == null ? null : p.handler());
  }

  /** Test hook: how many accepted sockets are open, upgraded to WebSocket or not yet. */
  int acceptedSockets() {
    ServerParts p = parts;
    return p == null ? 0 : p.acceptedSockets();
  }

  private StoreAdmin runningAdmin() {
    lifecycle.requireRunning();
    return admin;
  }

  /** Entries in a room's subscriber set, held sessions' included (for tests in this package). */
  int subscriberEntries(String rid) {
    return runningHandler().subscriberEntries(rid);
  }

  /** The reads decoded so far on the selector and on the workers (for tests in this package). */
  Endpoint.Decodes decodes() {
    lifecycle.requireRunning();
    return parts.decodes();
  }

  private DdpHandler runningHandler() {
    lifecycle.requireRunning();
    return parts.handler();
  }

  @Override
  public String toString() {
    return "ChatServer{" + cfg.host + ":" + (boundPort < 0 ? cfg.port : boundPort) + ", "
        + cfg.dataDir + "}";
  }
}
