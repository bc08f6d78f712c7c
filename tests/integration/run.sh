#!/usr/bin/env bash
# run.sh -- every integration test with real clients (and real job
# frameworks: frameworks.py runs Celery and RQ), one after the other.
#
#   tests/integration/run.sh [name ...]     e.g. run.sh redis_cli bad_input
#   CASQ_SERVER=redis tests/integration/run.sh   the same against redis-server
#   CASQ_BIN=build/san/casq-server tests/integration/run.sh
#   INTEGRATION_SKIP="frameworks" tests/integration/run.sh   all but those
#
# Each test starts its own server on a free port in 28000-28999 and ends
# with `N passed, N failed`; this script sums them into its own last line
# and exits non-zero if anything failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
ALL="redis_cli redis_benchmark python_client ioredis_client bullmq bad_input tls frameworks"
tests=${*:-$ALL}
for s in ${INTEGRATION_SKIP:-}; do
    tests=$(printf '%s\n' $tests | grep -vx "$s" | tr '\n' ' ')
done
passed=0
failed=0
for t in $tests; do
    echo "=== integration: $t"
    log=$(mktemp)
    start=$(date +%s)
    "$PY" "$HERE/$t.py" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    rm -f "$log"
    if [ -z "$line" ]; then
        echo "[err]: $t ended without a summary line (exit $rc)"
        failed=$((failed + 1))
        continue
    fi
    p=${line%% passed*}
    f=${line#*passed, }
    f=${f%% failed*}
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        echo "[err]: $t exited with status $rc"
        failed=$((failed + 1))
    fi
    echo "=== $t: $line ($(($(date +%s) - start)) s)"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
