/**
 * Recovery details: how long all room streams take to be ready again after a reconnect, against
 * the round trip ({@link dev.ddpkit.bench.recovery.SubscriptionRecovery}), and how long a half-open
 * socket takes to be noticed, against the heartbeat ({@link
 * dev.ddpkit.bench.recovery.HalfOpenDetection}); see {@code scripts/bench-recovery.sh}.
 */
package dev.ddpkit.bench.recovery;
