package dev.ddpkit.reconnect.sim;

import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The backoff policies the herd simulation compares, each with the name used on the command line. */
public enum HerdPolicy {
  /** {@code Backoff.fixed(5 s)}: today's {@code reopen: 5000}, no jitter. */
  FIXED("fixed", "5 s every time, no jitter (reopen: 5000)", Backoff.fixed(Duration.ofSeconds(5))),
  /** {@link Backoff#rfc()}: 1 s doubling to 60 s, plus up to half of it. */
  RFC("rfc", "1 s doubling to 60 s, plus 0-50 %", Backoff.rfc()),
  /** {@link Backoff#fullJitter()}: U(0, min(30 s, 500 ms * 2^(n-1))). */
  FULL_JITTER("full-jitter", "uniform in 0 .. 0.5 s doubling to 30 s", Backoff.fullJitter()),
  /** {@code Backoff.proportional(500 ms, 30 s, 0.25)}: +-25 % around the capped exponential. */
  PROPORTIONAL(
      "proportional",
      "0.5 s doubling to 30 s, +-25 %",
      Backoff.proportional(Duration.ofMillis(500), Duration.ofSeconds(30), 0.25)),
  /** {@link Backoff#meteor()}: Meteor's Retry defaults. */
  METEOR("meteor", "10 ms twice, then 1 s x 2.2 per attempt to 5 min, +-25 %", Backoff.meteor());

  private final String cliName;
  private final String description;
  private final Backoff backoff;

  HerdPolicy(String cliName, String description, Backoff backoff) {
    this.cliName = cliName;
    this.description = description;
    this.backoff = backoff;
  }

  /** Returns a short description of the delays, for charts and tables. */
  public String description() {
    return description;
  }

  /** Returns the name used on the command line and in reports ({@code full-jitter}). */
  public String cliName() {
    return cliName;
  }

  /** Returns the backoff every simulated client of this policy uses. */
  public Backoff backoff() {
    return backoff;
  }

  /**
   * Returns the policy called {@code name} (case-insensitive).
   *
   * @throws IllegalArgumentException naming the known policies if there is none
   */
  public static HerdPolicy fromName(String name) {
    String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    for (HerdPolicy p : values()) {
      if (p.cliName.equals(wanted)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "unknown policy '" + name + "' (known: " + names() + ")");
  }

  /**
   * Returns the policies of a comma-separated list of names ({@code fixed,rfc}), in order, each
   * once.
   *
   * @throws IllegalArgumentException naming the known policies if a name is unknown or empty
   */
  public static List<HerdPolicy> listFromNames(String names) {
    List<HerdPolicy> list = new ArrayList<>();
    for (String name : names.split(",", -1)) {
      HerdPolicy p = fromName(name);
      if (!list.contains(p)) {
        list.add(p);
      }
    }
    return List.copyOf(list);
  }

  /** Returns the known names, comma-separated. */
  public static String names() {
    return Arrays.stream(values()).map(HerdPolicy::cliName).collect(Collectors.joining(", "));
  }

  @Override
  public String toString() {
    return cliName;
  }
}
