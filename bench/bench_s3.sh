#!/usr/bin/env bash
# bench_s3.sh -- acknowledged XADD throughput and latency, casq on S3 (Ceph
# RGW behind a proxy that adds 100 ms or 200 ms per PUT) next to casq on the
# local file store, at 10, 100 and 1000 concurrent clients.
#
# A benchmark, not a test: it asserts nothing, it prints figures (and says
# whether the goal of issue 5 is met: at 1000 clients and 200 ms per PUT,
# >= 4000 acknowledged XADD/s with p99 <= 3 PUT latencies). See
# bench/README.md ("s3") for what is measured and how to read it.
#
# Every client runs a closed loop (bench/xadd_load.c): XADD, wait for the
# reply, XADD again. casq replies only once the group commit holding the
# entry is durable, so XADD/s is the rate of durable, acknowledged writes.
# Each measurement gets a fresh casq and a fresh document.
#
# Environment knobs:
#   CLIENTS="10 100 1000"     concurrency levels
#   CONFIGS="file s3-100 s3-200"  stores: file = local file store (in WORK,
#                             on disk), s3-<ms> = RGW through the proxy with
#                             <ms> added per PUT
#   DURATION=10 WARMUP=3      seconds measured / warm-up per measurement
#   MAXLEN=0                  > 0: XADD ... MAXLEN ~ N (keeps the document
#                             small, as a queue whose jobs get consumed)
#   VALUE_SIZE=32             bytes per job payload
#   BACKLOG=0                 > 0: the stream XADD writes to (bench:s3)
#                             already holds this many ~100-byte entries when
#                             casq starts (a document written inline and
#                             sealed into segments by casq before the
#                             measurement: issue 9's "1M backlog" case)
#   PORT_BASE=30600           casq port (range of this script: 30600-30699)
#   PROXY_PORT=30690          the proxy's port
#   RGW_PORT=22480            an RGW answering there with the test
#                             credentials is reused, else one is started
#   NO_BUILD=1                use build/release/casq-server as it is
#   CASQ_BIN=path             benchmark this casq-server binary (no build)
#   KEEP=1                    keep the work directory (logs, raw results)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLIENTS=${CLIENTS:-"10 100 1000"}
CONFIGS=${CONFIGS:-"file s3-100 s3-200"}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
MAXLEN=${MAXLEN:-0}
VALUE_SIZE=${VALUE_SIZE:-32}
BACKLOG=${BACKLOG:-0}
PORT=${PORT_BASE:-30600}
PROXY_PORT=${PROXY_PORT:-30690}
export RGW_PORT=${RGW_PORT:-22480}
BUCKET=casq-bench
PY=/usr/bin/python3
CASQ_BUILT=${CASQ_BIN:-$ROOT/build/release/casq-server}
LOAD=$ROOT/build/bench/xadd_load
WORK=$(mktemp -d /tmp/casq-bench-s3.XXXXXX)
CASQ_PID=
PROXY_PID=
OWN_RGW=0

die() { echo "bench_s3: $*" >&2; exit 1; }

cleanup() {
    [ -n "$CASQ_PID" ] && kill -9 "$CASQ_PID" 2>/dev/null
    if [ -n "$PROXY_PID" ]; then kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; fi
    [ "$OWN_RGW" = 1 ] && "$ROOT/tests/s3/rgw.sh" stop "$WORK/ceph" >/dev/null 2>&1
    if [ "${KEEP:-0}" = 1 ]; then echo "# work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1000 clients + casq's own descriptors.
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# ------------------------------------------------------------------------
# Build (the release binary, copied so a rebuild cannot change it mid-run)
# ------------------------------------------------------------------------
if [ "${NO_BUILD:-0}" != 1 ] && [ -z "${CASQ_BIN:-}" ]; then
    (cd "$ROOT" && make -j2 build/release/casq-server >/dev/null) || die "make failed (NO_BUILD=1 to skip)"
fi
[ -x "$CASQ_BUILT" ] || die "no $CASQ_BUILT"
cp "$CASQ_BUILT" "$WORK/casq-server"
CASQ=$WORK/casq-server
mkdir -p "$(dirname "$LOAD")"
if [ ! -x "$LOAD" ] || [ "$ROOT/bench/xadd_load.c" -nt "$LOAD" ]; then
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$LOAD" "$ROOT/bench/xadd_load.c" \
        $(pkg-config --cflags --libs hiredis libevent) || die "building xadd_load failed"
fi

# ------------------------------------------------------------------------
# RGW and the proxy, only if an S3 configuration is asked for
# ------------------------------------------------------------------------
ACCESS_KEY=casqtestaccesskey
SECRET_KEY=casqtestsecretkey0123456789abcdefghijkl
s3code() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X "$1" \
        --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "http://127.0.0.1:$RGW_PORT$2"
}
proxy() { curl -s --max-time 5 -X POST -d "$1" "http://127.0.0.1:$PROXY_PORT/__fault__" >/dev/null; }

