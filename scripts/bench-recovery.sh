#!/usr/bin/env bash
# Recovery details, from a fresh clone: builds the benchmarks jar, then runs
#   1. SubscriptionRecovery: one client, 100 room streams, the server drops the connection; time
#      from the new DDP 'connected' to the last 'ready', against the round trip of the same
#      connection (ping and a trivial method), directly and through a proxy adding latency;
#   2. HalfOpenDetection: a FaultProxy blackholes the connection right after a server frame;
#      time until the client's status leaves CONNECTED, for heartbeats of 250 ms, 500 ms and 1 s.
# Options: ROOMS (100), DROPS (7), LATENCY_MS (20), HALFOPEN_REPS (5).
set -euo pipefail
cd "$(dirname "$0")/.."

ROOMS=${ROOMS:-100}
DROPS=${DROPS:-7}
LATENCY_MS=${LATENCY_MS:-20}
HALFOPEN_REPS=${HALFOPEN_REPS:-5}

echo "== machine"
echo "nproc: $(nproc)"
free -g
java -version 2>&1
echo "load before the build: $(uptime)"

echo "== build"
mvn -B -q -DskipTests -pl benchmarks -am package
JAR=benchmarks/target/benchmarks.jar

echo "== streams ready after a reconnect"
echo "load: $(uptime)"
java -cp "$JAR" dev.ddpkit.bench.recovery.SubscriptionRecovery "$ROOMS" "$DROPS" "$LATENCY_MS"

echo "== half-open detection"
echo "load: $(uptime)"
java -cp "$JAR" dev.ddpkit.bench.recovery.HalfOpenDetection "$HALFOPEN_REPS"
echo "load: $(uptime)"
