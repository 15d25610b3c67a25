package dev.ddpkit.chat.server;

/**
 * A snapshot of a {@link ChatServer}'s DDP traffic and session resumption, from {@link
 * ChatServer#sessionStats()}. Totals count from the server's start.
 *
 * @param framesIn text frames received from clients
 * @param methodCalls DDP {@code method} frames received
 * @param subscriptionRequests DDP {@code sub} frames received
 * @param sessionsHeld sessions kept after their socket dropped, for their client to resume
 * @param sessionsResumed held sessions their client resumed
 * @param sessionsExpired held sessions ended without a resume: grace period over, queue over its
 *     limit, a resume with the wrong count, a drain
 * @param heldNow sessions held now
 */
public record SessionStats(long framesIn, long methodCalls, long subscriptionRequests,
    long sessionsHeld, long sessionsResumed, long sessionsExpired, int heldNow) {}
