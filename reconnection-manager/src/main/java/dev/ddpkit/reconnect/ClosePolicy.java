package dev.ddpkit.reconnect;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Classifies a close code (and its reason) into a {@link CloseDecision}. Immutable; build variants
 * with {@link #toBuilder()}.
 *
 * <p>Two profiles are provided. {@link #websocket()} follows the usual table for plain WebSocket
 * servers. {@link #ddp()} is for Meteor and Rocket.Chat servers, which close with 1000 when they
 * drain or time a client out and with 4000 when Rocket.Chat's streamer times out: a server-sent
 * 1000 or 4000 is therefore retried. A close the client asked for is never reported to the policy:
 * the socket owner calls {@link ReconnectionManager#stop()} instead.
 *
 * <p>A reason containing {@code retry-after=<millis>} is an appointment: {@link
 * CloseDecision#retryAfter()} carries it (at most {@link #MAX_RETRY_AFTER}) for every code that
 * does not stop, and the {@link ReconnectionManager} dials at that time plus a small spread,
 * whatever its backoff curve says and whatever {@link #slowFloor()} is (the floor applies to a
 * 1013 without a hint), the immediate retry after 4401 included. The server knows when it will
 * have room; the client's own curve is for when it said nothing. (Until December 2026 a hint only
 * raised a floor, so every hint shorter than the client's own backoff was thrown away.)
 */
public final class ClosePolicy {
  /**
   * The largest {@code retry-after} hint honoured: 10 minutes. A larger hint (a typo, a unit
   * mix-up, or a hostile server) is capped to this, so a single close cannot park a client for
   * days or overflow a deadline.
   */
  public static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(10);

  // Any number of digits: a longer number must be capped, not silently read as its first digits.
  private static final Pattern RETRY_AFTER =
      Pattern.compile("retry-after\\s*[=:]\\s*(\\d+)", Pattern.CASE_INSENSITIVE);
  // Digits beyond this cannot be below the cap (and 18 digits always fit in a long).
  private static final int MAX_HINT_DIGITS = 18;

  private final Map<Integer, CloseAction> actions;
  private final CloseAction defaultAction;
  private final Duration slowFloor;
  private final String name;

  private ClosePolicy(Builder b) {
    this.actions = Map.copyOf(b.actions);
    this.defaultAction = b.defaultAction;
    this.slowFloor = b.slowFloor;
    this.name = b.name;
  }

  /**
   * The plain WebSocket profile: retry 1001, 1006, 1011, 1012 and unknown codes; 1013 retries
   * slowly; 4401 refreshes credentials; stop on 1000, 1003, 1008, 1015 and 4403.
   */
  public static ClosePolicy websocket() {
    return baseBuilder("websocket").on(CloseCodes.NORMAL, CloseAction.STOP).build();
  }

  /**
   * The DDP profile: as {@link #websocket()}, but a server-sent 1000 (Meteor drain, heartbeat
   * timeout) and 4000 (Rocket.Chat streamer timeout) are retried.
   */
  public static ClosePolicy ddp() {
    return baseBuilder("ddp")
        .on(CloseCodes.NORMAL, CloseAction.RETRY)
        .on(CloseCodes.ROCKETCHAT_TIMEOUT, CloseAction.RETRY)
        .build();
  }

  private static Builder baseBuilder(String name) {
    return new Builder()
        .name(name)
        .on(CloseCodes.GOING_AWAY, CloseAction.RETRY)
        .on(CloseCodes.ABNORMAL, CloseAction.RETRY)
        .on(CloseCodes.INTERNAL_ERROR, CloseAction.RETRY)
        .on(CloseCodes.SERVICE_RESTART, CloseAction.RETRY)
        .on(CloseCodes.TRY_AGAIN_LATER, CloseAction.RETRY_SLOW)
        .on(CloseCodes.UNSUPPORTED_DATA, CloseAction.STOP)
        .on(CloseCodes.POLICY_VIOLATION, CloseAction.STOP)
        .on(CloseCodes.TLS_HANDSHAKE, CloseAction.STOP)
        .on(CloseCodes.UNAUTHORIZED, CloseAction.REFRESH_AUTH)
        .on(CloseCodes.FORBIDDEN, CloseAction.STOP);
  }

  /** Returns a new empty builder: every code retries, 1013-style floor 5 s. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder that starts from this policy. */
  public Builder toBuilder() {
    Builder b = new Builder().name(name).defaultAction(defaultAction).slowFloor(slowFloor);
    b.actions.putAll(actions);
    return b;
  }

  /** Returns the action configured for {@code code}, without looking at a reason. */
  public CloseAction actionFor(int code) {
    return actions.getOrDefault(code, defaultAction);
  }

  /**
   * Returns the floor used for {@link CloseAction#RETRY_SLOW} when the server gave no hint; with a
   * hint, the hint decides.
   */
  public Duration slowFloor() {
    return slowFloor;
  }

  /**
   * Classifies a close reported by the server (or by the network: 1006).
   *
   * @param code the close code
   * @param reason the close reason, possibly empty or {@code null}
   */
  public CloseDecision classify(int code, String reason) {
    CloseAction action = actionFor(code);
    Duration floor = action == CloseAction.RETRY_SLOW ? slowFloor : Duration.ZERO;
    OptionalLong hint = retryAfterMillis(reason);
    Optional<Duration> retryAfter =
        hint.isPresent() && action != CloseAction.STOP
            ? Optional.of(Duration.ofMillis(hint.getAsLong()))
            : Optional.empty();
    return new CloseDecision(action, floor, retryAfter, describe(code, reason));
  }

  /**
   * Extracts {@code retry-after=<millis>} (or {@code retry-after: <millis>}, any case) from a close
   * reason, if present. A hint that is not a number is ignored; a hint above {@link
   * #MAX_RETRY_AFTER} is capped to it.
   */
  public static OptionalLong retryAfterMillis(String reason) {
    if (reason == null || reason.isEmpty()) {
      return OptionalLong.empty();
    }
    Matcher m = RETRY_AFTER.matcher(reason);
    if (!m.find()) {
      return OptionalLong.empty();
    }
    String digits = m.group(1).replaceFirst("^0+(?=\\d)", "");
    long cap = MAX_RETRY_AFTER.toMillis();
    if (digits.length() > MAX_HINT_DIGITS) {
      return OptionalLong.of(cap);
    }
    return OptionalLong.of(Math.min(cap, Long.parseLong(digits)));
  }

  private static String describe(int code, String reason) {
    String r = reason == null || reason.trim().isEmpty() ? "" : " " + abbreviate(reason.trim());
    return "closed " + code + r;
  }

  private static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 117) + "...";
  }

  @Override
  public String toString() {
    return "ClosePolicy{" + name + "}";
  }

  /** Builds a {@link ClosePolicy}. */
  public static final class Builder {
    private final Map<Integer, CloseAction> actions = new HashMap<>();
    private CloseAction defaultAction = CloseAction.RETRY;
    private Duration slowFloor = Duration.ofSeconds(5);
    private String name = "custom";

    private Builder() {}

    /** Sets the action for one close code. */
    public Builder on(int code, CloseAction action) {
      if (code < 1000 || code > 4999) {
        throw new IllegalArgumentException("close code must be in 1000..4999: " + code);
      }
      actions.put(code, Objects.requireNonNull(action, "action"));
      return this;
    }

    /** Sets the action for codes with no entry of their own (default {@link CloseAction#RETRY}). */
    public Builder defaultAction(CloseAction action) {
      this.defaultAction = Objects.requireNonNull(action, "action");
      return this;
    }

    /**
     * Sets the floor for {@link CloseAction#RETRY_SLOW} when no hint is given (default 5 s); a
     * {@code retry-after} hint replaces it.
     */
    public Builder slowFloor(Duration floor) {
      Backoffs.checkNonNegative("slowFloor", floor);
      this.slowFloor = floor;
      return this;
    }

    /** Names the policy in {@code toString()}. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Returns the policy. */
    public ClosePolicy build() {
      return new ClosePolicy(this);
    }
  }
}
