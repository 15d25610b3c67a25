package dev.ddpkit.chat.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/** The server's mutable counters; {@link ChatServer#stats()} turns them into a snapshot. */
final class Counters {
  private static final int SECONDS_KEPT = 3600;

  final AtomicLong connectionsOpened = new AtomicLong();
  final AtomicLong connectionsRejected = new AtomicLong();
  final AtomicLong connectionsTotal = new AtomicLong();
  final AtomicLong loginsOk = new AtomicLong();
  final AtomicLong loginsFailed = new AtomicLong();
  final AtomicLong messagesStored = new AtomicLong();
  final AtomicLong duplicatesIgnored = new AtomicLong();
  final AtomicLong protocolErrors = new AtomicLong();
  final AtomicLong acknowledgementsLost = new AtomicLong();
  final AtomicLong heartbeatTimeouts = new AtomicLong();
  final AtomicLong rateLimited = new AtomicLong();
  final AtomicLong socketsRefusedPerAddress = new AtomicLong();
  final AtomicLong upgradesTimedOut = new AtomicLong();
  final AtomicLong slowReadersDropped = new AtomicLong();
  /** Text frames received from clients. */
  final AtomicLong framesIn = new AtomicLong();
  /** DDP {@code method} frames received (well-formed or not). */
  final AtomicLong methodCalls = new AtomicLong();
  /** DDP {@code sub} frames received. */
  final AtomicLong subscriptionRequests = new AtomicLong();
  /** Sessions kept after their socket dropped, for a resume. */
  final AtomicLong sessionsHeld = new AtomicLong();
  /** Held sessions resumed by their client. */
  final AtomicLong sessionsResumed = new AtomicLong();
  /** Held sessions ended without a resume (grace over, queue full, wrong count, drain). */
  final AtomicLong sessionsExpired = new AtomicLong();
  private final TreeMap<Long, Integer> acceptsPerSecond = new TreeMap<>();
  private final TreeMap<Long, Integer> rejectsPerSecond = new TreeMap<>();

  /** Counts an accepted connection in its epoch second. */
  synchronized void accepted(long epochMillis) {
    bump(acceptsPerSecond, epochMillis);
  }

  /** Counts a rejected connection in its epoch second. */
  synchronized void rejected(long epochMillis) {
    bump(rejectsPerSecond, epochMillis);
  }

  private static void bump(TreeMap<Long, Integer> m, long epochMillis) {
    m.merge(Math.floorDiv(epochMillis, 1000L), 1, Integer::sum);
    while (m.size() > SECONDS_KEPT) {
      m.pollFirstEntry();
    }
  }

  synchronized java.util.SortedMap<Long, Integer> acceptsPerSecond() {
    return new TreeMap<>(acceptsPerSecond);
  }

  synchronized java.util.SortedMap<Long, Integer> rejectsPerSecond() {
    return new TreeMap<>(rejectsPerSecond);
  }

  /** A snapshot of the counters and of what {@code h} has open now (none when it is null). */
  ChatServerStats stats(DdpHandler h) {
    return new ChatServerStats(
        connectionsOpened.get(),
        connectionsRejected.get(),
        connectionsTotal.get(),
        h == null ? 0 : h.currentConnections(),
        h == null ? 0 : h.authenticatedSessions(),
        loginsOk.get(),
        loginsFailed.get(),
        h == null ? java.util.Map.of() : h.subscriptionsByRoom(),
        messagesStored.get(),
        duplicatesIgnored.get(),
        protocolErrors.get(),
        acknowledgementsLost.get(),
        heartbeatTimeouts.get(),
        rateLimited.get(),
        acceptsPerSecond(),
        rejectsPerSecond(),
        socketsRefusedPerAddress.get(),
        upgradesTimedOut.get(),
        slowReadersDropped.get());
  }

  /** A snapshot of the DDP traffic and session resumption counters. */
  SessionStats sessionStats(DdpHandler h) {
    return new SessionStats(framesIn.get(), methodCalls.get(), subscriptionRequests.get(),
        sessionsHeld.get(), sessionsResumed.get(), sessionsExpired.get(),
        h == null ? 0 : h.heldSessions());
  }
}
