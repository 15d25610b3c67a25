#!/usr/bin/env bash
# Inbound throughput of room messages, from a fresh clone: builds the benchmarks jar, installs the
# Node DDP clients, then runs
#   1. JMH in memory: DDP parse alone, and the whole inbound path of a chat client (parse,
#      dispatch, message parse, dedup by _id, delivery) inline and on the client's event loop;
#   2. end to end over loopback: an embedded ChatServer, pipelined producers, and consumers of the
#      same room stream side by side in the same run: ddpkit's ChatClient, Node ddp 0.12.1 and
#      Node ddp.js 2.2.1 + ws; figures and ratios are printed.
#      The Java consumer runs once per event-loop mode, each in its own JVM: default (the shared
#      ddpkit-loop pool) and shared (executor(a 2-thread pool of the caller's)).
# Options: MESSAGES (20000), WARMUP (100000: at 40,000, 30-180 ms of C2 compiling still fell in the drain), PRODUCERS (4), NODE_LIBS (ddp,ddp.js),
#          JAVA_MODES (default,shared), JMH_ARGS, SKIP_JMH (1: the end-to-end part only),
#          JAVA_CONSUMER_OPTS (JVM options of each Java consumer, {mode} replaced by its mode:
#          -XX:StartFlightRecording=filename=target/consumer-{mode}.jfr profiles it; by default
#          a 256 MiB heap committed and touched at start, as a long-running client's heap is:
#          see BENCHMARKS.md 3b; set it empty for the JVM's defaults).
set -euo pipefail
cd "$(dirname "$0")/.."

MESSAGES=${MESSAGES:-20000}
WARMUP=${WARMUP:-100000}
PRODUCERS=${PRODUCERS:-4}
NODE_LIBS=${NODE_LIBS:-ddp,ddp.js}
JAVA_MODES=${JAVA_MODES:-default,shared}
SKIP_JMH=${SKIP_JMH:-0}
# A heap touched at start: otherwise the phases' allocations fault in pages the kernel never gave
# the young process, and the consumer's CPU counts the kernel zeroing them (BENCHMARKS.md 3b).
export JAVA_CONSUMER_OPTS=${JAVA_CONSUMER_OPTS--Xms256m -Xmx256m -XX:+AlwaysPreTouch}
# Ten warm-up iterations: the deliver benchmarks still climb (100k -> 300k ops/s) after three.
JMH_ARGS=${JMH_ARGS:--f 1 -wi 10 -i 5 -w 2s -r 2s}

echo "== machine"
echo "nproc: $(nproc)"
free -g
java -version 2>&1
echo "node: $(node --version)  npm: $(npm --version)"
echo "load before the build: $(uptime)"

echo "== build"
mvn -B -q -DskipTests -pl benchmarks -am package
JAR=benchmarks/target/benchmarks.jar

echo "== npm install (benchmarks/node)"
(cd benchmarks/node && npm ci --no-audit --no-fund --loglevel=error)

if [ "$SKIP_JMH" != 1 ]; then
  echo "== JMH, in memory ($JMH_ARGS)"
  echo "load: $(uptime)"
  # shellcheck disable=SC2086
  java -jar "$JAR" 'dev.ddpkit.bench.throughput.InboundBenchmark' $JMH_ARGS
  echo "load: $(uptime)"
fi

echo "== end to end over loopback, side by side"
echo "load: $(uptime)"
echo "Java consumer JVM options: ${JAVA_CONSUMER_OPTS:-none (the JVM defaults)}"
echo "\$ java -cp $JAR dev.ddpkit.bench.throughput.EndToEndThroughput --messages $MESSAGES --warmup $WARMUP --producers $PRODUCERS --node-libs $NODE_LIBS --java-modes $JAVA_MODES --node-script benchmarks/node/consume.js"
java -cp "$JAR" dev.ddpkit.bench.throughput.EndToEndThroughput \
    --messages "$MESSAGES" --warmup "$WARMUP" --producers "$PRODUCERS" \
    --node-libs "$NODE_LIBS" --java-modes "$JAVA_MODES" --node-script benchmarks/node/consume.js
echo "load: $(uptime)"
