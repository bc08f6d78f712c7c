#!/usr/bin/env bash
# run.sh -- casq's durability tests (tests/durability/README in each test's
# docstring): crash under load, read-your-acknowledged-writes, unreadable
# documents, commits that borrow stream texts while commands change them,
# full disk, two brokers on one document, forwarding and
# failover between nodes, binary round trip.
#
#   tests/durability/run.sh              every test
#   tests/durability/run.sh crash binary only those (test_<name>.py)
#   CASQ_SERVER=path tests/durability/run.sh   another binary
#
# Uses Debian's python with redis-py (/usr/bin/python3) and ports
# 26100-26199 (test_failover.py: 27600-27699, test_priority.py:
# 30700-30799). Ends with "N passed, N
# failed"; exits 1 if anything failed.
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
    # Every test_<name>.py here, after the file store's own C test.
    tests=(store_file)
    for f in "$HERE"/test_*.py; do
        n=${f##*/test_}
        tests+=("${n%.py}")
    done
fi

# The file store's own test is C: built here (VALGRIND=1 runs it under
# valgrind, failing on leaks and memory errors).
run_store_file() {
    local bin
    bin=$(mktemp /tmp/casq-store-file-test.XXXXXX)
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -I"$ROOT/src" -o "$bin" \
        "$HERE/store_file_test.c" "$ROOT/src/store_file.c" "$ROOT/src/store.c" "$ROOT/src/bio.c" "$ROOT/src/sds.c" \
        "$ROOT/src/setcpuaffinity.c" \
        "$ROOT/src/zmalloc.c" $(pkg-config --cflags --libs libevent) -lz -lpthread || { rm -f "$bin"; return 1; }
    if [ -n "${VALGRIND:-}" ]; then
        valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 "$bin"
    else
        "$bin"
    fi
    local rc=$?
    rm -f "$bin"
    return $rc
}

passed=0
failed=0
skipped=0
for t in "${tests[@]}"; do
    echo "# --- $t"
    t0=$(date +%s)
    if [ "$t" = store_file ]; then
        out=$(run_store_file 2>&1)
        rc=$?
        out=$(grep -v ' passed, .* failed$' <<<"$out")
    else
        out=$(timeout 300 "$PYTHON" "$HERE/test_$t.py" 2>&1)
        rc=$?
    fi
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
    echo "# --- $t: $p passed, $f failed in $(($(date +%s) - t0)) s"
done

[ $skipped -gt 0 ] && echo "# $skipped skipped (see SKIPPED lines)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
