package dev.ddpkit.chat;

import java.time.Instant;
import java.util.Optional;

/**
 * One followed room's state: its timeline, its stream on the current connection, and where its
 * join and its catch-up stand. Touched on the client's loop only.
 */
final class Room {
  final String rid;
  final RoomTimeline timeline;
  /** The stream asked for on this connection, or null. */
  StreamJoin sub;
  /** Whether {@link #sub} is ready. */
  boolean live;
  /** Whether the stream was ever ready (a refusal before that is "cannot join"). */
  boolean everLive;
  /** A join or rejoin waiting for its budget or its retry time. */
  Pacer.Job joinJob;
  int joinAttempts;
  Instant liveSince;
  /** Held live messages until the history or the missed messages are in; null when caught up. */
  RoomTimeline.CatchUp catchUp;
  /** A fetch waiting for its budget, or waiting to be sent after the stream is ready. */
  Pacer.Job fetchJob;
  /** The fetch on the wire, or null: cancelling it drops its answer. */
  LoginScope.Watch fetchCall;
  int fetchAttempts;
  /** The {@code <rid>/deleteMessage} subscription on this connection, or null. */
  StreamJoin deleteSub;
  /** Whether {@link #deleteSub} is ready. */
  boolean deletesLive;
  /** The {@code <rid>/deleteMessageBulk} subscription on this connection, or null. */
  StreamJoin bulkSub;
  /** Deletion subscriptions waiting for their budget. */
  Pacer.Job deleteJob;
  Pacer.Job bulkJob;
  /** Why live deletions are refused on this connection, or null. */
  String deletionsRefused;

  Room(String rid, int maxSeenIds, int maxHeld) {
    this.rid = rid;
    this.timeline = new RoomTimeline(rid, maxSeenIds, maxHeld);
  }

  /** Whether the room may be missing messages: its stream is not live or a fetch is due. */
  boolean behind() {
    return !live || catchUp != null;
  }

  /** Starts holding live messages until a fetch fills the gap (once). */
  void beginCatchUp() {
    if (catchUp == null) {
      catchUp = timeline.beginCatchUp();
    }
  }

  /**
   * The server time to catch up from: the newest message shown, or the room's start if its history
   * was loaded empty; empty if the room has no such point (then its history is loaded instead).
   */
  Optional<Instant> point() {
    return timeline.catchUpPoint();
  }
}
