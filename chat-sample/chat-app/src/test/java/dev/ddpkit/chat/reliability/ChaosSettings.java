package dev.ddpkit.chat.reliability;

import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The knobs of a chaos run, read from system properties so that the long run is one Maven command
 * ({@code -Dchaos.duration=10m}).
 *
 * @param seed the seed of every random choice of the scenario ({@code chaos.seed}; default: a new
 *     one, printed)
 * @param duration how long the clients write while the faults go on ({@code chaos.duration}, such
 *     as {@code 30s}, {@code 10m}, {@code 1h} or {@code PT10M}; default 30 s)
 * @param restarts how many times the server is stopped and started again ({@code chaos.restarts};
 *     else one per {@code chaos.restartEvery} of duration, at least 2; default: one per 3 s of
 *     duration, at least 10)
 * @param clients how many chat clients ({@code chaos.clients}; default 50)
 * @param rooms how many rooms ({@code chaos.rooms}; default 5)
 * @param sampleEvery how often the heap after a full GC and the thread count are sampled ({@code
 *     chaos.sample}; default 1 minute)
 * @param rateLimits whether the server enforces Rocket.Chat's default DDP rate limits ({@code
 *     chaos.rateLimits}; default true, as a real server does)
 * @param pace the run's tempo (write rate, heartbeats, admission, time limits): see {@link
 *     ChaosPace}
 */
record ChaosSettings(long seed, Duration duration, int restarts, int clients, int rooms,
    Duration sampleEvery, boolean rateLimits, ChaosPace pace) {
  static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
  static final Duration DEFAULT_SAMPLE_EVERY = Duration.ofMinutes(1);
  private static final Duration SECONDS_PER_RESTART = Duration.ofSeconds(3);

  ChaosSettings {
    if (duration.compareTo(Duration.ofSeconds(5)) < 0) {
      throw new IllegalArgumentException("chaos.duration must be at least 5 s: " + duration);
    }
    if (restarts < 0) {
      throw new IllegalArgumentException("chaos.restarts must not be negative: " + restarts);
    }
    if (clients < 2 || rooms < 2) {
      throw new IllegalArgumentException("chaos.clients and chaos.rooms must be at least 2");
    }
    if (sampleEvery.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("chaos.sample must be at least 1 s: " + sampleEvery);
    }
  }

  /** Reads the settings from {@code properties}, with the defaults above. */
  static ChaosSettings from(Properties properties) {
    String seedText = properties.getProperty("chaos.seed");
    long seed = seedText == null ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seedText);
    String durationText = properties.getProperty("chaos.duration");
    Duration duration = durationText == null ? DEFAULT_DURATION : parseDuration(durationText);
    String restartsText = properties.getProperty("chaos.restarts");
    String everyText = properties.getProperty("chaos.restartEvery");
    int restarts;
    if (restartsText != null) {
      restarts = Integer.parseInt(restartsText);
    } else if (everyText != null) {
      restarts = (int) Math.max(2, duration.toMillis() / parseDuration(everyText).toMillis());
    } else {
      restarts = (int) Math.max(10, duration.toMillis() / SECONDS_PER_RESTART.toMillis());
    }
    int clients = Integer.parseInt(properties.getProperty("chaos.clients", "50"));
    int rooms = Integer.parseInt(properties.getProperty("chaos.rooms", "5"));
    String sampleText = properties.getProperty("chaos.sample");
    Duration sampleEvery = sampleText == null ? DEFAULT_SAMPLE_EVERY : parseDuration(sampleText);
    boolean rateLimits = Boolean.parseBoolean(properties.getProperty("chaos.rateLimits", "true"));
    return new ChaosSettings(seed, duration, restarts, clients, rooms, sampleEvery, rateLimits,
        ChaosPace.from(properties));
  }

  /** Parses {@code 45s}, {@code 10m}, {@code 2h}, a bare number of seconds, or ISO-8601. */
  static Duration parseDuration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.startsWith("pt")) {
        return Duration.parse(t.toUpperCase(Locale.ROOT));
      }
      if (t.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      }
      char unit = t.charAt(t.length() - 1);
      if (Character.isDigit(unit)) {
        return Duration.ofSeconds(Long.parseLong(t));
      }
      long n = Long.parseLong(t.substring(0, t.length() - 1));
      switch (unit) {
        case 's':
          return Duration.ofSeconds(n);
        case 'm':
          return Duration.ofMinutes(n);
        case 'h':
          return Duration.ofHours(n);
        default:
          throw new IllegalArgumentException("chaos.duration: unknown unit in " + text);
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "chaos.duration must look like 30s, 10m, 1h or PT10M: " + text, e);
    }
  }

  /** The whole test's time limit: the run, plus set-up, settling and tear-down. */
  Duration timeLimit() {
    return duration.plus(Duration.ofMinutes(2)).plus(duration.dividedBy(10))
        .plus(pace.settle().multipliedBy(2));
  }
}
