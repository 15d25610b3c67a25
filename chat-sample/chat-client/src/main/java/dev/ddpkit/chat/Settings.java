package dev.ddpkit.chat;

import dev.ddpkit.reconnect.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * What a {@link ChatClient} was built with, as its parts need it.
 *
 * @param name the client's name, for logs
 * @param username the user name, for a password login (or null)
 * @param passwordDigest the password's SHA-256 digest (or null with a token)
 * @param token the resume token to start with (or null)
 * @param rooms the rooms to follow
 * @param historyLimit past messages to load per room
 * @param catchUpOverlap how far before the catch-up point a catch-up asks
 * @param retry the backoff of every retry the server gave no time for
 * @param limits the call budgets
 * @param clock the wall clock (budgets and retry times only; never a catch-up point)
 * @param random the randomness of every jitter
 * @param outboxCapacity how many messages may wait
 * @param dedupWindow how many shown ids per room are remembered to drop duplicates
 * @param liveDeletions whether to follow each room's deletions on {@code stream-notify-room}
 * @param messagesGet whether to catch up with {@code messages/get} first (else as if the server
 *     had answered its 404: {@code loadMissedMessages})
 */
record Settings(
    String name,
    String username,
    String passwordDigest,
    String token,
    List<String> rooms,
    int historyLimit,
    Duration catchUpOverlap,
    Backoff retry,
    ChatLimits limits,
    Clock clock,
    Random random,
    int outboxCapacity,
    int dedupWindow,
    boolean liveDeletions,
    boolean messagesGet) {

  /** The history loaded for a room that has none yet when catching up with no history limit. */
  static final int FALLBACK_HISTORY = 50;

  /** How long a rejoined stream must stay up before its retry count starts again. */
  static final Duration STABLE_STREAM = Duration.ofSeconds(30);

  /** The delay before retry {@code attempt} (from 1), drawn with the injected randomness. */
  Duration retryDelay(int attempt) {
    return retry.delay(Math.max(1, attempt), random.nextDouble());
  }
}
