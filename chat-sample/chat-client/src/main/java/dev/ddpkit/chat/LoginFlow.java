package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.chat.protocol.RocketChatNames;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs in on every connection: with the password digest first, then with the resume token. A
 * login the server holds back ({@code too-many-requests}) is tried again at its {@code
 * timeToReset}, one failing for now after a backoff, and everything else waits behind it (the
 * {@link Pacer}'s gate is shut until it goes through). A refusal of the credentials signs out.
 */
final class LoginFlow {
  private static final Logger log = LoggerFactory.getLogger(LoginFlow.class);

  private final ChatSession session;
  private String token;
  private Pacer.Job job;
  /** The login on the wire: cancelled with its connection, so a late answer is never heard. */
  private LoginScope.Watch inFlight;
  private int attempts;

  LoginFlow(ChatSession session) {
    this.session = session;
    this.token = session.settings.token();
  }

  /** Returns the resume token of the current login, or null. */
  String token() {
    return token;
  }

  /** A new connection: its budgets start afresh, and the login goes first. */
  void onConnected() {
    session.pacer.newConnection();
    onSameConnection();
  }

  /**
   * Logs in again on a connection the server said was unusable but that stayed up: its budgets
   * go on (the server still counts them).
   */
  void onSameConnection() {
    attempts = 0;
    submit(Duration.ZERO);
  }

  void onConnectionLost() {
    session.pacer.cancel(job);
    job = null;
    if (inFlight != null) {
      inFlight.cancel(); // its answer, if any, is the invocation-failed of a lost call
      inFlight = null;
    }
  }

  private void submit(Duration delay) {
    session.pacer.cancel(job);
    job = session.pacer.submitAfter(Pacer.LOGIN, null, delay, this::send);
  }

  private void send() {
    job = null;
    boolean resume = token != null;
    Map<String, Object> params = resume ? Map.of("resume", token) : passwordParams();
    inFlight = session.call(RocketChatNames.LOGIN, List.of(params), (result, error) -> {
      inFlight = null;
      onAnswer(result, error, resume);
    });
  }

  private Map<String, Object> passwordParams() {
    return Map.of(
        "user", Map.of("username", session.settings.username()),
        "password",
        Map.of("digest", session.settings.passwordDigest(), "algorithm", "sha-256"));
  }

  private void onAnswer(JsonNode result, Throwable error, boolean resume) {
    if (error == null) {
      JsonNode t = result == null ? null : result.get("token");
      if (t == null || !t.isTextual() || t.textValue().isEmpty()) {
        session.signOut("login answer without a token");
        return;
      }
      token = t.textValue();
      attempts = 0;
      session.onLoggedIn();
      return;
    }
    Refusal r = Refusal.of(error, /* loggedIn= */ true);
    switch (r.kind()) {
      case LOST:
        session.connectionLost();
        log.debug("{}: login interrupted: {}", session.settings.name(), r.message());
        return; // the next connection logs in again
      case HOLD:
        session.pacer.hold(Pacer.LOGIN, r.timeToReset());
        session.error("login held back by the server, retrying in "
            + ChatStatus.humanDelay(r.timeToReset()) + ": " + r.message());
        submit(Duration.ZERO); // goes when the hold ends
        return;
      case TEMPORARY:
        Duration d = session.settings.retryDelay(++attempts);
        session.error("login failed, retrying in " + ChatStatus.humanDelay(d) + ": " + r.message());
        submit(d);
        return;
      case NEEDS_LOGIN:
      case PERMANENT:
        token = null;
        session.signOut((resume ? "token refused" : "login refused") + " (" + r.message() + ")");
        return;
      default:
        throw new AssertionError("Unexpected refusal: " + r.kind());
    }
  }
}
