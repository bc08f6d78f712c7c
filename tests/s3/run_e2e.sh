#!/usr/bin/env bash
# run_e2e.sh -- casq-server end to end on a real S3 server (Ceph RGW),
# through the fault-injecting proxy: the guarantees of the file store, on S3.
#
#   tests/s3/run_e2e.sh [test ...]     all tests, or those named:
#       crash      the durability crash test (tests/durability) with
#                  --store s3://...: SIGKILL under load, >= 20 times
#       faults     each proxy fault under load (e2e_faults.py)
#       takeover   two casq processes on one object (e2e_takeover.py)
#       corrupt    start-up on a damaged object (e2e_corrupt.py)
#       keysegs    key segments on S3: sealing, faults on segment requests,
#                  a follower and take-overs mid-seal, damaged segments
#                  (e2e_keysegs.py)
#       chunksegs  chunk segments of a big list and sorted set on S3: sealing,
#                  faults on segment PUTs and GETs, draining, damaged
#                  segments, take-overs mid-seal, a node loading while the
#                  broker deletes segments (e2e_chunksegs.py)
#       quickstart docs/s3.md's Quick start, run as written (e2e_quickstart.sh)
#
# Starts RGW (tests/s3/rgw.sh; an RGW already answering on RGW_PORT with the
# test credentials is reused and left running) and the proxy (e2e_proxy.py:
# faultproxy.py + a record of the PUTs applied), stops what it started on
# exit whatever happens, and ends with the summed `N passed, N failed`.
#
# Environment: CASQ_BIN (default src/casq-server, built with make if
# missing), RGW_PORT (22480), E2E_PROXY_PORT (30481), E2E_PORT_BASE (30000)
# and E2E_PORT_COUNT (1000: casq servers use 30000-30999), S3_BUCKET
# (casq-e2e), KEEP=1 keeps the work directory (logs). The Ceph started
# here takes MON_V2_PORT, MON_V1_PORT, MS_PORT_MIN and MS_PORT_MAX from the
# environment too (tests/s3/rgw.sh).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/tests/s3"
PY=/usr/bin/python3
export RGW_PORT=${RGW_PORT:-22480}
PROXY_PORT=${E2E_PROXY_PORT:-30481}
export E2E_PORT_BASE=${E2E_PORT_BASE:-30000}
export CASQ_BIN=${CASQ_BIN:-$ROOT/src/casq-server}
BUCKET=${S3_BUCKET:-casq-e2e}
WORK=$(mktemp -d /tmp/casq-e2e.XXXXXX)
PROXY_PID=
OWN_RGW=0
TESTS=${*:-crash faults takeover corrupt keysegs chunksegs quickstart}

cleanup() {
    local rc=$?
    if [ -n "$PROXY_PID" ]; then
        kill "$PROXY_PID" 2>/dev/null
        wait "$PROXY_PID" 2>/dev/null
    fi
    [ "$OWN_RGW" = 1 ] && "$HERE/rgw.sh" stop "$WORK/ceph" >/dev/null 2>&1
    if [ "${KEEP:-0}" = 1 ]; then echo "# work directory kept: $WORK"; else rm -rf "$WORK"; fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "run_e2e: $*" >&2; exit 1; }

if [ ! -x "$CASQ_BIN" ]; then
    (cd "$ROOT" && make -j2 >/dev/null) || die "no $CASQ_BIN and make failed"
fi

# ------------------------------------------------------------------------
# RGW: reuse one that answers with the test credentials, else start ours
# ------------------------------------------------------------------------
ACCESS_KEY=casqtestaccesskey
SECRET_KEY=casqtestsecretkey0123456789abcdefghijkl
s3code() { # method path -> HTTP status
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X "$1" \
        --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "http://127.0.0.1:$RGW_PORT$2"
}
if [ "$(s3code GET /)" = 200 ]; then
    echo "# reusing the RGW already running on 127.0.0.1:$RGW_PORT"
    export S3_ENDPOINT=http://127.0.0.1:$RGW_PORT AWS_ACCESS_KEY_ID=$ACCESS_KEY \
        AWS_SECRET_ACCESS_KEY=$SECRET_KEY AWS_REGION=us-east-1
else
    OWN_RGW=1
    t0=$(date +%s%N)
    env_lines=$("$HERE/rgw.sh" start "$WORK/ceph") || die "could not start RGW"
    eval "$env_lines"
    echo "# RGW started at $S3_ENDPOINT in $((($(date +%s%N) - t0) / 1000000)) ms"
fi
code=$(s3code PUT "/$BUCKET")
[ "$code" = 200 ] || [ "$code" = 409 ] || die "creating bucket $BUCKET: HTTP $code"
export S3_BUCKET=$BUCKET

# ------------------------------------------------------------------------
# The proxy
# ------------------------------------------------------------------------
"$PY" "$HERE/e2e_proxy.py" --listen "127.0.0.1:$PROXY_PORT" --upstream "127.0.0.1:$RGW_PORT" \
    >"$WORK/proxy.log" 2>&1 &
PROXY_PID=$!
export FAULTPROXY=http://127.0.0.1:$PROXY_PORT
for _ in $(seq 100); do
    curl -s -o /dev/null --max-time 1 "$FAULTPROXY/__fault__" && break
    kill -0 "$PROXY_PID" 2>/dev/null || { cat "$WORK/proxy.log" >&2; die "proxy did not start"; }
    sleep 0.1
done

# ------------------------------------------------------------------------
# The tests
# ------------------------------------------------------------------------
test_cmd() {
    case "$1" in
    crash)    echo "$PY $HERE/e2e_crash.py" ;;
    faults)   echo "$PY $HERE/e2e_faults.py" ;;
    takeover) echo "$PY $HERE/e2e_takeover.py" ;;
    corrupt)  echo "$PY $HERE/e2e_corrupt.py" ;;
    keysegs)  echo "$PY $HERE/e2e_keysegs.py" ;;
    chunksegs) echo "$PY $HERE/e2e_chunksegs.py" ;;
    quickstart) echo "$HERE/e2e_quickstart.sh" ;;
    *)        return 1 ;;
    esac
}

total_pass=0
total_fail=0
summary=()
for t in $TESTS; do
    cmd=$(test_cmd "$t") || die "unknown test '$t'"
    echo "# ===== $t: $cmd"
    log="$WORK/$t.log"
    start=$(date +%s)
    $cmd 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        p=${line%% passed*}
        f=${line#*passed, }
        f=${f%% failed*}
    else
        p=0
        f=0
    fi
    # A test that died without reporting a failure still failed.
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
    [ -z "$line" ] && [ "$f" = 0 ] && f=1
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    summary+=("$(printf '%-10s %5d passed %3d failed  %4ds  (exit %s)' "$t" "$p" "$f" $(($(date +%s) - start)) "$rc")")
done

echo "# ===== summary"
for s in "${summary[@]}"; do echo "# $s"; done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
