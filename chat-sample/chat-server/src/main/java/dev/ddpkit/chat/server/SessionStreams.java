package dev.ddpkit.chat.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stream subscriptions of one DDP session, apart from the connection that carries it: what a
 * room's or an event's subscriber set holds. A resume gives the same object to the new
 * connection's {@link Session} and points {@link #current} there ({@link Session#resumeOn}), so
 * the subscriber sets are not touched (a user in 10 rooms has 30 entries in them). {@link
 * Subscriptions} owns what is in it, under its streams monitor.
 */
final class SessionStreams {
  /** {@code stream-room-messages} subscriptions: sub id to room id. */
  final Map<String, String> rooms = new ConcurrentHashMap<>();
  /** {@code stream-notify-room} subscriptions: sub id to event name ({@code rid/event}). */
  final Map<String, String> events = new ConcurrentHashMap<>();
  /**
   * The connection the session's frames go to: the one it began on, then each that resumed it.
   * A broadcast that still reads the one before a resume is forwarded by it ({@link
   * Session#countForBroadcast}).
   */
  volatile Session current;

  SessionStreams(Session current) {
    this.current = current;
  }

  /** Whether the session has a subscription of this id, of either kind. */
  boolean has(String subId) {
    return rooms.containsKey(subId) || events.containsKey(subId);
  }
}
