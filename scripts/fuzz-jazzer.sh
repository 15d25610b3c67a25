#!/usr/bin/env bash
# Coverage-guided fuzzing with Jazzer: runs one @FuzzTest in fuzzing mode (JAZZER_FUZZ=1) for a
# number of executions, in a JVM of its own, and prints libFuzzer's final status lines.
#   scripts/fuzz-jazzer.sh                    # every target, 1,000,000 executions each
#   scripts/fuzz-jazzer.sh decode             # one target, 1,000,000 executions
#   scripts/fuzz-jazzer.sh client 200000 600  # 200,000 executions or 600 s, whichever comes first
# Targets: decode, ejson (ddp-client: DecodingJazzerTest), client (ClientHandlingJazzerTest),
# server (chat-sample/chat-server: ServerSessionJazzerTest). Without a third argument the time limit is 4 h.
# The corpus the fuzzer grows is kept in <module>/.cifuzz-corpus/ (not committed) and reused by
# the next run. A crash fails the build and leaves its input in the target's Inputs directory
# under src/test/resources: from then on the CI build runs it as a regression test, so fix the bug
# and commit the input with the fix. JAZZER_INSTRUMENT overrides the classes instrumented for
# coverage (default: ours and Jackson's parser). A test's @Timeout is the limit per input here
# (libFuzzer's -timeout, a hang is a finding); JUnit's own timeout, which would end the whole run,
# is switched off.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-all}"
runs="${2:-1000000}"
seconds="${3:-14400}"
instrument="${JAZZER_INSTRUMENT:-dev.ddpkit.**,com.fasterxml.jackson.core.**}"

run() {
  local name="$1" module="$2" test="$3"
  local log="$module/target/fuzz-jazzer-$name.log"
  mkdir -p "$module/target"
  echo "== $name: $test, up to $runs executions or $seconds s (log: $log)"
  local start status=0
  start=$(date +%s)
  JAZZER_FUZZ=1 mvn -B -pl "$module" -am verify -Djazzer.only=true \
    -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
    -Djazzer.instrument="$instrument" \
    -Djunit.jupiter.execution.timeout.mode=disabled \
    -Djazzer.internal.arg.0=fake_argv0 \
    -Djazzer.internal.arg.1=-runs="$runs" \
    -Djazzer.internal.arg.2=-max_total_time="$seconds" \
    -Djazzer.internal.arg.3=-print_final_stats=1 >"$log" 2>&1 || status=$?
  # libFuzzer's status lines and final stats, from the build log or the test's output file.
  grep -h -E '^#[0-9]+[[:space:]]+(DONE|INITED)|^Done [0-9]+ runs|^stat::|^== Java Exception|^INFO: using inputs' \
    "$log" "$(find "$module/target/surefire-reports" -name "*${test%%#*}*-output.txt" | head -1)" \
    2>/dev/null | awk '!seen[$0]++' || true
  grep -E 'Tests run:|BUILD|ERROR\]' "$log" | grep -v 'Tests run: 0' | tail -4 || true
  echo "== $name: $(( $(date +%s) - start )) s, exit $status"
  return "$status"
}

ddp=dev.ddpkit.ddp.fuzz
case "$target" in
  decode) run decode ddp-client "$ddp.DecodingJazzerTest#framesParseOrFailWithAProtocolError" ;;
  ejson) run ejson ddp-client "$ddp.DecodingJazzerTest#ejsonDecodesOrFailsWithAnEjsonException" ;;
  client) run client ddp-client "$ddp.ClientHandlingJazzerTest#serverFramesNeverBreakTheClient" ;;
  server) run server chat-sample/chat-server \
    "dev.ddpkit.chat.server.ServerSessionJazzerTest#framesFromOneSessionNeverBreakTheServer" ;;
  all)
    rc=0
    for t in decode ejson client server; do
      "$0" "$t" "$runs" "$seconds" || rc=1
    done
    exit "$rc"
    ;;
  *) echo "unknown target: $target (decode, ejson, client, server, all)" >&2; exit 2 ;;
esac
