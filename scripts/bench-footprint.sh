#!/usr/bin/env bash
# Client footprint: 100, 250, 500, 1000 idle clients logged in and subscribed (server in a child
# JVM): ChatClient defaults, DdpClient defaults (both on the shared ddpkit-loop pool), and
# DdpClient on a 2-thread executor of the caller's.
# Usage: scripts/bench-footprint.sh [STEPS]   (default 100,250,500,1000)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bench-machine.sh
echo "reproduce: java -cp chat-sample/target/ddpkit.jar dev.ddpkit.chat.bench.FootprintCommand" \
  "--steps ${1:-100,250,500,1000} --modes chat,ddp,ddp-shared --shared-threads 2"
java -cp chat-sample/target/ddpkit.jar dev.ddpkit.chat.bench.FootprintCommand \
  --steps "${1:-100,250,500,1000}" --modes chat,ddp,ddp-shared --shared-threads 2
echo "uptime after: $(uptime)"
