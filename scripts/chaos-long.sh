#!/usr/bin/env bash
# The long chaos run of issue 12 from one command: ChatClients, each behind a fault proxy, write
# while the server is killed and drained at random (with its retry-after appointments) and random
# proxies go half-open; the server enforces Rocket.Chat's DDP rate limits; the heap after a full GC
# and the thread count are sampled every minute and printed with their slope.
#   scripts/chaos-long.sh                 # the target: 1,000 clients, 60 minutes, 100 rooms
#   scripts/chaos-long.sh 50 2m           # a short check of the command itself
#   scripts/chaos-long.sh 1000 60m 100 30s  # clients, duration, rooms, sample period
# The tempo is the one a real deployment of this size has, not the short run's (a fault every
# second and a message per client every 2 s, which at 1,000 clients would be 500 messages/s
# into one 2-core box): each client writes a message a minute on average, heartbeats every 5 s
# (timeout 7.5 s; blackholes last 0.3 to 27 s), the server pings every 10 s and admits 250
# connections/s, a dial may take 10 s, the backoff is full jitter from 100 ms to 30 s, set-up and
# settling may take 5 minutes each, and the server restarts every 90 s on average. Each client
# remembers the last 256 message ids per room to drop duplicates (the default is 10,000): a room
# sees some 10 messages a minute, so the windows fill in the first half hour and the heap series
# can level off; a window too small for an outage's catch-up would show as duplicates.
# A fifth of the writers' operations edit or delete one of their own messages (issue 19;
# CHAOS_CHANGE_RATIO=0 for none), and the run ends by comparing every client's view of every room
# with the server's ("views equal to the server's: N / N").
# Extra settings pass through the environment: CHAOS_SEED (replay a plan), CHAOS_RESTARTS,
# CHAOS_RATE_LIMITS=false, CHAOS_ARGLINE (JVM options of the test JVM, such as -Xmx4g),
# CHAOS_PACE (replace the tempo's -D options, e.g. "-Dchaos.writeEvery=2s" for the short run's).
# CHAOS_MVN_FLAGS adds Maven options (-o to build offline, say).
# 1,000 clients with a proxy each need about 10,000 threads: check `ulimit -u` first.
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-1000}"
duration="${2:-60m}"
rooms="${3:-100}"
sample="${4:-1m}"
props=(-Dchaos.clients="$clients" -Dchaos.duration="$duration" -Dchaos.rooms="$rooms"
  -Dchaos.sample="$sample" -Dchaos.rateLimits="${CHAOS_RATE_LIMITS:-true}"
  -Dchaos.changeRatio="${CHAOS_CHANGE_RATIO:-0.2}")
pace="${CHAOS_PACE:--Dchaos.writeEvery=60s -Dchaos.heartbeat=5s -Dchaos.serverHeartbeat=10s
  -Dchaos.acceptRate=250 -Dchaos.connectTimeout=10s -Dchaos.backoffMax=30s -Dchaos.settle=5m
  -Dchaos.dedupWindow=256}"
read -r -a pace_flags <<< "$(echo $pace)"
props+=("${pace_flags[@]}")
[ -n "${CHAOS_SEED:-}" ] && props+=(-Dchaos.seed="$CHAOS_SEED")
# One restart per 90 s of duration (at least 2) unless told otherwise; the test's own default is
# one per 3 s. The test parses the duration, in every form it accepts.
if [ -n "${CHAOS_RESTARTS:-}" ]; then
  props+=(-Dchaos.restarts="$CHAOS_RESTARTS")
else
  props+=(-Dchaos.restartEvery=90s)
fi
[ -n "${CHAOS_ARGLINE:-}" ] && props+=(-DargLine="$CHAOS_ARGLINE")
out=chat-sample/chat-app/target/surefire-reports/dev.ddpkit.chat.reliability.ChaosTest-output.txt
rm -f "$out"
start=$(date +%s)
status=0
mvn -B ${CHAOS_MVN_FLAGS:-} -pl chat-sample/chat-app -am verify -Djacoco.skip=true -Djazzer.skip=true \
  -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest='ChaosTest#fiftyClientsThroughRestartsAndBlackholesLoseAndDuplicateNothing' \
  "${props[@]}" || status=$?
echo "== chaos run: $clients clients, $duration, $rooms rooms, $(( $(date +%s) - start )) s in all," \
  "mvn exit status $status"
if [ -f "$out" ]; then
  grep -E 'resources: ' "$out" || true
  sed -n '/==== chaos run report ====/,/^==========================$/p' "$out"
  grep -E '^(edits / deletions|views equal|deleted messages shown|first difference)' "$out" || true
fi
exit "$status"
