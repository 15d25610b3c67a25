package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Fills each room's gap once its stream is live: the history of a room that has none yet, else
 * what was missed since the room's catch-up point (always a server time). Which rooms changed is
 * asked with one {@code rooms/get} since the oldest point; only those are fetched with {@code
 * loadMissedMessages}, every room where the server does not know {@code rooms/get}. A refusal for
 * now is retried (at the server's {@code timeToReset}, or after a backoff) until the fetch
 * succeeds or the room is left; a permanent one leaves the room and says why.
 */
final class CatchUps {
  static final String ROOMS_GET = "rooms/get";
  static final String MISSED = "loadMissedMessages";
  static final String HISTORY = "loadHistory";

  private final ChatSession session;
  private boolean roomsGetKnown = true;
  /** Rooms live and waiting for a rooms/get to say whether they changed. */
  private final List<Room> waiting = new ArrayList<>();
  private Pacer.Job roomsGetJob;
  private Object roomsGetCall;
  private int roomsGetAttempts;

  CatchUps(ChatSession session) {
    this.session = session;
  }

  /** A live room holds messages back: fill its gap (once; a fetch under way covers it). */
  void request(Room room) {
    if (Pacer.waiting(room.fetchJob) || room.fetchCall != null || waiting.contains(room)) {
      return;
    }
    if (!room.point().isPresent() && (session.settings.historyLimit() > 0 || !roomsGetKnown)) {
      submit(room, HISTORY, Duration.ZERO);
    } else if (roomsGetKnown) {
      // With a point: did it change since? With none (no history wanted): its last message
      // time, a server time, becomes its point.
      waiting.add(room);
      submitRoomsGet();
    } else {
      submit(room, MISSED, Duration.ZERO);
    }
  }

  /** Logged in again on the same connection: fetches refused for want of it go again. */
  void onLoggedIn() {
    for (Room room : session.rooms.values()) {
      if (room.live && room.catchUp != null) {
        request(room);
      }
    }
    submitRoomsGet();
  }

  void onConnectionLost() {
    session.pacer.cancel(roomsGetJob);
    roomsGetJob = null;
    roomsGetCall = null;
    waiting.clear();
    session.rooms.values().forEach(this::forget);
  }

  /** The room's stream is gone: its fetch starts again once it is live again. */
  void onStreamGone(Room room) {
    forget(room);
  }

  /** Drops the room's pending fetch; a late answer is ignored. */
  void forget(Room room) {
    session.pacer.cancel(room.fetchJob);
    room.fetchJob = null;
    room.fetchCall = null;
    waiting.remove(room);
  }

  // ---- rooms/get ----

  /**
   * One rooms/get for the rooms waiting, once no stream is still on its way to ready: one call
   * then covers every room of a burst (a reconnect in 100 rooms asks three times, not 100).
   */
  void submitRoomsGet() {
    if (!Pacer.waiting(roomsGetJob) && roomsGetCall == null && !waiting.isEmpty()
        && !session.streams.anyJoining()) {
      roomsGetJob = session.pacer.submit(ROOMS_GET, null, this::sendRoomsGet);
    }
  }

  private void sendRoomsGet() {
    roomsGetJob = null;
    List<Room> batch = new ArrayList<>(waiting);
    waiting.clear();
    batch.removeIf(r -> !needsFetch(r));
    if (batch.isEmpty()) {
      return;
    }
    Instant since = batch.stream().map(r -> since(r)).min(Instant::compareTo).get();
    Object call = new Object();
    roomsGetCall = call;
    // {"$date": millis} on the wire: Rocket.Chat's updatedSince.
    session.call(ROOMS_GET, List.of(since))
        .whenComplete((result, error) -> {
          if (roomsGetCall == call && !session.closed) {
            roomsGetCall = null;
            onRoomsGet(batch, result, error);
          }
        });
  }

  private void onRoomsGet(List<Room> batch, JsonNode result, Throwable error) {
    if (error != null) {
      Refusal r = Refusal.of(error, session.loggedIn);
      if (r.kind() == Refusal.Kind.HOLD) {
        session.pacer.hold(ROOMS_GET, r.timeToReset());
        waiting.addAll(0, batch);
      } else if (r.kind() == Refusal.Kind.LOST) {
        session.connectionLost(); // drops the batch with the connection
      } else if (r.kind() == Refusal.Kind.NEEDS_LOGIN) {
        waiting.addAll(0, batch);
      } else {
        // Unknown to this server (or failing): ask every room itself from now on.
        roomsGetKnown = !r.permanent() && ++roomsGetAttempts < 3;
        batch.stream().filter(this::needsFetch).forEach(room ->
            submit(room, !room.point().isPresent() ? HISTORY : MISSED, Duration.ZERO));
      }
    } else {
      roomsGetAttempts = 0;
      Map<String, Optional<Instant>> changed = changedRooms(result);
      for (Room room : batch) {
        if (!needsFetch(room)) {
          continue;
        }
        Optional<Instant> lm = changed.get(room.rid);
        if (!room.point().isPresent()) {
          settlePoint(room, lm);
        } else if (lm != null && (!lm.isPresent() || lm.get().isAfter(since(room)))) {
          submit(room, MISSED, Duration.ZERO);
        } else {
          complete(room, List.of(), false); // nothing new since its point
        }
      }
    }
    submitRoomsGet();
    session.status.refresh();
  }

  /**
   * A room joined with no history wanted: its point is its last message's time on the server (the
   * stream was live before rooms/get was sent), or its start if it has none.
   */
  private void settlePoint(Room room, Optional<Instant> lm) {
    if (lm != null && lm.isPresent()) {
      room.timeline.markJoined(lm.get());
    } else {
      room.timeline.markHistoryLoaded(); // empty when asked: everything later is new
    }
    complete(room, List.of(), false);
  }

  /** Room id to last-message time from {@code {update: [...]}} or a plain array of rooms. */
  private static Map<String, Optional<Instant>> changedRooms(JsonNode result) {
    JsonNode list = result != null && result.isObject() ? result.get("update") : result;
    Map<String, Optional<Instant>> out = new HashMap<>();
    if (list == null || !list.isArray()) {
      return out;
    }
    for (JsonNode room : list) {
      JsonNode id = room.get("_id");
      if (id != null && id.isTextual()) {
        out.put(id.textValue(), MessageParser.timestamp(room.get("lm")));
      }
    }
    return out;
  }

  // ---- history and missed messages ----

  private void submit(Room room, String method, Duration delay) {
    session.pacer.cancel(room.fetchJob);
    room.fetchJob = session.pacer.submitAfter(method, room.rid, delay, () -> fetch(room, method));
  }

  private void fetch(Room room, String method) {
    room.fetchJob = null;
    if (!needsFetch(room)) {
      return;
    }
    List<Object> params;
    if (method.equals(HISTORY)) {
      int limit = session.settings.historyLimit();
      params = Arrays.asList(room.rid, null, limit > 0 ? limit : Settings.FALLBACK_HISTORY, null);
    } else {
      session.catchUpCount++;
      params = List.of(room.rid, since(room)); // {"$date": millis} on the wire
    }
    Object call = new Object();
    room.fetchCall = call;
    session.call(method, params).whenComplete((result, error) -> {
      if (room.fetchCall == call && !session.closed && session.rooms.get(room.rid) == room) {
        room.fetchCall = null;
        onFetched(room, method, result, error);
      }
    });
  }

  private void onFetched(Room room, String method, JsonNode result, Throwable error) {
    if (error == null) {
      int[] bad = {0};
      List<ChatMessage> fetched = MessageParser.parseList(result, room.rid, bad);
      session.malformed += bad[0];
      room.fetchAttempts = 0;
      complete(room, fetched, method.equals(HISTORY));
      session.status.refresh();
      return;
    }
    Refusal r = Refusal.of(error, session.loggedIn);
    String what = method.equals(HISTORY) ? "history" : "catch-up";
    switch (r.kind()) {
      case HOLD:
        session.pacer.hold(method, r.timeToReset());
        submit(room, method, Duration.ZERO);
        break;
      case LOST:
        session.connectionLost();
        break; // asked again once live and logged in again
      case NEEDS_LOGIN:
        break; // asked again once live and logged in again
      case TEMPORARY:
        submit(room, method, session.settings.retryDelay(++room.fetchAttempts));
        break;
      case PERMANENT:
        if (r.roomGone()) {
          session.leave(room, what + " of room " + room.rid + " refused, room left: "
              + r.message());
        } else {
          // Said, since the room now counts as caught up: what it missed may not all be shown.
          session.emit(room.timeline.abortCatchUp(room.catchUp));
          room.catchUp = null;
          session.error(what + " of room " + room.rid + " failed: " + r.message());
          session.status.refresh();
        }
        break;
      default:
        throw new AssertionError("Unexpected refusal: " + r.kind());
    }
  }

  private void complete(Room room, List<ChatMessage> fetched, boolean history) {
    List<ChatMessage> show = room.timeline.completeCatchUp(room.catchUp, fetched);
    room.catchUp = null;
    if (history) {
      room.timeline.markHistoryLoaded();
    }
    session.emit(show);
  }

  private boolean needsFetch(Room room) {
    return session.rooms.get(room.rid) == room && room.live && room.catchUp != null;
  }

  /** The room's catch-up point less the overlap, never before the epoch. */
  private Instant since(Room room) {
    Instant p = room.point().orElse(Instant.EPOCH).minus(session.settings.catchUpOverlap());
    return p.isBefore(Instant.EPOCH) ? Instant.EPOCH : p;
  }
}
