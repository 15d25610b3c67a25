package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.Ticker;
import java.net.URI;
import java.time.Duration;

/** The settings of a {@link ClientEngine}, validated by {@link DdpClientBuilder}. */
record EngineConfig(
    String name,
    URI uri,
    Scheduler scheduler,
    Ticker ticker,
    WallClock wallClock,
    Duration heartbeatInterval,
    Duration heartbeatTimeout,
    Duration connectTimeout,
    Duration resyncTimeout,
    int maxQueuedCalls,
    int maxFrameBytes,
    boolean strictProtocol,
    boolean sessionResumption) {}
