#!/usr/bin/env bash
# The reconnect wave on real sockets: N ChatClients against the embedded server, killed at t=0 and
# restarted after D ms with admission at C/s; fixed, rfc and full-jitter, hints off and on.
# Usage: scripts/bench-herd-real.sh [CLIENTS] [CAPACITY] [DOWNTIME_MS]   (default 1000 200 3000)
# Builds chat-sample/target/ddpkit.jar first, so it runs from a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}; C=${2:-200}; D=${3:-3000}
echo "== build"
mvn -B -q -pl chat-sample/chat-app -am package -DskipTests
bash scripts/bench-machine.sh
mkdir -p target/bench
java -jar chat-sample/target/ddpkit.jar herd --real --clients "$N" --capacity "$C" \
  --downtime-ms "$D" --policy fixed,rfc,full-jitter --hints both --cap-ms 120000 \
  --bucket-ms 500 --seed 42 --svg "target/bench/herd-real-$N" --json
echo "uptime after: $(uptime)"
