#!/usr/bin/env bash
# The abuse run (issue 23): `ddpkit.jar serve` in a child JVM (-Xmx512m) under one attack per
# phase (never-ending fragmented messages, oversized frames, malformed JSON, non-objects, deep
# nesting, invalid UTF-8, binary and unmasked frames, sockets idle before the upgrade, non-reading
# clients that ping, method/login/subscription/connection floods, password guessing against alice
# from one address, 2,000 sockets), each from a loopback address of its own, with a healthy pair
# of chat clients beside it; per phase: server up, the pair's lost messages and p99 latency, the
# server's heap after a full GC, its log lines. Then the client side: a ChatClient in a child JVM
# (-Xmx512m) against a server streaming a message that never ends, which must close it with 1009
# before 32 MiB and log in once the address is no longer hostile. Not part of `mvn -B verify`.
# Exit status 0 if every phase passed. About 5 minutes with the default 10 s per phase.
# Usage: scripts/abuse.sh [SECONDS_PER_PHASE]   (benchmark etiquette: flock /work/bench.lock ...)
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=chat-sample/target/ddpkit.jar
if [[ ! -f "$JAR" ]]; then
  echo "abuse run: packaging ddpkit.jar first"
  mvn -B -q package -pl chat-sample/chat-app -am -DskipTests
fi
ulimit -n 20000 2>/dev/null || true # 2,000 sockets on each side, and the rest
echo "uptime before: $(uptime)"
echo "reproduce: java -cp $JAR dev.ddpkit.chat.bench.AbuseCommand --phase-s ${1:-10}"
status=0
java -cp "$JAR" dev.ddpkit.chat.bench.AbuseCommand --phase-s "${1:-10}" || status=$?
echo "uptime after: $(uptime)"
exit "$status"
