#!/usr/bin/env bash
# Reruns the headline measures of BENCHMARKS.md (or RELIABILITY.md) and prints the page's summary
# table from what they printed, so that updating the page is a rerun, not an edit:
#   scripts/bench-table.sh                       # the quick measures of BENCHMARKS.md (~10 min)
#   scripts/bench-table.sh all                   # every measure of BENCHMARKS.md (~30 min)
#   scripts/bench-table.sh throughput sim-hints  # the named measures only
#   scripts/bench-table.sh --page reliability    # the quick measures of RELIABILITY.md
#   scripts/bench-table.sh --page reliability all   # with the 10-minute chaos run, the long fuzz
#                                                # runs and the chaos hour (~2.5 h)
#   scripts/bench-table.sh --list                # the measures of both pages
#   scripts/bench-table.sh --reparse throughput  # the table again from the kept outputs, no run
# Each measure's full output is kept in target/bench-table/<measure>.txt (quote it from there);
# the table goes to stdout. A figure the script could not read from the output prints as "?".
# BENCH_LOCK=<file> runs each measure under `flock <file>`, so that no two benchmarks run at once
# on a shared machine (the locks are taken one measure at a time, and released between them).
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=${DDPKIT_JAR:-chat-sample/target/ddpkit.jar}
OUT=target/bench-table
mkdir -p "$OUT"
ROWS=()

BENCH_QUICK="throughput sim-hints sweep footprint recovery"
BENCH_ALL="throughput jmh footprint recovery blip real-hints real-wave demo sim-real sim-speed sim-hints sweep sweep-1m rooms"
REL_QUICK="chaos-short flapping security"
REL_ALL="chaos-short flapping security chaos-10m fuzz jazzer chaos-hour abuse"

# One row of the page's table; SECTION (set by each measure) is its link to the detail section.
row() { ROWS+=("| $1 | $2 | $3 | $4 | ${SECTION:-} | $5 |"); }

# Runs a measure's command (under BENCH_LOCK if set) into target/bench-table/<name>.txt.
run() {
  local name=$1; shift
  if [ -n "${REPARSE:-}" ]; then
    return
  fi
  echo "== $name: $* ($(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/'))" >&2
  if [ -n "${BENCH_LOCK:-}" ]; then
    flock "$BENCH_LOCK" "$@" >"$OUT/$name.txt" 2>&1 || echo "== $name: exit status $?" >&2
  else
    "$@" >"$OUT/$name.txt" 2>&1 || echo "== $name: exit status $?" >&2
  fi
}

# x / y with two decimals, or "?" when either is missing.
ratio() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { gsub(",", "", a); gsub(",", "", b);
  if (a == "" || b == "" || b + 0 == 0) print "?"; else printf "%.2fx", a / b }'; }
orq() { [ -n "${1:-}" ] && echo "$1" || echo "?"; }

build() {
  [ -n "${BUILT:-}${REPARSE:-}" ] && return
  echo "== build" >&2
  mvn -B -q -pl benchmarks,chat-sample/chat-app -am package -DskipTests >&2
  BUILT=1
}

# ---- BENCHMARKS.md ----

m_throughput() {
  SECTION="[3b](#3b-end-to-end-over-loopback-side-by-side-with-node-ddp-clients)"
  run throughput env SKIP_JMH=1 JAVA_MODES=default scripts/bench-throughput.sh
  local f=$OUT/throughput.txt
  # The backlog table: consumer, messages, msgs/s, drain ms, cpu ms/1000 msgs.
  local back; back=$(sed -n '/^backlog (consumers frozen/,/^load:/p' "$f")
  local java_rate java_cpu peer peer_rate peer_cpu
  java_rate=$(echo "$back" | awk '/java ddpkit/ { print $(NF-2); exit }')
  java_cpu=$(echo "$back" | awk '/java ddpkit/ { print $NF; exit }')
  IFS='|' read -r peer peer_rate peer_cpu < <(echo "$back" | awk '/^  node / { r = $(NF-2);
    gsub(",", "", r); if (r + 0 > best) { best = r + 0; name = $2 " " $3; cpu = $NF } }
    END { print name "|" best "|" cpu }')
  # The ratios as the benchmark prints them (from its unrounded figures), else computed here.
  local line rate_x cpu_x
  line=$(echo "$back" | grep -F "ratio ddpkit" | grep -F "/ node ${peer:-?}" | head -1)
  rate_x=$(echo "$line" | sed -n 's/.*msgs\/s x\([0-9.]*\),.*/\1x/p')
  cpu_x=$(echo "$line" | sed -n 's/.*cpu per message x\([0-9.]*\).*/\1x/p')
  row "inbound drain, backlog of 20,000 room events over loopback: msgs/s (\`ChatClient\`, default; heap touched at start)" \
    "$(orq "$java_rate")" "fastest Node peer: \`${peer:-?}\`, $(orq "$peer_rate")" \
    "${rate_x:-$(ratio "$java_rate" "$peer_rate")}" "\`SKIP_JMH=1 JAVA_MODES=default scripts/bench-throughput.sh\`"
  row "same run: process CPU per 1,000 messages" "$(orq "$java_cpu") ms" \
    "\`${peer:-?}\` $(orq "$peer_cpu") ms" "${cpu_x:-$(ratio "$java_cpu" "$peer_cpu")}" "same"
  local live; live=$(sed -n '/^live (consumers receive/,/^backlog/p' "$f" |
    awk '/ratio ddpkit/ { v = $0; sub(/.*msgs\/s x/, "", v); sub(/,.*/, "", v); print "x" v }' | paste -sd/ -)
  row "live: msgs/s received while the server stores them" "the server's rate" \
    "each Node peer's in the same run" "$(orq "$live")" "same"
}

