package dev.ddpkit.ddp;

import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeat and health of the connected socket: a ping after an idle interval, any inbound frame
 * counting as the answer, the socket declared dead when none comes in time; and the health check
 * of {@link DdpClient#checkHealth()}. Its timers belong to the {@link Connection}, so they end
 * with it. Event loop only.
 */
final class Heartbeat {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  /** {@link DdpClient#checkHealth()}: traffic this recent means alive. */
  static final Duration HEALTH_RECENT = Duration.ofSeconds(2);

  /** {@link DdpClient#checkHealth()}: how long the probe ping may wait for an answer. */
  static final Duration HEALTH_PING_TIMEOUT = Duration.ofSeconds(2);

  private final ClientEngine engine;
  private final String name;
  private final Ticker ticker;
  private final Duration interval;
  private final Duration timeout;
  private final ClientMessages out;
  private final StatsCounters counters;
  private Cancellable idleTimer;
  private long lastInboundNanos;
  private long inboundCount;
  private CompletableFuture<Boolean> probe;
  private Cancellable probeTimer;

  Heartbeat(ClientEngine engine, String name, Ticker ticker, Duration interval, Duration timeout,
      ClientMessages out, StatsCounters counters) {
    this.engine = engine;
    this.name = name;
    this.ticker = ticker;
    this.interval = interval;
    this.timeout = timeout;
    this.out = out;
    this.counters = counters;
  }

  /** A frame arrived: the socket is alive. */
  void inbound() {
    inboundCount++;
    lastInboundNanos = ticker.read();
    completeProbe(true);
  }

  /**
   * DDP {@code connected} on the engine's connection: starts the heartbeat (not for pre1, which
   * has no ping). Its timers are that connection's ({@link ClientEngine#connection()}, read when
   * they are set: it is the one that is up while they run).
   */
  void start(String version) {
    lastInboundNanos = ticker.read();
    if (interval.isZero() || "pre1".equals(version)) {
      return;
    }
    armIdle(interval);
  }

  /** The connection ended: its timers went with it; a pending probe learns it is dead. */
  void stop() {
    idleTimer = null;
    completeProbe(false);
  }

  private void armIdle(Duration after) {
    cancel(idleTimer);
    idleTimer = engine.connection().schedule(after, this::onIdleCheck);
  }

  private void onIdleCheck() {
    long idle = ticker.read() - lastInboundNanos;
    if (idle < interval.toNanos()) {
      armIdle(Duration.ofNanos(interval.toNanos() - idle));
      return;
    }
    engine.send(out.ping(null));
    long seen = inboundCount;
    idleTimer = engine.connection().schedule(timeout, () -> onPingTimeout(seen));
  }

  private void onPingTimeout(long seenAtPing) {
    if (inboundCount != seenAtPing) {
      long idle = ticker.read() - lastInboundNanos;
      armIdle(Duration.ofNanos(Math.max(0, interval.toNanos() - idle)));
      return;
    }
    counters.heartbeatTimeouts.incrementAndGet();
    log.info("{}: no frame within {} ms of a ping: the connection is dead", name,
        timeout.toMillis());
    engine.connectionDead("heartbeat timeout", "heartbeat timeout");
  }

  /**
   * {@link DdpClient#checkHealth()} while connected: recent traffic means alive; a silence the
   * heartbeat would have caught means dead (redial at once); in between, a ping decides.
   */
  void check(CompletableFuture<Boolean> result) {
    long since = ticker.read() - lastInboundNanos;
    if (since <= HEALTH_RECENT.toNanos()) {
      result.complete(true);
      return;
    }
    if (silenceTheHeartbeatWouldHaveCaught(since)) {
      counters.heartbeatTimeouts.incrementAndGet();
      log.info("{}: health check: nothing heard for {} ms, redialing", name, since / 1_000_000);
      engine.connectionDead("health check", "health check: no traffic");
      engine.dialNow();
      result.complete(false);
      return;
    }
    if (probe != null) {
      probe.whenComplete((alive, e) -> result.complete(Boolean.TRUE.equals(alive)));
      return;
    }
    probe = result;
    engine.send(out.ping(null));
    probeTimer = engine.connection().schedule(HEALTH_PING_TIMEOUT, () -> {
      if (probe != result) {
        return; // answered
      }
      counters.heartbeatTimeouts.incrementAndGet();
      log.info("{}: health check: no answer to a ping, redialing", name);
      engine.connectionDead("health check", "health check: no answer to ping");
      engine.dialNow();
      completeProbe(false);
    });
  }

  /**
   * Whether {@code silenceNanos} without a frame is longer than the heartbeat lets a live socket
   * be: an idle interval before its ping plus the timeout for the answer. Only then is the socket
   * known dead without asking (its timers were held, say, while the app was in the background);
   * a quiet room silent for less has simply not been pinged yet. This also covers a heartbeat
   * ping outstanding past its timeout: it went out at least an interval after the last frame.
   * With the heartbeat off nothing bounds a live silence, so a ping decides.
   */
  private boolean silenceTheHeartbeatWouldHaveCaught(long silenceNanos) {
    if (interval.isZero()) {
      return false;
    }
    return silenceNanos > interval.toNanos() + timeout.toNanos();
  }

  private void completeProbe(boolean alive) {
    CompletableFuture<Boolean> p = probe;
    if (p == null) {
      return;
    }
    probe = null;
    cancel(probeTimer);
    probeTimer = null;
    p.complete(alive);
  }

  private static void cancel(Cancellable c) {
    if (c != null) {
      c.cancel();
    }
  }
}
