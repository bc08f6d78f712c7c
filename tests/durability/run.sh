#!/usr/bin/env bash
# run.sh -- casq's durability tests (tests/durability/README in each test's
# docstring): crash under load, read-your-acknowledged-writes, unreadable
# documents, full disk, two brokers on one document, binary round trip.
#
#   tests/durability/run.sh              every test
#   tests/durability/run.sh crash binary only those (test_<name>.py)
#   CASQ_SERVER=path tests/durability/run.sh   another binary
#
# Uses Debian's python with redis-py (/usr/bin/python3) and ports
# 26100-26199. Ends with "N passed, N failed"; exits 1 if anything failed.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
export CASQ_SERVER=${CASQ_SERVER:-$ROOT/src/casq-server}

if [ ! -x "$CASQ_SERVER" ]; then
    echo "casq-server not found at $CASQ_SERVER (run make first)" >&2
    exit 1
fi
if ! "$PYTHON" -c 'import redis' 2>/dev/null; then
    echo "$PYTHON has no redis module (apt-get install python3-redis)" >&2
    exit 1
fi

tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    tests=(crash read_your_writes bad_documents full_disk two_brokers binary)
fi

passed=0
failed=0
skipped=0
for t in "${tests[@]}"; do
    script="$HERE/test_$t.py"
    echo "# --- $t"
    out=$(timeout 300 "$PYTHON" "$script" 2>&1)
    rc=$?
    echo "$out"
    p=$(grep -c '^ok - ' <<<"$out")
    f=$(grep -c '^FAIL - ' <<<"$out")
    s=$(grep -c '^SKIPPED - ' <<<"$out")
    # A script that died without reporting a failure is one.
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL - $t: exited with status $rc"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
done

[ $skipped -gt 0 ] && echo "# $skipped skipped (see SKIPPED lines)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