m_jmh() {
  SECTION="[3a](#3a-in-memory-jmh)"
  build
  run jmh java -jar benchmarks/target/benchmarks.jar 'dev.ddpkit.bench.throughput.InboundBenchmark' \
    -f 1 -wi 10 -i 5 -w 2s -r 2s
  local f=$OUT/jmh.txt parse deliver
  parse=$(awk '/InboundBenchmark.parseOnly / { print $4 }' "$f")
  deliver=$(awk '/InboundBenchmark.deliverOnEventLoop:delivered / { print $4 }' "$f")
  row "in memory: frames parsed / messages delivered per second, one client" \
    "$(orq "$parse") / $(orq "$deliver")" "the parse alone" "$(ratio "$parse" "$deliver") the parse's cost" \
    "\`scripts/bench-throughput.sh\` (its JMH part)"
  local streamed
  streamed=$(awk '/InboundBenchmark.parseStreamedChat / { print $4 }' "$f")
  row "in memory: a room event read from its tokens (nothing but the chat values built) against the tree parse, frames/s" \
    "$(orq "$streamed")" "\`parseOnly\` $(orq "$parse")" "$(ratio "$streamed" "$parse")" "same"
}

m_blip() {
  SECTION="[9](#9-a-network-blip-ddp-session-resumption)"
  build
  run blip java -cp "$JAR" dev.ddpkit.chat.bench.BlipCommand --clients 1000 --rooms 10 --gaps 2000,2000,2000,20000
  local f=$OUT/blip.txt on off late
  # resume gap cut resumed frames calls subs cpu all-live after-open(p50/p99/max us) rtt p99/rtt lost held/expired
  # probes probe-after-open(p50/max us) probe-own-rtt(p50/max us) probe-ratio(p50/max) probes-resumed
  # Of the 2 s waves of each mode, the one of median server CPU (field 8).
  median_wave() { awk -v m="$1" '$1 == m && $2 == 2000' "$f" | sort -k8,8n \
    | awk '{ w[NR] = $0 } END { if (NR) print w[int((NR + 1) / 2)] }'; }
  on=$(median_wave on)
  off=$(median_wave off)
  late=$(awk '$1 == "on" && $2 == 20000' "$f")
  local f_on f_off cpu_on cpu_off live_on live_off
  f_on=$(echo "$on" | awk '{ print $5 " / " $6 " / " $7 }')
  f_off=$(echo "$off" | awk '{ print $5 " / " $6 " / " $7 }')
  cpu_on=$(echo "$on" | awk '{ print $8 }'); cpu_off=$(echo "$off" | awk '{ print $8 }')
  live_on=$(echo "$on" | awk '{ printf "%.1f", $9 / 1000 }'); live_off=$(echo "$off" | awk '{ printf "%.1f", $9 / 1000 }')
  row "a 2 s network blip (every socket reset, server up), 1,000 clients in 10 rooms, session resumption on: frames in / method calls / subscriptions the server handled per client for the reconnect" \
    "$(orq "$f_on")" "off: $(orq "$f_off")" "$(ratio "$(echo "$on" | awk '{ print $5 }')" "$(echo "$off" | awk '{ print $5 }')") the frames" \
    "\`java -cp chat-sample/target/ddpkit.jar dev.ddpkit.chat.bench.BlipCommand --clients 1000 --rooms 10\` (the 2 s wave of median server CPU of three)"
  # The last field: the server's CPU after the network's return (the reconnects alone).
  local ret_on ret_off
  ret_on=$(echo "$on" | awk '{ print $NF }'); ret_off=$(echo "$off" | awk '{ print $NF }')
  row "same: the server's CPU for the wave, from the cut / after the network's return; every client live and caught up after the network's return" \
    "$(orq "$cpu_on") / $(orq "$ret_on") ms; $(orq "$live_on") s" "off: $(orq "$cpu_off") / $(orq "$ret_off") ms; $(orq "$live_off") s" \
    "$(ratio "$cpu_on" "$cpu_off") / $(ratio "$ret_on" "$ret_off"); $(ratio "$live_on" "$live_off")" "same"
  # Fields 16-18: the probes (clients in a JVM of their own): open -> live, their own connect
  # round trip, and the ratio of the two, p50/max.
  local probe_on probe_off
  probe_on=$(echo "$on" | awk '{ split($18, q, "/"); printf "%.2fx / %.2fx", q[1], q[2] }')
  probe_off=$(echo "$off" | awk '{ split($18, q, "/"); printf "%.2fx / %.2fx", q[1], q[2] }')
  local probe_rtt
  probe_rtt=$(echo "$on" | awk '{ split($17, q, "/"); printf "%.1f", q[1] / 1000 }')
  row "same, resumed, 10 clients in a JVM of their own: live after the socket opened, over the client's own \`connect\` round trip ($(orq "$probe_rtt") ms at the median), p50 / max" \
    "$(orq "$probe_on")" "off: $(orq "$probe_off")" "target 1.2x" "same"
  row "a 20 s blip, past the 15 s grace: sessions held / expired; subscriptions / messages lost" \
    "$(orq "$(echo "$late" | awk '{ print $14 "; " $13 }')")" "every session expired, nothing lost" "" "same"
}

