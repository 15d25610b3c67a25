package dev.ddpkit.chat;

import dev.ddpkit.ddp.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One {@code stream-room-messages} subscription per room, asked for by the chat layer itself on
 * each logged-in connection (never revived blindly by the DDP client, so that a reconnect in 100
 * rooms keeps to the streams budget). A stream refused for now is asked for again at the server's
 * {@code timeToReset} or after a backoff; a permanent refusal leaves the room, and the user is told.
 */
final class Streams {
  private final ChatSession session;

  Streams(ChatSession session) {
    this.session = session;
  }

  /** Logged in: every room without a live stream joins, paced. */
  void joinAll() {
    for (Room room : session.rooms.values()) {
      if (room.sub == null && !Pacer.waiting(room.joinJob)) {
        submitJoin(room, Duration.ZERO);
      }
    }
  }

  /** Whether a stream was asked for and has not answered yet (ready or refused). */
  boolean anyJoining() {
    for (Room room : session.rooms.values()) {
      if (room.sub != null && !room.live) {
        return true;
      }
    }
    return false;
  }

  /** The connection is gone and its streams with it: drop them without a word to the server. */
  void onConnectionLost() {
    for (Room room : session.rooms.values()) {
      session.pacer.cancel(room.joinJob);
      room.joinJob = null;
      dropStream(room);
      room.beginCatchUp(); // live messages wait for what was missed meanwhile
    }
  }

  /**
   * The connection dropped, and its DDP session may be resumed: the streams are kept (stopping
   * one now would unsubscribe it on a resumed session), but none is live until then.
   */
  void onSuspended() {
    for (Room room : session.rooms.values()) {
      session.pacer.cancel(room.joinJob);
      room.joinJob = null;
      room.live = false;
    }
  }

  /**
   * The DDP session resumed: a stream that was ready is live again at once; one still joining
   * becomes live with its ready; a room without one joins.
   */
  void onResumed() {
    for (Room room : session.rooms.values()) {
      if (room.sub == null) {
        submitJoin(room, Duration.ZERO);
      } else if (room.sub.subscription().isCurrent()) {
        room.live = true;
        session.deletions.join(room); // once per connection; kept streams are not asked again
      }
    }
  }

  /** The client stopped. */
  void onClosed() {
    session.rooms.values().forEach(this::dropStream);
  }

  /** A room left for good. */
  void forget(Room room) {
    session.pacer.cancel(room.joinJob);
    room.joinJob = null;
    dropStream(room);
  }

  private void dropStream(Room room) {
    StreamJoin join = room.sub;
    room.sub = null;
    room.live = false;
    if (join != null) {
      join.stop(); // its ready or its end, if still due, is not heard
    }
  }

  private void submitJoin(Room room, Duration delay) {
    session.pacer.cancel(room.joinJob);
    room.joinJob =
        session.pacer.submitAfter(Pacer.STREAM, room.rid, delay, () -> join(room));
  }

  private void join(Room room) {
    room.joinJob = null;
    if (session.rooms.get(room.rid) != room || !session.loggedIn() || room.sub != null) {
      return;
    }
    if (!room.point().isPresent()) {
      room.beginCatchUp(); // its history (or its point) comes after the stream is ready
    }
    Subscription sub =
        session.ddp.subscribe(
            ChatClient.STREAM, List.of(room.rid, Map.of("useCollection", false, "args", List.of())));
    LoginScope.Watch watch = session.scope().watch()
        .on(sub.ready(), (v, error) -> {
          if (error == null) {
            onReady(room);
          }
        })
        .on(sub.ended(), (v, error) -> {
          if (error != null) {
            onEnded(room, error);
          }
        });
    room.sub = new StreamJoin(sub, watch);
  }

  private void onReady(Room room) {
    room.live = true;
    room.everLive = true;
    room.liveSince = session.settings.clock().instant();
    session.deletions.join(room);
    if (room.catchUp != null) {
      session.catchUps.request(room);
    }
    session.status.refresh();
  }

  /** The stream was refused, or ended by the server. */
  private void onEnded(Room room, Throwable error) {
    boolean wasLive = room.live;
    room.sub.forget();
    room.sub = null;
    room.live = false;
    if (!session.connected()) {
      return; // gone with the connection: the next login joins again
    }
    Refusal r = Refusal.of(error, session.loggedIn());
    if (wasLive) {
      room.beginCatchUp(); // what comes while it is gone is fetched after the rejoin
    } else {
      room.liveSince = null; // a refused rejoin keeps climbing the curve
    }
    session.catchUps.onStreamGone(room);
    session.catchUps.submitRoomsGet(); // it may have waited for this stream
    switch (r.kind()) {
      case HOLD:
        session.pacer.hold(Pacer.STREAM, r.timeToReset());
        submitJoin(room, Duration.ZERO);
        break;
      case NEEDS_LOGIN:
        break; // the next login joins every room without a stream
      case LOST:
      case TEMPORARY:
        rejoinLater(room, r);
        break;
      case PERMANENT:
        session.leave(room, (room.everLive ? "left room " : "cannot join room ") + room.rid + ": "
            + r.message());
        return;
      default:
        throw new AssertionError("Unexpected refusal: " + r.kind());
    }
    session.status.refresh();
  }

  private static boolean wasLive(Room room) {
    return room.liveSince != null;
  }

  /** Ended with no error or failing for now: join again after a backoff, and say so. */
  private void rejoinLater(Room room, Refusal r) {
    if (wasLive(room)
        && !Duration.between(room.liveSince, session.settings.clock().instant())
            .minus(Settings.STABLE_STREAM).isNegative()) {
      room.joinAttempts = 0; // the last stream lived long enough: the curve starts again
    }
    Duration d = session.settings.retryDelay(++room.joinAttempts);
    session.error("stream of room " + room.rid + " ended (" + r.message() + "); rejoining in "
        + ChatStatus.humanDelay(d));
    submitJoin(room, d);
  }
}
