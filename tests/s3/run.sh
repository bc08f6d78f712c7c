#!/usr/bin/env bash
# run.sh -- the S3 store's tests against a real S3 server (Ceph RGW), directly
# and through the fault-injecting proxy.
#
#   tests/s3/run.sh                 build tests/s3/store_test, run it
#   VALGRIND=1 tests/s3/run.sh      ... under valgrind (fails on leaks/errors)
#   STORE_TEST=path tests/s3/run.sh run an already built driver
#
# Starts a throw-away Ceph + radosgw (tests/s3/rgw.sh) and faultproxy.py,
# stops both on exit whatever happens, exits with the driver's status.
# Ports: RGW_PORT (22480), PROXY_PORT (22481), Ceph's in 22300-22899.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/tests/s3"
export RGW_PORT=${RGW_PORT:-22480}
PROXY_PORT=${PROXY_PORT:-22481}
PYTHON=/usr/bin/python3
DIR=$(mktemp -d /tmp/casq-s3test.XXXXXX)
PROXY_PID=

cleanup() {
    local rc=$?
    if [ -n "$PROXY_PID" ]; then
        kill "$PROXY_PID" 2>/dev/null || true
        wait "$PROXY_PID" 2>/dev/null || true
    fi
    "$HERE/rgw.sh" stop "$DIR/ceph" || true
    rm -rf "$DIR"
    exit $rc
}
trap cleanup EXIT INT TERM

# Build the driver (the Makefile may do this instead and pass STORE_TEST).
if [ -z "${STORE_TEST:-}" ]; then
    STORE_TEST="$DIR/store_test"
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror -g -I"$ROOT/src" -o "$STORE_TEST" \
        "$HERE/store_test.c" "$ROOT/src/store_s3.c" "$ROOT/src/sds.c" "$ROOT/src/zmalloc.c" \
        $(pkg-config --cflags --libs libcurl libevent)
fi

start_ms=$(($(date +%s%N) / 1000000))
eval "$("$HERE/rgw.sh" start "$DIR/ceph")"
echo "# RGW up at $S3_ENDPOINT in $(($(date +%s%N) / 1000000 - start_ms)) ms"

"$PYTHON" "$HERE/faultproxy.py" --listen "127.0.0.1:$PROXY_PORT" --upstream "127.0.0.1:$RGW_PORT" \
    >"$DIR/faultproxy.log" 2>&1 &
PROXY_PID=$!
export FAULTPROXY="http://127.0.0.1:$PROXY_PORT"
for _ in $(seq 50); do
    curl -s -o /dev/null --max-time 1 "$FAULTPROXY/__fault__" && break
    kill -0 "$PROXY_PID" 2>/dev/null || { cat "$DIR/faultproxy.log" >&2; exit 1; }
    sleep 0.1
done

if [ -n "${VALGRIND:-}" ]; then
    valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --error-exitcode=99 "$STORE_TEST"
else
    "$STORE_TEST"
fi