m_footprint() {
  SECTION="[4](#4-client-footprint)"
  run footprint scripts/bench-footprint.sh 100,1000
  local f=$OUT/footprint.txt chat ddp
  chat=$(awk '/^mode chat:/ { m = 1 } m && $1 == 1000 { print $5 " KiB, " $3 " threads"; exit }' "$f")
  ddp=$(awk '/^mode ddp:/ { m = 1 } m && $1 == 1000 { print $5 " KiB, " $3 " threads"; exit }' "$f")
  row "heap and threads per idle connected \`ChatClient\`, 1,000 clients" "$(orq "$chat")" \
    "Java-WebSocket's 2 threads" "" "\`scripts/bench-footprint.sh\`"
  row "same, a bare \`DdpClient\`" "$(orq "$ddp")" "same" "" "same"
}

m_recovery() {
  SECTION="[5a](#5a-every-room-stream-ready-again-after-a-reconnect-against-the-round-trip)"
  run recovery scripts/bench-recovery.sh
  local f=$OUT/recovery.txt proxied last rtt rounds halfopen
  proxied=$(sed -n '/through a proxy/,/per-drop/p' "$f")
  last=$(echo "$proxied" | sed -n 's/.*last of 100 ready: *median \([0-9.]*\) ms.*/\1/p')
  rtt=$(echo "$proxied" | sed -n 's/.*round trip, trivial method: *median \([0-9.]*\) ms.*/\1/p')
  rounds=$(echo "$proxied" | awk '/recovery \/ method round trip/ { print $6 }')
  row "100 room streams ready again after a reconnect, $(orq "$rtt") ms round trip" "$(orq "$last") ms" \
    "one round trip" "$(orq "$rounds") round trips" "\`scripts/bench-recovery.sh\`"
  # interval timeout median min max expected /interval /expected, one line per setting
  local late
  halfopen=$(awk '$1 ~ /ms$/ && $6 ~ /ms$/ && NF == 8 { v = $NF + 0;
      if (min == "" || v < min) min = v; if (v > max) max = v }
    END { if (min != "") printf "%.2f-%.2fx", min, max }' "$f")
  late=$(awk '$1 ~ /ms$/ && $6 ~ /ms$/ && NF == 8 { d = $3 - ($6 + 0);
      if (lo == "" || d < lo) lo = d; if (d > hi) hi = d }
    END { if (lo != "") printf "interval + timeout, +%.1f to +%.1f ms at the median", lo, hi }' "$f")
  SECTION="[5b](#5b-half-open-detection-against-the-heartbeat)"
  row "half-open socket found (median of each heartbeat setting)" "$(orq "$late")" \
    "interval + timeout" "$(orq "$halfopen")" "same"
}

# Prints "p100 x-limit" of each policy of the summary table of a real herd (the last table).
real_rows() {
  awk '/all policies:/ { delete t; n = 0 } $1 ~ /^(fixed|rfc|full-jitter)$/ && $9 ~ /^[0-9.]+$/ {
      t[$1] = $7 } $1 == "limit" { limit = $6 }
    /Limit D \+ N\/C = / && limit == "" { l = $0; sub(/.*Limit D \+ N\/C = /, "", l); sub(/ s.*/, "", l); limit = l }
    END { if (limit == "") { print "?|?|?"; exit }
      printf "%s / %s / %s s|%s|", t["fixed"], t["rfc"], t["full-jitter"], limit;
      printf "%.2fx / %.2fx / %.2fx", t["fixed"] / limit, t["rfc"] / limit, t["full-jitter"] / limit }' "$1"
}

