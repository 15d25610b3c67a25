package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.protocol.RocketChatNames;
import dev.ddpkit.ddp.Subscription;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Live deletions: per room, {@code stream-notify-room} {@code <rid>/deleteMessage} and {@code
 * <rid>/deleteMessageBulk}, the only way Rocket.Chat says a message was deleted (with its default
 * {@code Message_ShowDeletedStatus} off, the room stream says nothing). Paced under the streams
 * budget like the room streams (Rocket.Chat counts each stream name on its own), asked for once a
 * room's stream is ready, and a room's catch-up waits for its {@code deleteMessage} stream, so that
 * no deletion falls between the two. A refused or ended subscription is not fatal: the room works
 * on, the catch-up at the next reconnect repairs what was deleted meanwhile, and the status line
 * says so.
 */
final class DeletionStreams {
  static final String NOTIFY_ROOM = RocketChatNames.STREAM_NOTIFY_ROOM;
  static final String DELETE = RocketChatNames.EVENT_DELETE_MESSAGE;
  static final String BULK = RocketChatNames.EVENT_DELETE_MESSAGE_BULK;

  private final ChatSession session;

  DeletionStreams(ChatSession session) {
    this.session = session;
  }

  /** The room's message stream is ready: ask for its deletion streams (once per connection). */
  void join(Room room) {
    if (!session.settings.liveDeletions()) {
      return;
    }
    if (room.deleteSub != null || Pacer.waiting(room.deleteJob) || room.deletionsRefused != null) {
      return;
    }
    room.deleteJob = session.pacer.submit(Pacer.NOTIFY_STREAM, room.rid, () -> subscribe(room));
  }

  /** Whether the room's catch-up must wait: its {@code deleteMessage} stream is on its way. */
  boolean joining(Room room) {
    return room.deletionsRefused == null && !room.deletesLive;
  }

  /** Whether a live room's {@code deleteMessage} stream is still on its way. */
  boolean anyJoining() {
    if (!session.settings.liveDeletions()) {
      return false;
    }
    for (Room room : session.rooms.values()) {
      if (room.live && joining(room)) {
        return true;
      }
    }
    return false;
  }

  /** Gone with the connection: asked for again after the next login. */
  void onConnectionLost() {
    for (Room room : session.rooms.values()) {
      forget(room);
      room.deletionsRefused = null; // a new connection tries again
    }
  }

  /** The room is left, or the client stops. */
  void forget(Room room) {
    session.pacer.cancel(room.deleteJob);
    session.pacer.cancel(room.bulkJob);
    room.deleteJob = null;
    room.bulkJob = null;
    room.deletesLive = false;
    stop(room.deleteSub);
    stop(room.bulkSub);
    room.deleteSub = null;
    room.bulkSub = null;
  }

  private static void stop(StreamJoin join) {
    if (join != null) {
      join.stop();
    }
  }

  private void subscribe(Room room) {
    room.deleteJob = null;
    if (session.rooms.get(room.rid) != room || !session.loggedIn() || room.deleteSub != null) {
      return;
    }
    Subscription sub = open(room, DELETE);
    LoginScope.Watch watch = session.scope().watch()
        .on(sub.ready(), (v, error) -> {
          if (error == null) {
            room.deletesLive = true;
            room.bulkJob =
                session.pacer.submit(Pacer.NOTIFY_STREAM, room.rid, () -> subscribeBulk(room));
            session.catchUps.onDeletionsReady(room);
            session.status.refresh();
          }
        })
        .on(sub.ended(), (v, error) -> {
          if (session.connected()) {
            room.deleteSub.forget();
            room.deleteSub = null;
            onEnded(room, error, DELETE, () -> subscribe(room));
          }
        });
    room.deleteSub = new StreamJoin(sub, watch);
  }

  private void subscribeBulk(Room room) {
    room.bulkJob = null;
    if (session.rooms.get(room.rid) != room || !session.loggedIn() || room.bulkSub != null) {
      return;
    }
    Subscription sub = open(room, BULK);
    LoginScope.Watch watch = session.scope().watch(sub.ended(), (v, error) -> {
      if (session.connected()) {
        room.bulkSub.forget();
        room.bulkSub = null;
        onEnded(room, error, BULK, () -> subscribeBulk(room));
      }
    });
    room.bulkSub = new StreamJoin(sub, watch);
  }

