#!/usr/bin/env bash
# The long fuzz run: every *Fuzz* property of ddp-client with about N inputs each (default one
# million), then the counts per property from ddp-client/target/fuzz-counts.txt.
#   scripts/fuzz-long.sh            # 1,000,000 inputs per property
#   scripts/fuzz-long.sh 50000      # a shorter run
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
