package dev.ddpkit.chat.server;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An immutable snapshot of a {@link ChatServer}'s counters, from {@link ChatServer#stats()}.
 * Totals count from the server's start; "current" values are as of the snapshot.
 *
 * @param connectionsOpened connections accepted past admission control
 * @param connectionsRejected connections closed at once with 1013 (over the accept rate)
 * @param connectionsTotal every WebSocket handshake the server completed, accepted or not
 * @param currentConnections accepted connections open now
 * @param authenticatedSessions open connections with a logged-in user now
 * @param loginsOk successful logins (password and resume)
 * @param loginsFailed refused logins, rate-limited ones included
 * @param subscriptionsByRoom active {@code stream-room-messages} subscriptions per room id
 * @param messagesStored new messages made durable
 * @param duplicatesIgnored {@code sendMessage} calls answered from a message stored before
 * @param protocolErrors malformed or out-of-order frames, and connections closed for them
 * @param acknowledgementsLost method answers dropped on purpose by the test hook
 * @param heartbeatTimeouts connections closed because they did not answer a server ping
 * @param rateLimited method calls and subscriptions refused with {@code too-many-requests} by the
 *     DDP rate limits (failed-login limits not included)
 * @param acceptsPerSecond accepted connections per epoch second (last hour)
 * @param rejectsPerSecond connections rejected with 1013 per epoch second (last hour)
 * @param socketsRefusedPerAddress WebSockets closed with 1013 because their address held its cap
 *     of open sockets ({@link ChatServerBuilder#maxSocketsPerAddress})
 * @param upgradesTimedOut sockets dropped because they did not complete the HTTP upgrade in time
 *     ({@link ChatServerBuilder#upgradeTimeout})
 * @param slowReadersDropped sockets dropped with 1008 because more than {@link
 *     ChatServerBuilder#maxSendQueueBytes} were queued for them unsent
 */
public record ChatServerStats(
    long connectionsOpened,
    long connectionsRejected,
    long connectionsTotal,
    int currentConnections,
    int authenticatedSessions,
    long loginsOk,
    long loginsFailed,
    Map<String, Integer> subscriptionsByRoom,
    long messagesStored,
    long duplicatesIgnored,
    long protocolErrors,
    long acknowledgementsLost,
    long heartbeatTimeouts,
    long rateLimited,
    SortedMap<Long, Integer> acceptsPerSecond,
    SortedMap<Long, Integer> rejectsPerSecond,
    long socketsRefusedPerAddress,
    long upgradesTimedOut,
    long slowReadersDropped) {

  /** Copies the maps so the snapshot stays immutable. */
  public ChatServerStats {
    subscriptionsByRoom = Map.copyOf(subscriptionsByRoom);
    acceptsPerSecond = Collections.unmodifiableSortedMap(new TreeMap<>(acceptsPerSecond));
    rejectsPerSecond = Collections.unmodifiableSortedMap(new TreeMap<>(rejectsPerSecond));
  }

  /** Active subscriptions of one room (0 if none). */
  public int subscriptions(String rid) {
    return subscriptionsByRoom.getOrDefault(rid, 0);
  }
}
