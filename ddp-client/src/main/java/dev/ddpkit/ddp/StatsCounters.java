package dev.ddpkit.ddp;

import java.util.concurrent.atomic.AtomicLong;

/** The counters behind {@link DdpStats}: written on the loop, read from any thread. */
final class StatsCounters {
  final AtomicLong framesIn = new AtomicLong();
  final AtomicLong framesOut = new AtomicLong();
  final AtomicLong protocolErrors = new AtomicLong();
  final AtomicLong deviations = new AtomicLong();
  final AtomicLong protocolDrops = new AtomicLong();
  final AtomicLong serverErrors = new AtomicLong();
  final AtomicLong reconnects = new AtomicLong();
  final AtomicLong heartbeatTimeouts = new AtomicLong();
  final AtomicLong connectTimeouts = new AtomicLong();
  final AtomicLong resumes = new AtomicLong();
  private volatile String lastProtocolError = "";

  /** Counts a protocol error and keeps it as the last one. */
  void protocolError(String what) {
    protocolErrors.incrementAndGet();
    lastProtocolError = what;
  }

  DdpStats snapshot() {
    return new DdpStats(
        framesIn.get(), framesOut.get(), protocolErrors.get(), serverErrors.get(), reconnects.get(),
        heartbeatTimeouts.get(), connectTimeouts.get(), lastProtocolError, deviations.get(),
        protocolDrops.get(), resumes.get());
  }
}
