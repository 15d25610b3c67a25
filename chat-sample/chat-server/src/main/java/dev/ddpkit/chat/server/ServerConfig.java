package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The settings of one {@link ChatServer}, fixed when it is built: an immutable value the builder
 * makes once its settings are validated, handed to every part ({@link DdpHandler}, {@link
 * Arrivals}, {@link Liveness}, {@link Logins}, ...) instead of the builder, so that no part sees a
 * setting change under it or calls a setter. Each field means what the builder's setter of the
 * same name says.
 */
final class ServerConfig {
  final int port;
  final int listenBacklog;
  final String host;
  final Path dataDir;
  final int acceptRate;
  final int acceptBurst;
  final boolean retryAfterHints;
  final Duration warmUp;
  final Duration heartbeatInterval;
  final Duration heartbeatTimeout;
  final Duration drainPeriod;
  final Duration sessionGrace;
  final int sessionQueueLimit;
  final Duration tokenTtl;
  final int maxTokensPerUser;
  final int maxFrameBytes;
  final int workers;
  final Clock clock;
  final Ticker ticker;
  /** Null: the server's own timer thread. */
  final Scheduler scheduler;
  final ServerFaults faults;
  final RateLimits rateLimits;
  final ServerConnectionListener connectionListener;
  final int loginFailures;
  final Duration loginWindow;
  final int addressLoginFailures;
  final Duration addressLoginWindow;
  final Compatibility compatibility;
  final FatalErrorHandler fatalErrorHandler;
  final Duration upgradeTimeout;
  final int maxSocketsPerAddress;
  final long maxSendQueueBytes;

  /** A snapshot of the builder's settings (already validated by its setters and build). */
  ServerConfig(ChatServerBuilder b) {
    port = b.port;
    listenBacklog = b.listenBacklog;
    host = b.host;
    dataDir = b.dataDir;
    acceptRate = b.acceptRate;
    acceptBurst = b.acceptBurst;
    retryAfterHints = b.retryAfterHints;
    warmUp = b.warmUp;
    heartbeatInterval = b.heartbeatInterval;
    heartbeatTimeout = b.heartbeatTimeout;
    drainPeriod = b.drainPeriod;
    sessionGrace = b.sessionGrace;
    sessionQueueLimit = b.sessionQueueLimit;
    tokenTtl = b.tokenTtl;
    maxTokensPerUser = b.maxTokensPerUser;
    maxFrameBytes = b.maxFrameBytes;
    workers = b.workers;
    clock = b.clock;
    ticker = b.ticker;
    scheduler = b.scheduler;
    faults = b.faults;
    rateLimits = b.rateLimits;
    connectionListener = b.connectionListener;
    loginFailures = b.loginFailures;
    loginWindow = b.loginWindow;
    addressLoginFailures = b.addressLoginFailures;
    addressLoginWindow = b.addressLoginWindow;
    compatibility = b.compatibility;
    fatalErrorHandler = b.fatalErrorHandler;
    upgradeTimeout = b.upgradeTimeout;
    maxSocketsPerAddress = b.maxSocketsPerAddress;
    maxSendQueueBytes = b.maxSendQueueBytes;
  }

  /** The host name clients dial: a wildcard address is reached on loopback. */
  String dialHost() {
    if (host.equals("0.0.0.0") || host.equals("::")) {
      return "127.0.0.1";
    }
    return host.contains(":") ? "[" + host + "]" : host;
  }
}