if [[ " $CONFIGS " == *" s3-"* ]]; then
    if [ "$(s3code GET /)" = 200 ]; then
        echo "# reusing the RGW on 127.0.0.1:$RGW_PORT"
        export AWS_ACCESS_KEY_ID=$ACCESS_KEY AWS_SECRET_ACCESS_KEY=$SECRET_KEY
    else
        OWN_RGW=1
        env_lines=$("$ROOT/tests/s3/rgw.sh" start "$WORK/ceph") || die "could not start RGW"
        eval "$env_lines"
    fi
    code=$(s3code PUT "/$BUCKET")
    [ "$code" = 200 ] || [ "$code" = 409 ] || die "creating bucket $BUCKET: HTTP $code"
    "$PY" "$ROOT/tests/s3/faultproxy.py" --listen "127.0.0.1:$PROXY_PORT" --upstream "127.0.0.1:$RGW_PORT" \
        >"$WORK/proxy.log" 2>&1 &
    PROXY_PID=$!
    for _ in $(seq 100); do
        curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PROXY_PORT/__fault__" && break
        sleep 0.1
    done
fi

# ------------------------------------------------------------------------
# One measurement
# ------------------------------------------------------------------------
info_field() { # field -> value from the running casq's INFO
    redis-cli -p "$PORT" INFO everything 2>/dev/null | tr -d '\r' | sed -n "s/^$1://p" | head -n 1
}

start_casq() { # config -> starts casq, sets CASQ_PID
    local cfg=$1 n=$2 store
    case "$cfg" in
    file) store="$WORK/data-$n/queue.json"; mkdir -p "$WORK/data-$n" ;;
    s3-*) store="s3://$BUCKET/bench-$$-$n.json"
          [ "$BACKLOG" -gt 0 ] && put_backlog "/$BUCKET/bench-$$-$n.json"
          proxy "{\"reset\": true, \"put_delay_ms\": ${cfg#s3-}}" ;;
    esac
    [ "$cfg" = file ] && [ "$BACKLOG" -gt 0 ] && gen_backlog "$store"
    local args=(--port "$PORT" --bind 127.0.0.1 --dir "$WORK" --maxclients 10100 --store "$store")
    [[ "$cfg" == s3-* ]] && args+=(--s3-endpoint "http://127.0.0.1:$PROXY_PORT")
    "$CASQ" "${args[@]}" >"$WORK/casq-$n.log" 2>&1 &
    CASQ_PID=$!
    for _ in $(seq 300); do
        [ "$(redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ] && return 0
        kill -0 "$CASQ_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$WORK/casq-$n.log" >&2
    die "casq ($cfg) did not start"
}

# gen_backlog PATH: a format 2 document whose stream bench:s3 holds
# $BACKLOG entries (fields p <100 bytes>).
gen_backlog() {
    "$PY" - "$1" "$BACKLOG" <<'EOF2'
import sys
path, n = sys.argv[1], int(sys.argv[2])
base, value = 1700000000000, "x" * 100
with open(path, "w") as f:
    f.write('{"format":2,"commit_seq":1,"databases":[{"id":0,"keys":[{"key":"bench:s3","type":"stream","stream":'
            '{"length":%d,"last_id":"%d-0","first_id":"%d-0","max_deleted_id":"0-0","entries_added":%d,'
            '"entries":[' % (n, base + n - 1, base, n))
    for i in range(n):
        f.write('%s["%d-0","p","%s"]' % ("," if i else "", base + i, value))
    f.write('],"groups":[]}}]}]}\n')
EOF2
}

