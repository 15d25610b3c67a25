#!/usr/bin/env bash
# The long fuzz run: every *Fuzz* property of ddp-client with about N inputs each (default one
# million), then the counts per property from ddp-client/target/fuzz-counts.txt.
#   scripts/fuzz-long.sh            # 1,000,000 inputs per property
#   scripts/fuzz-long.sh 50000      # a shorter run
# With a second argument it then sends that many random frames to the embedded chat server over a
# loopback socket (about 2,000 frames/s on 2 cores: a million took 8 minutes):
#   scripts/fuzz-long.sh 1000000 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
tries="${1:-1000000}"
rm -f ddp-client/target/fuzz-counts.txt
start=$(date +%s)
mvn -B -pl ddp-client -am verify -Dtest='*Fuzz*' -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfuzz.tries="$tries"
echo "== fuzz counts (fuzz.tries=$tries, $(( $(date +%s) - start )) s in all)"
cat ddp-client/target/fuzz-counts.txt
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^inputs=/) { split($i, a, "="); s += a[2] } }
     END { print "total inputs: " s }' ddp-client/target/fuzz-counts.txt
server_frames="${2:-0}"
if [ "$server_frames" -gt 0 ]; then
  start=$(date +%s)
  mvn -B -pl chat-sample/chat-app -am verify -Dtest='ServerHostileInputTest#randomFramesNeverBreakTheServer' \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfuzz.server.frames="$server_frames"
  echo "== server fuzz: $server_frames random frames over loopback, $(( $(date +%s) - start )) s, passed"
fi
