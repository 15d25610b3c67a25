package dev.ddpkit.chat;

import dev.ddpkit.chat.protocol.RocketChatNames;
import dev.ddpkit.ddp.ConnectionListener;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.DdpClientBuilder;
import dev.ddpkit.ddp.DdpStats;
import dev.ddpkit.ddp.PasswordDigest;
import dev.ddpkit.reconnect.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Rocket.Chat-style chat client over DDP: it logs in (password digest, then the resume token
 * after every reconnect), follows one {@code stream-room-messages} stream per room, sends messages
 * through a bounded outbox with client-chosen ids, and after each reconnect fetches what it missed,
 * so that every message is shown once and in order.
 *
 * <p>It never shows stale data without saying so: after each login the status is {@link
 * ChatStatus.State#SYNCING} ("catching up (2 rooms)") until every room's stream is ready and its
 * history or missed messages are shown, and only then {@link ChatStatus.State#CONNECTED}; {@link
 * #isCatchingUp} tells the same per room.
 *
 * <p>It keeps to the server's rate limits ({@link ChatLimits}, Rocket.Chat's defaults unless told
 * otherwise): after a reconnect the streams, the catch-ups and the outbox go out within budget, the
 * room in {@link #focus focus} first, then the most recently active. A call the server holds back
 * ({@code too-many-requests} with {@code timeToReset}) waits exactly that long; every other retry
 * follows a {@link Backoff} with injected randomness. A refusal for now is never final.
 *
 * <p>Thread-safe: every public call, callback and timer runs on the DDP client's event loop, one
 * at a time, so listener calls come in order and never under a lock. Build with {@link
 * #builder()}, then {@link #start()}; {@link #close()} when done.
 */
public final class ChatClient implements AutoCloseable {
  /** The stream collection carrying room messages. */
  public static final String STREAM = RocketChatNames.STREAM_ROOM_MESSAGES;

  /** The status before {@link #start()}. */
  static final ChatStatus NOT_STARTED =
      new ChatStatus(ChatStatus.State.STOPPED, 0, Duration.ZERO, "not started");

  private static final AtomicInteger SEQ = new AtomicInteger();

  private final DdpClient ddp;
  private final ChatSession session;
  private final RandomIds ids;
  private final String name;
  private final List<String> rooms;
  private volatile ChatSession.View view;

  ChatClient(ChatClientBuilder b) {
    ChatClientBuilder.Randomness randomness = b.randomness();
    Clock clock = b.wallClock();
    this.ids = randomness.ids();
    this.name = b.name != null ? b.name : "chat-" + SEQ.incrementAndGet();
    this.rooms = List.copyOf(b.rooms);
    DdpClientBuilder db =
        DdpClient.builder()
            .url(b.url)
            .name(this.name)
            // Room of its own above the outbox, so queued sends never fail for want of space.
            .maxQueuedCalls(Math.max(1_000, 2 * b.outboxCapacity + 100));
    b.configure(db, randomness);
    this.ddp = db.build();
    Settings settings =
        new Settings(
            name,
            b.username,
            b.password == null ? null : PasswordDigest.sha256Hex(b.password),
            b.token,
            rooms,
            b.historyLimit,
            b.catchUpOverlap,
            b.retryBackoff != null
                ? b.retryBackoff
                : Backoff.proportional(b.resendDelay, Settings.STABLE_STREAM, 0.25),
            b.limits,
            clock,
            randomness.retries(),
            b.outboxCapacity,
            b.dedupWindow,
            b.liveDeletions,
            b.messagesGet);
    this.session = new ChatSession(settings, ddp, b.listener, v -> view = v);
    // Added before start(), so they hear every status and connection of the client.
    ddp.addStatusListener(session::onDdpStatus);
    ddp.addConnectionListener(new ConnectionListener() {
      @Override
      public void onConnected(boolean reconnect, boolean resumed) {
        session.onDdpConnected(resumed);
      }

      @Override
      public void onDisconnected(int code, String reason) {
        session.onDdpDisconnected(code);
      }
    });
    this.view =
        new ChatSession.View(
            NOT_STARTED,
            Set.of(), Set.copyOf(rooms), null, new Stats(0, 0, 0, 0, 0, 0));
    ddp.addStreamListener(STREAM, (collection, id, fields) -> session.onStreamEvent(fields));
    ddp.addStreamListener(DeletionStreams.NOTIFY_ROOM,
        (collection, id, fields) -> session.onRoomEvent(fields));
  }

  /** Returns a builder. */
  public static ChatClientBuilder builder() {
    return new ChatClientBuilder();
  }

  /** Connects and logs in (returns at once; a second call does nothing). Rooms join once logged in. */
  public void start() {
    if (session.closed() || !ddp.execute(session::start)) {
      throw new IllegalStateException("closed");
    }
  }

  /** Returns the client's name (its thread and log name). */
  public String name() {
    return name;
  }

  /** Returns the current status. */
  public ChatStatus status() {
    return view.status();
  }

  /** Returns the rooms asked for at build time. */
  public List<String> rooms() {
    return rooms;
  }

  /** Returns the rooms whose stream is live. */
  public Set<String> joinedRooms() {
    return view.joined();
  }

  /**
   * Returns whether a room's timeline may be missing messages: its stream is not (yet, or no
   * longer) live, for instance while disconnected or rejoining, or its history or what was sent
   * while offline is still being fetched. {@code false} once the room caught up, and for a room not
   * followed (never asked for, or left after a permanent refusal, which {@link
   * ChatListener#onError} reports).
   */
  public boolean isCatchingUp(String rid) {
    Objects.requireNonNull(rid, "rid");
    return view.behind().contains(rid);
  }

  /**
   * Says which room the user is looking at: when the budgets are spent, its stream and catch-up go
   * before every other room's (the others go by recent activity). {@code null} for none.
   */
  public void focus(String rid) {
    ddp.execute(() -> session.focus(rid));
  }

  /** Returns the number of messages written but not yet acknowledged. */
  public int outboxSize() {
    return session.sender.size();
  }

  /**
   * Returns the resume token of the current login, if any, for an app to keep (it is never
   * logged).
   */
  public Optional<String> resumeToken() {
    return Optional.ofNullable(view.token());
  }

  /** Returns counters for monitoring and tests. */
  public Stats stats() {
    return view.stats();
  }

  /**
   * Returns the counters of the DDP connection under the client (reconnects, heartbeat and connect
   * timeouts, protocol errors), for monitoring and tests.
   */
  public DdpStats connectionStats() {
    return ddp.stats();
  }

  /**
   * Completes at the first successful login; fails if the client signs out or stops before.
   */
  public CompletableFuture<Void> loggedIn() {
    return session.firstLogin.thenApply(done -> done);
  }

  /**
   * Completes when every message written so far has been acknowledged; fails if the client signs
   * out or stops first.
   */
  public CompletableFuture<Void> flush() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    if (!ddp.execute(() -> session.flush(f))) {
      f.completeExceptionally(new IllegalStateException("client " + view.status().text()));
    }
    return f;
  }

  /**
   * Writes a message: it gets a fresh id, waits in the outbox while offline, and is sent (and
   * re-sent with the same id after a failure) until the server acknowledges it, which {@link
   * ChatListener#onSent} reports. The server stamps its time when it arrives.
   *
   * @return the message id
   * @throws OutboxFullException if the outbox is full
   * @throws IllegalStateException if the client is closed or signed out
   */
  public String sendMessage(String rid, String text) {
    Objects.requireNonNull(rid, "rid");
    Objects.requireNonNull(text, "text");
    if (rid.isEmpty()) {
      throw new IllegalArgumentException("rid must not be empty");
    }
    if (session.closed()) {
      throw new IllegalStateException("cannot send: client " + view.status().text());
    }
    if (!session.sender.reserve()) {
      throw new OutboxFullException(session.settings.outboxCapacity());
    }
    String id = ids.next();
    Outbox.Entry entry = new Outbox.Entry(id, rid, text);
    if (!ddp.execute(() -> session.send(entry))) {
      session.sender.release(1);
      throw new IllegalStateException("cannot send: client " + view.status().text());
    }
    return id;
  }

  /**
   * Edits one of the user's messages: the edit waits in the outbox like a message (offline, until
   * logged in, behind the message's own send) and is re-sent after a reconnect until the server
   * answers; the same text again is harmless. The new text reaches every view, this client's too,
   * through the room stream ({@link ChatListener#onEdited}).
   *
   * @return completes once the server acknowledged the edit; fails if it refused it for good
   *     ({@code error-action-not-allowed}: not the author), and the listener hears why
   * @throws OutboxFullException if the outbox is full
   * @throws IllegalArgumentException if the text is blank
   * @throws IllegalStateException if the client is closed or signed out
   */
  public CompletableFuture<Void> edit(String rid, String id, String text) {
    Objects.requireNonNull(text, "text");
    if (text.trim().isEmpty()) {
      throw new IllegalArgumentException("text must not be blank");
    }
    return change(Outbox.Kind.EDIT, rid, id, text);
  }

  /**
   * Deletes one of the user's messages, through the outbox as {@link #edit}: a message deleted
   * already counts as done. Every view, this client's too, hears it on {@code stream-notify-room}
   * ({@link ChatListener#onDeleted}), or at the next catch-up.
   *
   * @return completes once the server acknowledged the deletion; fails if it refused it for good
   * @throws OutboxFullException if the outbox is full
   * @throws IllegalStateException if the client is closed or signed out
   */
  public CompletableFuture<Void> delete(String rid, String id) {
    return change(Outbox.Kind.DELETE, rid, id, "");
  }

  private CompletableFuture<Void> change(Outbox.Kind kind, String rid, String id, String text) {
    Objects.requireNonNull(rid, "rid");
    Objects.requireNonNull(id, "id");
    if (rid.isEmpty() || id.isEmpty()) {
      throw new IllegalArgumentException("rid and id must not be empty");
    }
    if (session.closed()) {
      throw new IllegalStateException("cannot change: client " + view.status().text());
    }
    if (!session.sender.reserve()) {
      throw new OutboxFullException(session.settings.outboxCapacity());
    }
    Outbox.Entry entry = new Outbox.Entry(kind, kind + " " + ids.next(), id, rid, text);
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (!ddp.execute(() -> session.change(entry, done))) {
      session.sender.release(1);
      throw new IllegalStateException("cannot change: client " + view.status().text());
    }
    return done;
  }

  /**
   * Returns what the user sees of a room now: its messages as shown (edits applied, deletions
   * gone), oldest first, as far as the client remembers ({@link ChatClientBuilder#dedupWindow}).
   * Asked on the client's loop; empty for a room not followed.
   */
  public CompletableFuture<List<ChatMessage>> view(String rid) {
    CompletableFuture<List<ChatMessage>> f = new CompletableFuture<>();
    if (!ddp.execute(() -> {
      Room room = session.rooms.get(rid);
      f.complete(room == null ? List.of() : room.timeline.view());
    })) {
      f.completeExceptionally(new IllegalStateException("client " + view.status().text()));
    }
    return f;
  }

  /**
   * Closes the connection for good. Unacknowledged messages are dropped. Returns at once; {@link
   * #awaitTermination(Duration)} waits for the client's threads to end.
   */
  @Override
  public void close() {
    ddp.execute(session::close);
    ddp.close();
  }

  /**
   * Returns the DDP client's reconnection manager, for its status and listeners ({@link
   * DdpClient#reconnectionManager()}).
   */
  public dev.ddpkit.reconnect.ReconnectionManager reconnectionManager() {
    return ddp.reconnectionManager();
  }

  /**
   * Waits until the client has shut down after {@link #close()}, as {@link
   * DdpClient#awaitTermination(Duration)}.
   *
   * @return whether it did within {@code timeout}
   * @throws IllegalStateException if called from a listener (on the client's event loop)
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return ddp.awaitTermination(timeout);
  }

  @Override
  public String toString() {
    return "ChatClient{" + name + " " + status() + "}";
  }

  /**
   * Counters of one client.
   *
   * @param logins successful logins (the first and one per reconnect)
   * @param resends messages queued again after a failed send
   * @param malformed server documents ignored because of their shape
   * @param catchUps {@code loadMissedMessages} calls made after reconnects
   * @param rateLimited calls and streams the server held back ({@code too-many-requests})
   * @param resumes reconnects whose DDP session the server resumed: no login, no rejoin, no
   *     catch-up
   */
  public record Stats(long logins, long resends, long malformed, long catchUps, long rateLimited,
      long resumes) {
    /** Counters of a client that resumed no session. */
    public Stats(long logins, long resends, long malformed, long catchUps, long rateLimited) {
      this(logins, resends, malformed, catchUps, rateLimited, 0);
    }
  }
}