# put_backlog /bucket/key: the same document, PUT straight to RGW.
put_backlog() {
    gen_backlog "$WORK/backlog.json"
    curl -s -o /dev/null -w '%{http_code}' -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" \
        --user "$ACCESS_KEY:$SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
        --data-binary "@$WORK/backlog.json" "http://127.0.0.1:$RGW_PORT$1" | grep -q 200 || die "PUT backlog failed"
}

# settle: waits until casq has sealed the backlog (its root small again).
settle() {
    [ "$BACKLOG" -gt 0 ] || return 0
    for _ in $(seq 1200); do
        local r; r=$(info_field root_bytes_last)
        [ "$(info_field segments_seal_in_progress)" = 0 ] && [ "${r:-0}" -lt 1048576 ] && [ "${r:-0}" -gt 0 ] && break
        sleep 0.5
    done
    echo "# backlog $BACKLOG sealed: $(info_field segments) segments, root $(info_field root_bytes_last) bytes" >&2
}

stop_casq() {
    kill "$CASQ_PID" 2>/dev/null
    for _ in $(seq 300); do kill -0 "$CASQ_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$CASQ_PID" 2>/dev/null
    wait "$CASQ_PID" 2>/dev/null
    CASQ_PID=
}

kv() { # key line -> value of key=value in line
    local k=$1 line=$2
    sed -n "s/.*\b$k=\([^ ]*\).*/\1/p" <<<"$line"
}

RESULTS=$WORK/results.txt
: >"$RESULTS"
n=0
for cfg in $CONFIGS; do
    for c in $CLIENTS; do
        n=$((n + 1))
        start_casq "$cfg" "$n"
        settle
        out=$("$LOAD" -p "$PORT" -c "$c" -d "$DURATION" -w "$WARMUP" -s "$VALUE_SIZE" -m "$MAXLEN" \
              2>>"$WORK/load-$n.err")
        commits=$(info_field commits)
        batch=$(info_field commit_avg_batch)
        docsize=$(info_field document_bytes)
        stop_casq
        echo "$cfg $c $out commits=${commits:-?} batch=${batch:-?} doc_bytes=${docsize:-?}" | tee -a "$RESULTS" >&2
    done
done

# ------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------
echo
printf '%-8s %8s %8s %12s %10s %10s %10s %10s %8s\n' store put_ms clients 'XADD/s' p50_ms p99_ms 'p99/put' batch errors
while read -r cfg c rest; do
    put=0
    [[ "$cfg" == s3-* ]] && put=${cfg#s3-}
    rate=$(kv xadd_per_sec "$rest"); p50=$(kv p50_ms "$rest"); p99=$(kv p99_ms "$rest")
    err=$(( $(kv errors "$rest") + $(kv lost_connections "$rest") ))
    ratio=-
    [ "$put" != 0 ] && ratio=$(awk -v a="$p99" -v b="$put" 'BEGIN { printf "%.2f", a / b }')
    printf '%-8s %8s %8s %12s %10s %10s %10s %10s %8s\n' "${cfg%%-*}" "$put" "$c" "$rate" "$p50" "$p99" "$ratio" \
        "$(kv batch "$rest")" "$err"
done <"$RESULTS"

goal=$(awk '$1 == "s3-200" && $2 == 1000' "$RESULTS")
if [ -n "$goal" ]; then
    rate=$(kv xadd_per_sec "$goal"); p99=$(kv p99_ms "$goal")
    verdict=$(awk -v r="$rate" -v p="$p99" 'BEGIN { print (r >= 4000 && p <= 600) ? "MET" : "NOT MET" }')
    echo
    echo "goal (1000 clients, 200 ms/PUT: >= 4000 XADD/s, p99 <= 600 ms): $verdict ($rate XADD/s, p99 $p99 ms)"
fi
