package dev.ddpkit.ddp;

import java.time.Instant;

/** Where a client reads the wall-clock time: its scheduler's {@code wallTime()}. */
@FunctionalInterface
interface WallClock {
  /** Returns now on the wall clock. */
  Instant now();
}
