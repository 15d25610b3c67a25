#!/usr/bin/env bash
# The long chaos run of issue 12 from one command: ChatClients, each behind a fault proxy, write
# while the server is killed and drained at random (with its retry-after appointments) and random
# proxies go half-open; the server enforces Rocket.Chat's DDP rate limits; the heap after a full GC
# and the thread count are sampled every minute and printed with their slope.
#   scripts/chaos-long.sh                 # the target: 1,000 clients, 60 minutes, 100 rooms
#   scripts/chaos-long.sh 50 2m           # a short check of the command itself
#   scripts/chaos-long.sh 1000 60m 100 30s  # clients, duration, rooms, sample period
# Extra settings pass through the environment: CHAOS_SEED (replay a plan), CHAOS_RESTARTS,
# CHAOS_RATE_LIMITS=false, CHAOS_ARGLINE (JVM options of the test JVM, such as -Xmx4g).
# CHAOS_MVN_FLAGS adds Maven options (-o to build offline, say).
# 1,000 clients with a proxy each need about 10,000 threads: check `ulimit -u` first.
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-1000}"
duration="${2:-60m}"
rooms="${3:-100}"
sample="${4:-1m}"
props=(-Dchaos.clients="$clients" -Dchaos.duration="$duration" -Dchaos.rooms="$rooms"
  -Dchaos.sample="$sample" -Dchaos.rateLimits="${CHAOS_RATE_LIMITS:-true}")
[ -n "${CHAOS_SEED:-}" ] && props+=(-Dchaos.seed="$CHAOS_SEED")
[ -n "${CHAOS_RESTARTS:-}" ] && props+=(-Dchaos.restarts="$CHAOS_RESTARTS")
[ -n "${CHAOS_ARGLINE:-}" ] && props+=(-DargLine="$CHAOS_ARGLINE")
out=chat-sample/target/surefire-reports/dev.ddpkit.chat.reliability.ChaosTest-output.txt
rm -f "$out"
start=$(date +%s)
status=0
mvn -B ${CHAOS_MVN_FLAGS:-} -pl chat-sample -am verify -Djacoco.skip=true -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest='ChaosTest#fiftyClientsThroughRestartsAndBlackholesLoseAndDuplicateNothing' \
  "${props[@]}" || status=$?
echo "== chaos run: $clients clients, $duration, $rooms rooms, $(( $(date +%s) - start )) s in all," \
  "mvn exit status $status"
if [ -f "$out" ]; then
  grep -E 'resources: ' "$out" || true
  sed -n '/==== chaos run report ====/,/^==========================$/p' "$out"
fi
exit "$status"
