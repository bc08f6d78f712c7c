#!/usr/bin/env bash
# run.sh -- runs the RESP parser fuzzer for FUZZ_SECONDS (default 60) and
# reports like every other suite: `1 passed, 0 failed` if libFuzzer found
# nothing (no crash, leak, UBSan report, timeout or malformed reply).
#
#   tests/fuzz/run.sh [path/to/fuzz_resp]      (make fuzz builds it)
#
# New inputs go to build/fuzz/corpus (kept between runs); a finding is saved
# as build/fuzz/crash-* / leak-* / timeout-* and printed.
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
echo "# fuzzing the RESP parser for $SECS s"
"$BIN" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=4096 -max_len=200000 -print_final_stats=1 \
    -artifact_prefix="$WORK/" -dict="$ROOT/tests/fuzz/resp.dict" "$WORK/corpus" "$ROOT/tests/fuzz/corpus" 2>&1 |
    grep -av -e '^#[0-9].*\(NEW\|REDUCE\|pulse\)' -e '^"' -e 'ecommended dictionary'
rc=${PIPESTATUS[0]}
if [ "$rc" = 0 ]; then
    echo "[ok]: fuzz_resp ran $SECS s and found nothing"
    echo "1 passed, 0 failed"
else
    echo "[err]: fuzz_resp exited with status $rc (artifacts in $WORK)"
    echo "0 passed, 1 failed"
fi
[ "$rc" = 0 ]
