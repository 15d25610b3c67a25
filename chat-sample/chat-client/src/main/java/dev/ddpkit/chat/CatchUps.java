package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.protocol.RocketChatNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills each room's gap once its stream is live: the history of a room that has none yet, else
 * what changed since the room's sync point (always a server time) with {@code messages/get}
 * ({@code lastUpdate}: new messages, edits and deletions in one answer), falling back to what was
 * missed since its catch-up point with {@code loadMissedMessages} on a server without it (its 404
 * is learned once per server, as is Rocket.Chat 9's 404 for {@code loadMissedMessages}). Which rooms changed is
 * asked with one {@code rooms/get} since the oldest point; only those are fetched with {@code
 * loadMissedMessages}, every room where the server does not know {@code rooms/get}. A refusal for
 * now is retried (at the server's {@code timeToReset}, or after a backoff) until the fetch
 * succeeds or the room is left; a permanent one leaves the room and says why.
 *
 * <p>{@code lastUpdate} has no limit: after a long outage in a busy room its one answer can pass
 * the client's frame limit, and the connection closes with 1009 before the answer is read (it
 * would again at every reconnect). Once a connection closed so while such an answer was due, the
 * client catches up in cursor pages instead ({@link CatchUpPages}: {@code type} UPDATED then
 * DELETED, {@value CatchUpPages#PAGE} a page), for as long as it lives.
 */
final class CatchUps {
  private static final Logger log = LoggerFactory.getLogger(CatchUps.class);
  static final String ROOMS_GET = RocketChatNames.ROOMS_GET;
  static final String MISSED = RocketChatNames.LOAD_MISSED_MESSAGES;
  static final String HISTORY = RocketChatNames.LOAD_HISTORY;
  static final String MESSAGES_GET = RocketChatNames.MESSAGES_GET;
  /** The close code of a message over the frame limit. */
  private static final int TOO_BIG = 1009;

  private final ChatSession session;
  private boolean roomsGetKnown = true;
  /** Whether the server has {@code messages/get}; learned once per server (a 404 says no). */
  private boolean messagesGetKnown;
  /** Whether the server answered a {@code messages/get} (not with a 404): it has it. */
  private boolean messagesGetConfirmed;
  /**
   * The room whose {@code messages/get} asks the server whether it has the method, while that is
   * unknown; the other rooms wait for its answer in {@link #probeWaiting}, so that an older server
   * is asked (and answers 404) once, not once per room.
   */
  private Room probe;
  private final List<Room> probeWaiting = new ArrayList<>();
  /** Whether the server answered {@code messages/get} with a 404: it has none, for good. */
  private boolean messagesGetMissing;
  /** Whether the server has {@code loadMissedMessages}; a 404 says no (Rocket.Chat 9). */
  private boolean missedKnown = true;
  /** Rooms live and waiting for a rooms/get to say whether they changed. */
  private final List<Room> waiting = new ArrayList<>();
  private Pacer.Job roomsGetJob;
  /** The rooms/get on the wire, or null. */
  private LoginScope.Watch roomsGetCall;
  private int roomsGetAttempts;
  /** Whether catch-ups go in cursor pages: see the class doc. */
  private boolean paged;
  /** The {@code lastUpdate} calls of this connection not answered, or lost with it. */
  private final Set<CompletableFuture<JsonNode>> lastUpdateDue = new HashSet<>();
  /** The paged catch-up of each room that has one under way. */
  private final Map<Room, CatchUpPages> pages = new HashMap<>();

  CatchUps(ChatSession session) {
    this.session = session;
    this.messagesGetKnown = session.settings.messagesGet();
  }

  /**
   * A live room holds messages back: fill its gap (once; a fetch under way covers it), once its
   * deletions stream is ready too (or refused), so that no deletion falls between the two.
   */
  void request(Room room) {
    if (Pacer.waiting(room.fetchJob) || room.fetchCall != null || waiting.contains(room)
        || probeWaiting.contains(room)) {
      return;
    }
    if (session.settings.liveDeletions() && session.deletions.joining(room)) {
      return; // onDeletionsReady asks again
    }
    if (!room.point().isPresent() && (session.settings.historyLimit() > 0 || !roomsGetKnown)) {
      submit(room, HISTORY, Duration.ZERO);
    } else if (room.point().isPresent() && messagesGetKnown && !messagesGetMissing) {
      // rooms/get cannot tell an edit or a deletion of an older message: ask the room itself.
      submit(room, MESSAGES_GET, Duration.ZERO);
    } else if (roomsGetKnown) {
      // With a point: did it change since? With none (no history wanted): its last message
      // time, a server time, becomes its point.
      waiting.add(room);
      submitRoomsGet();
    } else {
      submit(room, missedMethod(), Duration.ZERO);
    }
  }

  /** The room's deletions stream is ready (or refused): its catch-up may go. */
  void onDeletionsReady(Room room) {
    if (needsFetch(room)) {
      request(room);
    }
    submitRoomsGet(); // it may have waited for this stream
  }

  /** How a room with a point catches up on this server: the newest method it has. */
  private String missedMethod() {
    if (messagesGetKnown && !messagesGetMissing) {
      return MESSAGES_GET;
    }
    if (missedKnown) {
      return MISSED;
    }
    return messagesGetMissing ? HISTORY : MESSAGES_GET;
  }

  /** Logged in again on the same connection: fetches refused for want of it go again. */
  void onLoggedIn() {
    requestUnfinished();
    submitRoomsGet();
  }

  /**
   * The DDP session resumed: what was published while offline is replayed, so only a room whose
   * own fetch was under way at the drop fetches again (once live).
   */
  void onResumed() {
    requestUnfinished();
  }

  /** Requests again the catch-up of every live room whose catch-up has not finished. */
  private void requestUnfinished() {
    for (Room room : session.rooms.values()) {
      if (room.live && room.catchUp != null) {
        request(room);
      }
    }
  }

  /**
   * A connection ended with its close code: a 1009 while a {@code lastUpdate} answer was due says
   * the answer is over the frame limit, so catch-ups go in pages from now on.
   */
  void onDisconnected(int code) {
    if (code == TOO_BIG && !lastUpdateDue.isEmpty() && !paged) {
      paged = true;
      log.info("{}: a catch-up answer passed the frame limit (closed with 1009); catching up in "
          + "pages of {} from now on", session.settings.name(), CatchUpPages.PAGE);
    }
    lastUpdateDue.clear();
  }

  void onConnectionLost() {
    session.pacer.cancel(roomsGetJob);
    roomsGetJob = null;
    if (roomsGetCall != null) {
      roomsGetCall.cancel();
      roomsGetCall = null;
    }
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
    if (room.fetchCall != null) {
      room.fetchCall.cancel();
      room.fetchCall = null;
    }
    pages.remove(room); // a paged catch-up starts again from its sync point
    waiting.remove(room);
    probeWaiting.remove(room);
    probeAnswered(room); // a probe forgotten is as good as answered: the rooms waiting go
  }

  // ---- rooms/get ----

  /**
   * One rooms/get for the rooms waiting, once no stream is still on its way to ready: one call
   * then covers every room of a burst (a reconnect in 100 rooms asks three times, not 100).
   */
  void submitRoomsGet() {
    if (!Pacer.waiting(roomsGetJob) && roomsGetCall == null && !waiting.isEmpty()
        && !session.streams.anyJoining() && !session.deletions.anyJoining()) {
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
    // {"$date": millis} on the wire: Rocket.Chat's updatedSince.
    roomsGetCall = session.call(ROOMS_GET, List.of(since), (result, error) -> {
      roomsGetCall = null;
      onRoomsGet(batch, result, error);
    });
  }

  private void onRoomsGet(List<Room> batch, JsonNode result, Throwable error) {
    if (error != null) {
      Refusal r = Refusal.of(error, session.loggedIn());
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
            submit(room, !room.point().isPresent() ? HISTORY : missedMethod(), Duration.ZERO));
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
          submit(room, missedMethod(), Duration.ZERO);
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
    if (method.equals(MESSAGES_GET) && !messagesGetConfirmed) {
      if (probe != null && probe != room) {
        probeWaiting.add(room);
        return;
      }
      probe = room;
    }
    session.pacer.cancel(room.fetchJob);
    room.fetchJob = session.pacer.submitAfter(method, room.rid, delay, () -> fetch(room, method));
  }

  private void fetch(Room room, String method) {
    room.fetchJob = null;
    if (!needsFetch(room)) {
      return;
    }
    List<Object> params;
    boolean lastUpdate = false;
    if (method.equals(HISTORY)) {
      int limit = session.settings.historyLimit();
      params = Arrays.asList(room.rid, null, limit > 0 ? limit : Settings.FALLBACK_HISTORY, null);
    } else if (method.equals(MESSAGES_GET)) {
      session.counters.catchUp();
      // One answer with every change since the sync point (a server time) less the overlap:
      // BENCHMARKS.md ("messages/get: lastUpdate or cursor pages") says why not the cursor pages.
      if (paged) {
        params = List.of(room.rid, pagesOf(room).request());
      } else {
        params = List.of(room.rid, Map.of("lastUpdate", syncSince(room)));
        lastUpdate = true;
      }
    } else {
      session.counters.catchUp();
      params = List.of(room.rid, since(room)); // {"$date": millis} on the wire
    }
    CompletableFuture<JsonNode> answer = session.call(method, params);
    if (lastUpdate) {
      lastUpdateDue.add(answer);
      answer.whenComplete((result, error) -> {
        if (error == null || Refusal.of(error, true).kind() != Refusal.Kind.LOST) {
          lastUpdateDue.remove(answer); // answered: whatever the connection's end, not too big
        }
      });
    }
    // Cancelled by forget (the room's stream gone, the room left) and with the login.
    room.fetchCall = session.scope().watch(answer, (result, error) -> {
      room.fetchCall = null;
      onFetched(room, method, result, error);
    });
  }

  /** The probe's answer says whether the server has messages/get: the rooms waiting go now. */
  private void probeAnswered(Room room) {
    if (probe != room) {
      return;
    }
    probe = null;
    List<Room> next = new ArrayList<>(probeWaiting);
    probeWaiting.clear();
    next.stream().filter(this::needsFetch).forEach(this::request);
  }

  private void onFetched(Room room, String method, JsonNode result, Throwable error) {
    boolean answered = false;
    if (method.equals(MESSAGES_GET)) {
      Refusal r = error == null ? null : Refusal.of(error, session.loggedIn());
      if (r == null || (r.permanent() && !r.code().equals("404"))) {
        messagesGetConfirmed = true;
      }
      answered = r == null || r.permanent(); // a 404 is learned by handleFetched
    }
    handleFetched(room, method, result, error);
    if (answered) {
      probeAnswered(room);
    }
  }

  private void handleFetched(Room room, String method, JsonNode result, Throwable error) {
    CatchUpPages page = pages.get(room);
    if (error == null && method.equals(MESSAGES_GET) && page != null) {
      int[] bad = {0};
      boolean more = page.add(result, room.rid, bad);
      session.counters.malformed(bad[0]);
      room.fetchAttempts = 0;
      if (more) {
        submit(room, MESSAGES_GET, Duration.ZERO);
        return;
      }
      pages.remove(room);
      complete(room, page.updated, page.deleted, false);
      session.status.refresh();
      return;
    }
    if (error == null && method.equals(MESSAGES_GET)) {
      int[] bad = {0};
      List<ChatMessage> fetched = MessageParser.parseList(
          result == null ? null : result.get("updated"), room.rid, bad);
      Map<String, Instant> deletions = MessageParser.deletions(
          result == null ? null : result.get("deleted"), bad);
      session.counters.malformed(bad[0]);
      room.fetchAttempts = 0;
      complete(room, fetched, deletions, false);
      session.status.refresh();
      return;
    }
    if (error == null) {
      int[] bad = {0};
      List<ChatMessage> fetched = MessageParser.parseList(result, room.rid, bad);
      session.counters.malformed(bad[0]);
      room.fetchAttempts = 0;
      complete(room, fetched, method.equals(HISTORY));
      session.status.refresh();
      return;
    }
    Refusal r = Refusal.of(error, session.loggedIn());
    String what = method.equals(HISTORY) ? "history" : "catch-up";
    if (r.code().equals("404") && !method.equals(HISTORY)) {
      // Learned once for this server: every room asks the other method from now on.
      if (method.equals(MESSAGES_GET)) {
        messagesGetMissing = true;
      } else {
        missedKnown = false;
      }
      log.info("{}: the server has no {}; catching up with {}", session.settings.name(), method,
          missedMethod());
      submit(room, missedMethod(), Duration.ZERO);
      return;
    }
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
    complete(room, fetched, Map.of(), history);
  }

  /** Ends the room's catch-up with what it fetched, and shows what that releases. */
  private void complete(Room room, List<ChatMessage> fetched, Map<String, Instant> deletions,
      boolean history) {
    List<RoomEvent> show = room.timeline.complete(room.catchUp, fetched, deletions);
    room.catchUp = null;
    if (history) {
      room.timeline.markHistoryLoaded();
    }
    session.emitEvents(show);
  }

  private boolean needsFetch(Room room) {
    return session.rooms.get(room.rid) == room && room.live && room.catchUp != null;
  }

  /** The room's paged catch-up, begun now if it has none for its current catch-up. */
  private CatchUpPages pagesOf(Room room) {
    CatchUpPages p = pages.get(room);
    if (p == null || p.catchUp != room.catchUp) {
      p = new CatchUpPages(room.catchUp, syncSince(room).toEpochMilli());
      pages.put(room, p);
    }
    return p;
  }

  /** The room's sync point (newest server change time applied) less the overlap. */
  private Instant syncSince(Room room) {
    return lessOverlap(room.timeline.syncPoint());
  }

  /** The room's catch-up point less the overlap, never before the epoch. */
  private Instant since(Room room) {
    return lessOverlap(room.point());
  }

  private Instant lessOverlap(Optional<Instant> point) {
    Instant p = point.orElse(Instant.EPOCH).minus(session.settings.catchUpOverlap());
    return p.isBefore(Instant.EPOCH) ? Instant.EPOCH : p;
  }
}
