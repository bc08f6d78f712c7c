#!/usr/bin/env bash
# run_diffs.sh -- casq's differential tests: every tests/*_diff.py (random
# commands sent to casq and to redis-server, replies compared), one after
# the other, each on its own port range. Arguments are passed to each.
#
# Ends with the summed "N passed, N failed"; exits 1 if any script failed
# or died without a summary.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
passed=0
failed=0
base=23000
for t in "$HERE"/*_diff.py; do
    echo "# --- ${t##*/}"
    out=$(STREAM_DIFF_BASE_PORT=$base DIFF_BASE_PORT=$base "$PY" "$t" "$@" 2>&1)
    rc=$?
    echo "$out" | tail -n 40
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL - ${t##*/}: no summary line (exit $rc)"
        failed=$((failed + 1))
    else
        p=${line%% passed*}
        f=${line#*, }
        f=${f%% failed}
        passed=$((passed + p))
        failed=$((failed + f))
        if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
            echo "FAIL - ${t##*/}: exited with status $rc"
            failed=$((failed + 1))
        fi
    fi
    base=$((base + 200))
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
