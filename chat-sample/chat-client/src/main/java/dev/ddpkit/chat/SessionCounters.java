package dev.ddpkit.chat;

/**
 * The counters behind {@link ChatClient.Stats}, kept on the client's loop: each part of the
 * session says what happened through a method here rather than writing the session's fields.
 */
final class SessionCounters {
  private long logins;
  private long resends;
  private long malformed;
  private long catchUps;
  private long resumes;

  /** A login went through. */
  void loggedIn() {
    logins++;
  }

  /** A message was queued again after a failed send. */
  void resent() {
    resends++;
  }

  /** {@code n} server documents were ignored because of their shape. */
  void malformed(int n) {
    malformed += n;
  }

  /** A catch-up call was sent. */
  void catchUp() {
    catchUps++;
  }

  /** The server resumed the DDP session. */
  void resumed() {
    resumes++;
  }

  /** The counters now, with the refusals {@code rateLimited} the pacer counted. */
  ChatClient.Stats snapshot(long rateLimited) {
    return new ChatClient.Stats(logins, resends, malformed, catchUps, rateLimited, resumes);
  }
}
