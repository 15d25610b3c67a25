package dev.ddpkit.chat.reliability;

import java.time.Duration;
import java.util.Properties;

/**
 * The tempo of a chaos run: how often clients write, how fast the heartbeats go, how fast the
 * server admits, how long a dial and the settling may take. The defaults are the short run's in
 * {@code mvn verify} (50 clients, a fault every second). A run with many more clients on the same
 * two cores needs a slower tempo, or it measures an overloaded machine instead of the client:
 * {@code scripts/chaos-long.sh} sets one for 1,000 clients.
 *
 * @param writeEvery the mean time between two messages of one client ({@code chaos.writeEvery};
 *     default 2 s)
 * @param heartbeat the clients' heartbeat interval ({@code chaos.heartbeat}; default 500 ms); the
 *     heartbeat timeout is 1.5 times it, and a blackhole lasts from 300 ms to 300 ms plus 5.4 times
 *     it, so that some blackholes outlast the timeout and some do not
 * @param serverHeartbeat the server's heartbeat interval ({@code chaos.serverHeartbeat}; default
 *     1 s); its timeout is twice it
 * @param acceptRate the connections per second the server admits ({@code chaos.acceptRate};
 *     default 100)
 * @param connectTimeout the clients' connect timeout ({@code chaos.connectTimeout}; default 2 s)
 * @param backoffMax the cap of the clients' full-jitter backoff, from 100 ms ({@code
 *     chaos.backoffMax}; default 2 s)
 * @param settle how long the set-up and the settling at the end may take each ({@code
 *     chaos.settle}; default 60 s)
 * @param dedupWindow the message ids per room each client remembers to drop duplicates ({@code
 *     chaos.dedupWindow}; default 10,000, the client's own); a long run sets it low enough to fill
 *     early, so the heap it samples can level off, and the ledger still catches any duplicate a
 *     too-small window lets through
 */
record ChaosPace(Duration writeEvery, Duration heartbeat, Duration serverHeartbeat,
    int acceptRate, Duration connectTimeout, Duration backoffMax, Duration settle,
    int dedupWindow) {
  /** How often the writer looks at every client and lets each write with some chance. */
  static final Duration WRITE_TICK = Duration.ofMillis(200);

  ChaosPace {
    atLeast("chaos.writeEvery", writeEvery, WRITE_TICK);
    atLeast("chaos.heartbeat", heartbeat, Duration.ofMillis(100));
    atLeast("chaos.serverHeartbeat", serverHeartbeat, Duration.ofMillis(100));
    atLeast("chaos.connectTimeout", connectTimeout, Duration.ofMillis(100));
    atLeast("chaos.backoffMax", backoffMax, Duration.ofMillis(100));
    atLeast("chaos.settle", settle, Duration.ofSeconds(1));
    if (dedupWindow < 1) {
      throw new IllegalArgumentException("chaos.dedupWindow must be at least 1: " + dedupWindow);
    }
    if (acceptRate < 1) {
      throw new IllegalArgumentException("chaos.acceptRate must be at least 1: " + acceptRate);
    }
  }

  /** Reads the tempo from {@code p}, with the short run's defaults. */
  static ChaosPace from(Properties p) {
    return new ChaosPace(
        duration(p, "chaos.writeEvery", "2s"),
        duration(p, "chaos.heartbeat", "500ms"),
        duration(p, "chaos.serverHeartbeat", "1s"),
        Integer.parseInt(p.getProperty("chaos.acceptRate", "100")),
        duration(p, "chaos.connectTimeout", "2s"),
        duration(p, "chaos.backoffMax", "2s"),
        duration(p, "chaos.settle", "60s"),
        Integer.parseInt(p.getProperty("chaos.dedupWindow", "10000")));
  }

  /** The chance that a client writes at one tick of the writer. */
  double writeChance() {
    return (double) WRITE_TICK.toNanos() / writeEvery.toNanos();
  }

  /** The clients' heartbeat timeout: 1.5 times the interval. */
  Duration heartbeatTimeout() {
    return heartbeat.plus(heartbeat.dividedBy(2));
  }

  /** The longest blackhole beyond its 300 ms minimum, in milliseconds. */
  int blackholeSpreadMillis() {
    return (int) Math.min(Integer.MAX_VALUE - 1, heartbeat.toMillis() * 54 / 10);
  }

  private static Duration duration(Properties p, String key, String fallback) {
    String text = p.getProperty(key, fallback);
    try {
      return ChaosSettings.parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + " must look like 500ms, 30s or 2m: " + text, e);
    }
  }

  private static void atLeast(String key, Duration value, Duration min) {
    if (value.compareTo(min) < 0) {
      throw new IllegalArgumentException(key + " must be at least " + min + ": " + value);
    }
  }
}