  private Subscription open(Room room, String event) {
    return session.ddp.subscribe(NOTIFY_ROOM,
        List.of(RocketChatNames.roomEvent(room.rid, event),
            Map.of("useCollection", false, "args", List.of())));
  }

  /**
   * Held back: asked again at the server's time; anything else: not fatal. The room goes on
   * without live deletions until the next connection, whose catch-up repairs them, and the status
   * line says why.
   */
  private void onEnded(Room room, Throwable error, String event, Runnable again) {
    boolean wasDelete = event.equals(DELETE);
    if (wasDelete) {
      room.deletesLive = false;
    }
    Refusal r = error == null ? null : Refusal.of(error, session.loggedIn());
    if (r != null && r.kind() == Refusal.Kind.HOLD) {
      session.pacer.hold(Pacer.NOTIFY_STREAM, r.timeToReset());
      Pacer.Job job = session.pacer.submit(Pacer.NOTIFY_STREAM, room.rid, again);
      if (wasDelete) {
        room.deleteJob = job;
      } else {
        room.bulkJob = job;
      }
      return;
    }
    if (r != null && r.kind() == Refusal.Kind.NEEDS_LOGIN) {
      return; // the next login asks again
    }
    room.deletionsRefused = r == null ? "ended by the server" : r.message();
    session.error("live deletions of room " + room.rid + " unavailable (" + room.deletionsRefused
        + "); repaired at the next reconnect");
    if (wasDelete) {
      session.catchUps.onDeletionsReady(room); // its catch-up need not wait any more
    }
    session.status.refresh();
  }

  /** A {@code stream-notify-room} event. */
  void onEvent(ObjectNode fields) {
    JsonNode eventName = fields.get("eventName");
    JsonNode args = fields.get("args");
    String name = eventName != null && eventName.isTextual() ? eventName.textValue() : "";
    int slash = name.lastIndexOf('/');
    Room room = slash < 0 ? null : session.rooms.get(name.substring(0, slash));
    JsonNode arg = args != null && args.isArray() && args.size() > 0 ? args.get(0) : null;
    if (room == null || arg == null || !arg.isObject()) {
      session.counters.malformed(1);
      session.status.refresh();
      return;
    }
    String event = name.substring(slash + 1);
    if (event.equals(DELETE)) {
      JsonNode id = arg.get("_id");
      if (id == null || !id.isTextual()) {
        session.counters.malformed(1);
        session.status.refresh();
        return;
      }
      session.emitEvents(room.timeline.delete(id.textValue(), null));
    } else if (event.equals(BULK)) {
      onBulk(room, arg);
    }
  }

  /**
   * {@code deleteMessageBulk}: by {@code ids} when the server lists them, else every message of the
   * {@code ts} range ({@code $gt/$lt} or {@code $gte/$lte}) by the {@code users} named (anyone's
   * when none).
   */
  private void onBulk(Room room, JsonNode arg) {
    JsonNode ids = arg.get("ids");
    if (ids != null && ids.isArray()) {
      List<RoomEvent> out = new ArrayList<>();
      for (JsonNode id : ids) {
        if (id.isTextual()) {
          out.addAll(room.timeline.delete(id.textValue(), null));
        }
      }
      session.emitEvents(out);
      return;
    }
    JsonNode ts = arg.path("ts");
    Optional<Instant> gt = MessageParser.timestamp(ts.get("$gt"));
    Optional<Instant> gte = MessageParser.timestamp(ts.get("$gte"));
    Optional<Instant> lt = MessageParser.timestamp(ts.get("$lt"));
    Optional<Instant> lte = MessageParser.timestamp(ts.get("$lte"));
    Set<String> users = new HashSet<>();
    arg.path("users").forEach(u -> {
      if (u.isTextual()) {
        users.add(u.textValue());
      }
    });
    session.emitEvents(room.timeline.deleteWhere(m ->
        gt.map(m.ts()::isAfter).orElse(true)
            && gte.map(t -> !m.ts().isBefore(t)).orElse(true)
            && lt.map(m.ts()::isBefore).orElse(true)
            && lte.map(t -> !m.ts().isAfter(t)).orElse(true)
            && (users.isEmpty() || users.contains(m.user()))));
  }

  /** Rooms whose live deletions are refused on this connection, with why; for the status line. */
  List<String> refused() {
    List<String> out = new ArrayList<>();
    for (Room r : session.rooms.values()) {
      if (r.deletionsRefused != null) {
        out.add(r.rid + " (" + r.deletionsRefused + ")");
      }
    }
    return out;
  }
}
