#!/usr/bin/env bash
# The same herd in virtual time (the simulation), at the real run's parameters (1,000 clients,
# C = 200/s, D = 3 s) and scaled with the same N/C and D: 10,000 at 2,000/s, 100,000 at 20,000/s.
# Hints off and on. Usage: scripts/bench-herd-sim.sh (builds chat-sample/target/ddpkit.jar first)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== build"
mvn -B -q -pl chat-sample/chat-app -am package -DskipTests
bash scripts/bench-machine.sh
mkdir -p target/bench
for spec in 1000:200 10000:2000 100000:20000; do
  N=${spec%%:*}; C=${spec##*:}
  for hints in off on; do
    flag=""; [ "$hints" = on ] && flag="--hints"
    echo
    echo "reproduce: java -jar chat-sample/target/ddpkit.jar herd --clients $N --capacity $C" \
      "--downtime-ms 3000 --policy fixed,rfc,full-jitter --bucket-ms 500 --seed 42 $flag"
    java -jar chat-sample/target/ddpkit.jar herd --clients "$N" --capacity "$C" \
      --downtime-ms 3000 --policy fixed,rfc,full-jitter --bucket-ms 500 --seed 42 $flag \
      --svg "target/bench/herd-sim-$N-hints-$hints.svg" | sed -n '1,12p'
    java -jar chat-sample/target/ddpkit.jar herd --clients "$N" --capacity "$C" \
      --downtime-ms 3000 --policy fixed,rfc,full-jitter --bucket-ms 500 --seed 42 $flag --json
  done
done