m_real_hints() {
  SECTION="[7](#7-server-paced-recovery-on-real-sockets-herd---real---hints---planned-and-the-demo)"
  build
  local base="java -jar $JAR herd --real --clients 1000 --capacity 200 --downtime-ms 3000"
  run real-warm $base --hints --warm-up
  run real-dark $base --hints
  run real-planned $base --planned
  local r
  IFS='|' read -r a l q <<<"$(real_rows "$OUT/real-warm.txt")"
  row "real sockets, 1,000 clients, C = 200/s, D = 3 s, hints, next server warming up through D: all back, fixed / RFC / full jitter" \
    "$a" "limit D + N/C = $l s" "$q" "\`java -jar $JAR herd --real --clients 1000 --capacity 200 --downtime-ms 3000 --hints --warm-up\`"
  IFS='|' read -r a l q <<<"$(real_rows "$OUT/real-dark.txt")"
  row "same, server dark for D" "$a" "$l s" "$q" "\`... --hints\`"
  IFS='|' read -r a l q <<<"$(real_rows "$OUT/real-planned.txt")"
  r=$(awk '$1 ~ /^(fixed|rfc|full-jitter)$/ && $9 ~ /^[0-9.]+$/ { print $9 }' \
    "$OUT/real-planned.txt" | sort -u | paste -sd/ -)
  row "same, planned restart: all back; dials per client" "$a; $(orq "$r")" "$l s; 1.00" "$q" "\`... --planned\`"
  r=$(cat "$OUT/real-warm.txt" "$OUT/real-dark.txt" | grep -o 'peak accepts in one wall-clock second [0-9]*' |
    awk '{ print $NF }' | sort -n | uniq | paste -sd, -)
  row "same runs with hints: the server's busiest wall-clock second" "$(orq "$r")" "C = 200" "" "the first two commands"
}

m_real_wave() {
  SECTION="[1](#1-the-reconnect-wave-on-real-sockets)"
  build
  run real-wave java -jar "$JAR" herd --real --clients 1000 --capacity 200 --downtime-ms 3000 \
    --policy fixed,rfc,full-jitter --hints off --cap-ms 120000 --bucket-ms 500 --seed 42
  IFS='|' read -r a l q <<<"$(real_rows "$OUT/real-wave.txt")"
  row "real sockets, same wave, hints off: all back, fixed / RFC / full jitter" "$a" "$l s" "$q" \
    "\`scripts/bench-herd-real.sh 1000 200 3000\`"
}

m_demo() {
  SECTION="[7](#7-server-paced-recovery-on-real-sockets-herd---real---hints---planned-and-the-demo)"
  build
  run demo java -jar "$JAR" demo --restart all
  local f=$OUT/demo.txt t q
  t=$(grep -E '^  (planned restart|hard kill)' "$f" | sed 's/.*all back \([0-9.]*\) s after the restart.*/\1/' | paste -sd/ -)
  q=$(grep -E '^  (planned restart|hard kill)' "$f" | sed 's/^[^(]*(\([0-9.]*x\)).*/\1/' | paste -sd/ -)
  row "\`demo --restart all\`, 200 clients: all back after the planned restart / hard kill / hard kill with a warming server ($(grep -c '^RESULT: OK' "$f") of 1 OK)" \
    "$(orq "$t") s" "N/C = 2.0 s" "$(orq "$q")" "\`java -jar $JAR demo --restart all\`"
}

