#!/usr/bin/env bash
# run.sh -- runs the libFuzzer targets for FUZZ_SECONDS (default 60) each
# and reports like every other suite, one check per target:
#   fuzz_resp   the RESP parser (no crash, leak, UBSan report, timeout or
#               malformed reply)
#   fuzz_state  the state-document loader (no crash, leak or UBSan report;
#               every document it accepts is written back, and casq accepts
#               what it wrote)
#
#   tests/fuzz/run.sh [path/to/fuzz_resp]      (make fuzz builds both;
#                                               fuzz_state is looked for
#                                               beside fuzz_resp)
#
# New inputs go to build/fuzz/corpus and build/fuzz/corpus-state (kept
# between runs); a finding is saved as build/fuzz/crash-* / leak-* /
# timeout-* and printed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/fuzz/fuzz_resp}
SECS=${FUZZ_SECONDS:-60}
if [ ! -x "$BIN" ]; then
    echo "fuzzer not built: $BIN (make fuzz-build)"
    echo "0 passed, 1 failed"
    exit 1
fi
WORK=$ROOT/build/fuzz
mkdir -p "$WORK/corpus"
# The in-process server's document goes to tmpfs when there is one (cheap
# commits), in a directory removed when the run ends.
base=/tmp
if [ -d /dev/shm ] && [ -w /dev/shm ]; then base=/dev/shm; fi
FUZZ_TMP=$(mktemp -d "$base/casq-fuzz.XXXXXX")
trap 'rm -rf "$FUZZ_TMP"' EXIT
export TMPDIR=$FUZZ_TMP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
passed=0
failed=0
# runTarget NAME WHAT DICT CORPUS
runTarget() {
    local bin=$(dirname "$BIN")/$1
    if [ ! -x "$bin" ]; then
        echo "[err]: $1 not built ($bin: make fuzz-build)"
        failed=$((failed + 1))
        return
    fi
    mkdir -p "$WORK/$4"
    echo "# fuzzing $2 for $SECS s"
    "$bin" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=4096 -max_len=200000 -print_final_stats=1 \
        -artifact_prefix="$WORK/" -dict="$ROOT/tests/fuzz/$3" "$WORK/$4" "$ROOT/tests/fuzz/$4" 2>&1 |
        grep -av -e '^#[0-9].*\(NEW\|REDUCE\|pulse\)' -e '^"' -e 'ecommended dictionary'
    local rc=${PIPESTATUS[0]}
    if [ "$rc" = 0 ]; then
        echo "[ok]: $1 ran $SECS s and found nothing"
        passed=$((passed + 1))
    else
        echo "[err]: $1 exited with status $rc (artifacts in $WORK)"
        failed=$((failed + 1))
    fi
}
runTarget fuzz_resp "the RESP parser" resp.dict corpus
runTarget fuzz_state "the state-document loader" state.dict corpus-state
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