m_sim_real() {
  SECTION="[2](#2-the-simulation-at-scale)"
  m_real_wave
  SECTION="[2](#2-the-simulation-at-scale)"
  build
  run sim-real-on java -jar "$JAR" herd --real --clients 1000 --capacity 200 --downtime-ms 3000 \
    --policy rfc,full-jitter --hints on --cap-ms 120000 --bucket-ms 500 --seed 42
  for h in off on; do
    run "sim-wave-$h" java -jar "$JAR" herd --clients 1000 --capacity 200 --downtime-ms 3000 \
      --policy rfc,full-jitter --bucket-ms 500 --seed 42 --hints "$h"
  done
  # sim / real for p50, p99 and attempts, rfc and full jitter, hints off and on: the range of each.
  local ranges
  ranges=$(for h in off on; do
      real=$OUT/real-wave.txt; [ "$h" = on ] && real=$OUT/sim-real-on.txt
      awk -v h="$h" 'FNR == 1 { file++ } file == 1 && /all policies:/ { m = 1 }
        file == 1 && m && ($1 == "rfc" || $1 == "full-jitter") && $9 ~ /^[0-9.]+$/ { r50[$1] = $3; r99[$1] = $5; ra[$1] = $9 }
        file == 2 && ($1 == "rfc" || $1 == "full-jitter") && $8 ~ /^[0-9.]+$/ {
          print $2 / r50[$1], $4 / r99[$1], $8 / ra[$1] }' "$real" "$OUT/sim-wave-$h.txt"
    done | awk '{ for (i = 1; i <= 3; i++) { if (n == 0 || $i < lo[i]) lo[i] = $i; if ($i > hi[i]) hi[i] = $i } n++ }
      END { if (n) printf "%.2f-%.2f / %.2f-%.2f / %.2f-%.2f", lo[1], hi[1], lo[2], hi[2], lo[3], hi[3] }')
  row "simulation against the real wave (jittered curves, hints off and on): p50 / p99 / dials" "sim" \
    "real run" "$(orq "$ranges")" "\`scripts/bench-herd-sim.sh\` and \`scripts/bench-herd-real.sh\`"
}

# "wall; CPU; resident" of a `/usr/bin/time -v ... herd` output: the wall and process CPU time that
# herd prints for its run, and the JVM's maximum resident set.
sim_cost() {
  awk -F': ' '/^run time/ { split($0, t, " "); wall = t[4]; cpu = t[7] }
    /Maximum resident set size/ { rss = $2 }
    END { printf "%s s wall, %s s CPU; %d MB", wall, cpu, rss / 1024 }' "$1"
}

m_sim_speed() {
  SECTION="[2b](#2b-speed-and-memory-1000000-and-10000000-clients)"
  build
  local args=(herd --clients 1000000 --capacity 20000 --downtime-ms 10000 --policy full-jitter)
  run sim-speed /usr/bin/time -v java -jar "$JAR" "${args[@]}"
  local ours peer="" q=""
  ours=$(sim_cost "$OUT/sim-speed.txt")
  if [ -n "${SIM_BASELINE_JAR:-}" ]; then
    # The same run on an older jar (SIM_BASELINE_JAR=<jar>), right after: the ratios of one session.
    run sim-speed-baseline /usr/bin/time -v java -jar "$SIM_BASELINE_JAR" "${args[@]}"
    peer="$(basename "$SIM_BASELINE_JAR"): $(sim_cost "$OUT/sim-speed-baseline.txt")"
    q=$(paste -d' ' <(sim_cost "$OUT/sim-speed.txt") <(sim_cost "$OUT/sim-speed-baseline.txt") |
      awk '{ printf "%.3fx / %.3fx / %.3fx", $1 / $9, $4 / $12, $7 / $15 }')
  fi
  row "simulation, 1,000,000 clients, C = 20,000/s, D = 10 s, full jitter: wall; process CPU; resident set" \
    "$(orq "$ours")" "${peer:-target: 10 s wall, 1 GB}" "$q" "\`/usr/bin/time -v java -jar $JAR ${args[*]}\`"
  local big=(herd --clients 10000000 --capacity 200000 --downtime-ms 10000 --policy full-jitter)
  run sim-10m /usr/bin/time -v java -jar "$JAR" "${big[@]}"
  row "same, 10,000,000 clients, C = 200,000/s" "$(orq "$(sim_cost "$OUT/sim-10m.txt")")" "it runs" "" \
    "\`/usr/bin/time -v java -jar $JAR ${big[*]}\`"
}

# "p100 p100 p100|limit|ratios" of a simulation table; the ratios as herd prints them when it does
# (its appointment lines, from the exact times), else computed from the rounded table.
sim_rows() {
  awk '$1 ~ /^(fixed|rfc|full-jitter)$/ && $3 == "s" { t[$1] = $6 } $1 == "physical" { limit = $7 }
    $1 ~ /^(fixed|rfc|full-jitter)$/ && $2 ~ /x$/ && $4 == "answered/client" { x[$1] = $2 }
    END { printf "%s / %s / %s s|%s|", t["fixed"], t["rfc"], t["full-jitter"], limit;
      if (length(x) == 3) printf "%s / %s / %s", x["fixed"], x["rfc"], x["full-jitter"];
      else printf "%.2fx / %.2fx / %.2fx", t["fixed"] / limit, t["rfc"] / limit, t["full-jitter"] / limit }' "$1"
}

m_sim_hints() {
  SECTION="[6](#6-server-paced-recovery-a-retry-after-is-an-appointment-simulation)"
  build
  local base="java -jar $JAR herd --clients 10000 --capacity 500 --downtime-ms 5000"
  run sim-dark $base --hints
  run sim-warm $base --hints --warm-up
  run sim-planned $base --planned
  IFS='|' read -r a l q <<<"$(sim_rows "$OUT/sim-dark.txt")"
  row "simulation, 10,000 clients, C = 500/s, D = 5 s, hints, server dark for D: all back, fixed / RFC / full jitter" \
    "$a" "limit $l s" "$q" "\`$base --hints\`"
  IFS='|' read -r a l q <<<"$(sim_rows "$OUT/sim-warm.txt")"
  local answered
  answered=$(awk '$2 ~ /x$/ && $4 == "answered/client" { print $3 }' "$OUT/sim-warm.txt" | paste -sd/ -)
  row "same, server warming up through D: all back; dials the server answered per client" \
    "$a; $(orq "$answered")" "$l s; 1.00" "$q" "\`... --hints --warm-up\`"
  IFS='|' read -r a l q <<<"$(sim_rows "$OUT/sim-planned.txt")"
  answered=$(awk '$1 ~ /^(fixed|rfc|full-jitter)$/ && $3 == "s" { print $8 }' "$OUT/sim-planned.txt" | paste -sd/ -)
  row "same, planned restart: all back; dials per client" "$a; $(orq "$answered")" "$l s; 1.00" "$q" "\`... --planned\`"
  local peak
  peak=$(cat "$OUT/sim-dark.txt" "$OUT/sim-warm.txt" | awk '$6 == "admitted/s" { print $5 }' | sort -n | uniq | paste -sd, -)
  SECTION="[6b](#6b-the-peak-limit-never-more-than-c-in-any-second)"
  row "same runs with hints: most admitted in any sliding second" "$(orq "$peak")" "C = 500" "" "the \`--hints\` commands"
}

# "RFC's figures|the front's fastest|ratios" of the sweep table of one hint setting ("hints on").
sweep_rows() {
  local f=$1 hints=$2 part best rfc b r q
  part=$(awk -v h="$hints;" '/^Herd:/ { m = index($0, h) > 0 } m' "$f")
  best=$(echo "$part" | awk '/^curve/ { m = 1; next } m && NF >= 6 { print; exit }')
  rfc=$(echo "$part" | awk '/^rfc 1 s\/60 s/ { print; exit }')
  # A curve's line: its name, then time "s", x limit, peak/C, dials/client (the last five fields).
  b=$(echo "$best" | awk '{ n = $1; for (i = 2; i <= NF - 5; i++) n = n " " $i;
    printf "%s: %s s, %s C, %s", n, $(NF-4), $(NF-1), $NF }')
  r=$(echo "$rfc" | awk '{ printf "%s s, peak %s C, %s dials", $(NF-4), $(NF-1), $NF }')
  q=$(printf '%s\n%s\n' "$rfc" "$best" | awk 'NR == 1 { t = $(NF-4); p = $(NF-1); d = $NF }
    NR == 2 { printf "%.2fx / %.1fx / %.2fx", t / $(NF-4), p / $(NF-1), d / $NF }')
  echo "$(orq "$r")|$(orq "$b")|$(orq "$q")"
}

m_sweep() {
  SECTION="[6](#6-server-paced-recovery-a-retry-after-is-an-appointment-simulation)"
  build
  run sweep java -jar "$JAR" herd --sweep --hints both
  IFS='|' read -r r b q <<<"$(sweep_rows "$OUT/sweep.txt" "hints on")"
  row "\`herd --sweep\`, 21 curves, hints on: the RFC preset against the front's fastest" "$r" \
    "$b" "$q" "\`java -jar $JAR herd --sweep --hints both\`"
}

m_sweep_1m() {
  SECTION="[2c](#2c-which-curve-herd---sweep-at-10000-and-1000000-clients)"
  build
  local args=(herd --sweep --hints both --clients 1000000 --capacity 20000 --downtime-ms 10000)
  run sweep-1m /usr/bin/time -v java -jar "$JAR" "${args[@]}"
  local f=$OUT/sweep-1m.txt cost h
  cost=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
    for (i = 1; i <= n; i++) s = s * 60 + p[i]; w = s } /User time/ { u = $2 } /System time/ { y = $2 }
    /Maximum resident set size/ { m = $2 } END { printf "%.0f s wall, %.0f s CPU; %d MB", w, u + y, m / 1024 }' "$f")
  row "\`herd --sweep\` at 1,000,000 clients (C = 20,000/s, D = 10 s), 21 curves x hints off and on: the whole run" \
    "$(orq "$cost")" "" "" "\`/usr/bin/time -v java -jar $JAR ${args[*]}\`"
  for h in off on; do
    IFS='|' read -r r b q <<<"$(sweep_rows "$f" "hints $h")"
    row "same, hints $h: the RFC preset against the front's fastest" "$r" "$b" "$q" "same"
  done
}

m_rooms() {
  SECTION="[8](#8-a-reconnect-in-100-rooms-within-rocketchats-limits)"
  local cmd=(mvn -B verify -pl chat-sample/chat-client -am -Djacoco.skip=true -Djazzer.skip=true
    -Dsurefire.failIfNoSpecifiedTests=false -Dtest=HundredRoomsReconnectTest)
  run rooms-10 "${cmd[@]}"
  run rooms-100 "${cmd[@]}" -Dddpkit.changedRooms=100
  local a b
  a=$(cat "$OUT/rooms-10.txt" chat-sample/chat-client/target/surefire-reports/*HundredRooms*-output.txt 2>/dev/null |
    grep -o 'reconnect: 100 rooms, 10 changed.*' | head -1)
  b=$(cat "$OUT/rooms-100.txt" chat-sample/chat-client/target/surefire-reports/*HundredRooms*-output.txt 2>/dev/null |
    grep -o 'reconnect: 100 rooms, 100 changed.*' | head -1)
  local t q
  t=$(printf '%s\n%s\n' "$a" "$b" | sed -n 's/.*caught up \([0-9.]*\) s after.*/\1/p' | paste -sd/ -)
  q=$(printf '%s\n%s\n' "$a" "$b" | sed -n 's/.*(x\([0-9.]*\)).*/\1x/p' | paste -sd/ -)
  row "a reconnect in 100 rooms under Rocket.Chat's default limits, 10 / 100 rooms changed: every room live and caught up" \
    "$(orq "$t") s" "least the limits allow: 20.0 / 90.0 s" "$(orq "$q")" \
    "\`${cmd[*]} [-Dddpkit.changedRooms=100]\`"
}

# ---- RELIABILITY.md ----

# The chaos report's figures: written / acknowledged / stored, deliveries, settled.
chaos_rows() {
  local f=$1 label=$2 cmd=$3
  local w a s d once dup miss settled
  w=$(awk '/^messages written/ { print $3; exit }' "$f")
  a=$(awk '/^messages acknowledged/ { print $3; exit }' "$f")
  s=$(awk '/^messages stored/ { print $3; exit }' "$f")
  d=$(awk '/^deliveries expected/ { print $3; exit }' "$f")
  once=$(awk '/^  exactly once/ { print $3; exit }' "$f")
  dup=$(awk '/^  duplicates/ { print $2; exit }' "$f")
  miss=$(awk '/^  missing/ { print $2; exit }' "$f")
  settled=$(awk '/^settled/ { print $4 " " $5; exit }' "$f")
  row "$label: messages written / acknowledged / stored" "$(orq "$w") / $(orq "$a") / $(orq "$s")" \
    "every one" "$(ratio "$s" "$w")" "$cmd"
  row "same run: deliveries exactly once (missing, duplicated)" "$(orq "$once") ($(orq "$miss"), $(orq "$dup"))" \
    "$(orq "$d") expected" "$(ratio "$once" "$d")" "same"
  row "same run: settled after the faults stopped" "$(orq "$settled")" "settle limit 60 s" "" "same"
}

chaos_cmd() {
  local duration=$1
  echo mvn -B -pl chat-sample/chat-app -am verify -Djacoco.skip=true -Djazzer.skip=true \
    -Dtest=ChaosTest -Dsurefire.failIfNoSpecifiedTests=false -Dchaos.duration="$duration"
}

chaos_report() {
  sed -n '/==== chaos run report ====/,/^==========================$/p' \
    chat-sample/chat-app/target/surefire-reports/dev.ddpkit.chat.reliability.ChaosTest-output.txt 2>/dev/null >>"$1" || true
}

m_chaos_short() {
  SECTION="[tests](#the-tests-and-what-each-one-proves)"
  # shellcheck disable=SC2046
  run chaos-short $(chaos_cmd 30s)
  chaos_report "$OUT/chaos-short.txt"
  chaos_rows "$OUT/chaos-short.txt" "short chaos run (50 clients, 30 s, 10 restarts)" "\`$(chaos_cmd 30s)\`"
}

# The abuse run (issue 23): every phase's pass, the p99 and heap ranges, the client side's close.
m_abuse() {
  SECTION="[abuse run](#the-abuse-run-issue-23)"
  run abuse scripts/abuse.sh
  local f="$OUT/abuse.txt" phases passed p99 heap client
  phases=$(grep -cE ' (PASS|FAIL)$' "$f" || true)
  passed=$(grep -cE ' PASS$' "$f" || true)
  p99=$(awk '$NF ~ /^(PASS|FAIL)$/ && $(NF-5) ~ /^[0-9]+$/ { v = $(NF-3); if (min == "" || v < min) min = v; if (v > max) max = v } END { print min "-" max }' "$f")
  heap=$(awk '$NF ~ /^(PASS|FAIL)$/ && $(NF-5) ~ /^[0-9]+$/ { v = $(NF-2); if (min == "" || v < min) min = v; if (v > max) max = v } END { print min "-" max }' "$f")
  client=$(sed -n 's/.*\(client closed with [0-9]* after [0-9]* MiB streamed\).*/\1/p' "$f" | head -1)
  row "abuse run: phases passed (server up, 0 lost, p99 < 2 s, heap bounded); p99 ms; heap after GC MiB; client side" \
    "$(orq "$passed") of $(orq "$phases"); $(orq "$p99"); $(orq "$heap"); $(orq "$client")" \
    "every phase; 1009 before 32 MiB" "" "\`flock /work/bench.lock scripts/abuse.sh\`"
}

m_chaos_10m() {
  SECTION="[10 minutes](#our-last-long-run-10-minutes-200-restarts-nothing-lost-nothing-duplicated)"
  # shellcheck disable=SC2046
  run chaos-10m $(chaos_cmd 10m)
  chaos_report "$OUT/chaos-10m.txt"
  chaos_rows "$OUT/chaos-10m.txt" "ten-minute chaos run (50 clients, 200 restarts)" "\`$(chaos_cmd 10m)\`"
}

m_chaos_hour() {
  SECTION="[the hour](#the-hour-at-1000-clients-issue-12)"
  run chaos-hour scripts/chaos-long.sh
  chaos_rows "$OUT/chaos-hour.txt" "chaos hour at 1,000 clients (40 restarts, rate limits on)" "\`scripts/chaos-long.sh\`"
}

m_flapping() {
  SECTION="[tests](#the-tests-and-what-each-one-proves)"
  run flapping mvn -B verify -pl ddp-client -am -Djacoco.skip=true -Djazzer.skip=true \
    -Dsurefire.failIfNoSpecifiedTests=false -Dtest=FlappingServerTest
  local line
  line=$(cat "$OUT/flapping.txt" $(find . -path '*surefire-reports*' -name '*FlappingServerTest*-output.txt' 2>/dev/null) 2>/dev/null |
    grep -o 'flapping server: [0-9]* connections in [A-Z0-9]* (curve allows [0-9.]*)' | head -1)
  local n bound
  n=$(echo "$line" | awk '{ print $3 }')
  bound=$(echo "$line" | sed -n 's/.*allows \([0-9.]*\)).*/\1/p')
  row "flapping server (accepts, then drops on the first call), default RFC curve: dials in 60 s" \
    "$(orq "$n")" "the curve's bound: $(orq "$bound")" "" "\`mvn -B verify\` (\`FlappingServerTest\`)"
}

m_security() {
  SECTION="[what was tried](#what-was-tried)"
  run security mvn -B verify -pl chat-sample/chat-app -am -Djacoco.skip=true -Djazzer.skip=true \
    -Dsurefire.failIfNoSpecifiedTests=false '-Dtest=ServerHostileInputTest,WssTest,SecretsNeverLoggedTest,AuthRulesTest'
  local t
  for t in ServerHostileInputTest WssTest SecretsNeverLoggedTest AuthRulesTest; do
    local res
    res=$(grep -E "Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+.* in .*\\.$t\$" "$OUT/security.txt" |
      tail -1 | sed 's/.*Tests run: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 run, \2 failed, \3 errors/')
    row "\`$t\`" "$(orq "$res")" "0 failed" "" "\`mvn -B verify\`"
  done
}

m_fuzz() {
  SECTION="[counts](#counts)"
  run fuzz scripts/fuzz-long.sh
  local total
  total=$(awk '/^total inputs:/ { print $3 }' "$OUT/fuzz.txt")
  row "seeded fuzzing of the client's decoder and message handling" "$(orq "$total") inputs, $(grep -c 'status=SUCCESSFUL' "$OUT/fuzz.txt") properties passed" \
    "$(grep -c 'status=' "$OUT/fuzz.txt") properties" "" "\`scripts/fuzz-long.sh\`"
}

m_jazzer() {
  SECTION="[Jazzer](#coverage-guided-fuzzing-jazzer)"
  run jazzer scripts/fuzz-jazzer.sh
  local n done
  n=$(grep -cE '^#[0-9]+[[:space:]]+DONE' "$OUT/jazzer.txt" || true)
  done=$(grep -E '^Done [0-9]+ runs' "$OUT/jazzer.txt" | awk '{ s += $2 } END { print s + 0 }')
  row "coverage-guided fuzzing (Jazzer), 4 targets" "$done executions, $n targets done" "4 targets" "" "\`scripts/fuzz-jazzer.sh\`"
}

# ---- driver ----

page=benchmarks
if [ "${1:-}" = --reparse ]; then
  REPARSE=1; shift
fi
if [ "${1:-}" = --list ]; then
  echo "BENCHMARKS.md: $BENCH_ALL (quick: $BENCH_QUICK)"
  echo "RELIABILITY.md (--page reliability): $REL_ALL (quick: $REL_QUICK)"
  exit 0
fi
if [ "${1:-}" = --page ]; then
  page=$2; shift 2
fi
case "$page" in
  benchmarks) quick=$BENCH_QUICK; all=$BENCH_ALL ;;
  reliability) quick=$REL_QUICK; all=$REL_ALL ;;
  *) echo "unknown page: $page (benchmarks, reliability)" >&2; exit 2 ;;
esac
if [ $# -eq 0 ]; then
  set -- $quick
elif [ "$1" = all ]; then
  set -- $all
fi
for m in "$@"; do
  case " $all " in
    *" $m "*) ;;
    *) echo "unknown measure for $page: $m (scripts/bench-table.sh --list)" >&2; exit 2 ;;
  esac
done
if [ "$page" = benchmarks ]; then build; fi
bash scripts/bench-machine.sh >&2
for m in "$@"; do
  "m_${m//-/_}"
done
echo
echo "Measured $(date -u +%F) on $(nproc) cores; outputs in $OUT/."
echo
echo "| measure | ours | peer or limit | ratio | section | command |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
