#!/usr/bin/env bash
# bench_s3_keyspace.sh -- does a big keyspace slow durable writes down on
# S3? (key segments, docs/state-format.md "Key segments"; issue 9's S3 goal
# for keys of every type)
#
# A benchmark, not a test: it asserts nothing and prints figures. casq runs
# on S3 (Ceph RGW behind tests/s3/faultproxy.py adding PUT_MS per PUT). For
# each keyspace size (KEYSPACES, default "0 100000" job hashes of 10 fields,
# as RQ keeps a job: about 250 bytes of JSON each), a fresh casq on a fresh
# object gets the keys (preloaded without the added latency), seals them
# into key segments (default settings; the script waits until the root is
# small and no seal runs), then, with PUT_MS per PUT, at each of CLIENTS:
#
#   set    durable SET of 1,000 hot keys (redis-benchmark -t set -r 1000)
#   hset   durable HSET of one field of a preloaded job hash, over all of
#          them (HSET rq:job:__rand_int__ f0 ...): a change to a sealed key,
#          which leaves its segment (KEYSPACE > 0 only)
#
# and prints acknowledged writes/s, p50 and p99 (ms), p99 in PUT latencies,
# and casq's mean root bytes per commit while it ran (INFO root_bytes_mean
# x commits, before and after). Every write is acknowledged only once the
# commit holding it is durable on S3.
#
# The goal: with 100,000 job hashes, throughput >= 0.8x and p99 within
# 1.5x of the empty keyspace (a commit writes what changed, not the
# keyspace); without key segments every commit PUT the 25 MB keyspace.
#
# Knobs:
#   KEYSPACES="0 100000"   CLIENTS="100 1000"   PUT_MS=100
#   N=20000                requests per measurement (per client level)
#   VALUE_SIZE=32          SET/HSET value bytes
#   PORT_BASE=30700        casq's port (this script: 30700-30799)
#   PROXY_PORT=30790       the proxy's port
#   RGW_PORT=22480         an RGW answering there with the test
#                          credentials is reused, else one is started
#   CASQ_BIN=path          this casq-server binary (default
#                          build/release/casq-server, built if missing)
#   KEEP=1                 keep the work directory (logs)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KEYSPACES=${KEYSPACES:-"0 100000"}
CLIENTS=${CLIENTS:-"100 1000"}
PUT_MS=${PUT_MS:-100}
N=${N:-20000}
VALUE_SIZE=${VALUE_SIZE:-32}
PORT=${PORT_BASE:-30700}
PROXY_PORT=${PROXY_PORT:-30790}
export RGW_PORT=${RGW_PORT:-22480}
BUCKET=casq-bench
PY=/usr/bin/python3
CASQ_BUILT=${CASQ_BIN:-$ROOT/build/release/casq-server}
WORK=$(mktemp -d /tmp/casq-bench-s3ks.XXXXXX)
CASQ_PID=
PROXY_PID=
OWN_RGW=0

die() { echo "bench_s3_keyspace: $*" >&2; exit 1; }

cleanup() {
    [ -n "$CASQ_PID" ] && kill -9 "$CASQ_PID" 2>/dev/null
    if [ -n "$PROXY_PID" ]; then kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; fi
    [ "$OWN_RGW" = 1 ] && "$ROOT/tests/s3/rgw.sh" stop "$WORK/ceph" >/dev/null 2>&1
    if [ "${KEEP:-0}" = 1 ]; then echo "# work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
for t in redis-cli redis-benchmark curl; do command -v $t >/dev/null || die "$t not found"; done
$PY -c 'import redis' 2>/dev/null || die "$PY has no redis module (python3-redis)"

if [ -z "${CASQ_BIN:-}" ] && [ ! -x "$CASQ_BUILT" ]; then
    (cd "$ROOT" && make -j2 build/release/casq-server >/dev/null) || die "make failed"
fi
[ -x "$CASQ_BUILT" ] || die "no $CASQ_BUILT"
cp "$CASQ_BUILT" "$WORK/casq-server"
CASQ=$WORK/casq-server

# ------------------------------------------------------------------------
# RGW and the proxy
# ------------------------------------------------------------------------
ACCESS_KEY=casqtestaccesskey
SECRET_KEY=casqtestsecretkey0123456789abcdefghijkl
s3code() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X "$1" \
        --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "http://127.0.0.1:$RGW_PORT$2"
}
proxy() { curl -s --max-time 5 -X POST -d "$1" "http://127.0.0.1:$PROXY_PORT/__fault__" >/dev/null; }

if [ "$(s3code GET /)" = 200 ]; then
    echo "# reusing the RGW on 127.0.0.1:$RGW_PORT"
    export AWS_ACCESS_KEY_ID=$ACCESS_KEY AWS_SECRET_ACCESS_KEY=$SECRET_KEY AWS_REGION=us-east-1
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

# ------------------------------------------------------------------------
# casq
# ------------------------------------------------------------------------
info_field() { # field -> value from the running casq's INFO
    redis-cli -p "$PORT" INFO everything 2>/dev/null | tr -d '\r' | sed -n "s/^$1://p" | head -n 1
}

start_casq() { # n -> a fresh casq on a fresh object
    "$CASQ" --port "$PORT" --bind 127.0.0.1 --dir "$WORK" --maxclients 10100 \
        --store "s3://$BUCKET/bench-ks-$$-$1.json" --s3-endpoint "http://127.0.0.1:$PROXY_PORT" \
        >"$WORK/casq-$1.log" 2>&1 &
    CASQ_PID=$!
    for _ in $(seq 300); do
        [ "$(redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ] && return 0
        kill -0 "$CASQ_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$WORK/casq-$1.log" >&2
    die "casq did not start"
}

stop_casq() {
    kill "$CASQ_PID" 2>/dev/null
    for _ in $(seq 300); do kill -0 "$CASQ_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$CASQ_PID" 2>/dev/null
    wait "$CASQ_PID" 2>/dev/null
    CASQ_PID=
}

preload() { # count: job hashes rq:job:<12 digits> (redis-benchmark's __rand_int__ form)
    "$PY" - "$PORT" "$1" <<'EOF'
import redis, sys
r = redis.Redis(port=int(sys.argv[1]), socket_timeout=300)
n = int(sys.argv[2])
fields = {f"f{j}": "v" * 10 for j in range(10)}
for b in range(0, n, 2000):
    p = r.pipeline(transaction=False)
    for i in range(b, min(n, b + 2000)):
        p.hset(f"rq:job:{i:012d}", mapping=fields)
    p.execute()
EOF
}

# settle: waits until the keyspace is sealed (few keys inline, no seal
# running, the last root small).
settle() {
    local t0=$SECONDS
    for _ in $(seq 1200); do
        local inl r
        inl=$(info_field keys_inline)
        r=$(info_field root_bytes_last)
        [ "$(info_field key_segments_seal_in_progress)" = 0 ] && [ "${inl:-1}" -lt 1000 ] &&
            [ "${r:-0}" -lt 262144 ] && break
        redis-cli -p "$PORT" SET settle:tick 1 >/dev/null # a commit writes the smaller root
        sleep 0.5
    done
    echo "# keyspace $1 sealed in $((SECONDS - t0)) s: $(info_field key_segments) key segments," \
        "$(info_field key_segments_keys) keys in them, $(info_field keys_inline) inline," \
        "root $(info_field root_bytes_last) bytes" >&2
}

# rb clients test -> "rps p50 p99"
rb() {
    local c=$1 t=$2 v
    v=$(head -c "$VALUE_SIZE" /dev/zero | tr '\0' x)
    if [ "$t" = set ]; then
        redis-benchmark -p "$PORT" -c "$c" -n "$N" -r 1000 -d "$VALUE_SIZE" -t set --csv 2>/dev/null
    else
        redis-benchmark -p "$PORT" -c "$c" -n "$N" -r "$KS" --csv HSET 'rq:job:__rand_int__' f0 "$v" 2>/dev/null
    fi | tail -1 | awk -F'"' '{ print $4, $10, $14 }'
}

RESULTS=$WORK/results.txt
: >"$RESULTS"
n=0
for KS in $KEYSPACES; do
    n=$((n + 1))
    proxy '{"reset": true}'
    start_casq "$n"
    if [ "$KS" -gt 0 ]; then
        t0=$SECONDS
        preload "$KS"
        echo "# preloaded $KS job hashes in $((SECONDS - t0)) s" >&2
    fi
    settle "$KS"
    proxy "{\"put_delay_ms\": $PUT_MS}"
    for c in $CLIENTS; do
        for t in set hset; do
            [ "$t" = hset ] && [ "$KS" = 0 ] && continue
            c0=$(info_field commits) m0=$(info_field root_bytes_mean)
            read -r rps p50 p99 < <(rb "$c" "$t")
            c1=$(info_field commits) m1=$(info_field root_bytes_mean)
            root=$(awk -v c0="$c0" -v m0="$m0" -v c1="$c1" -v m1="$m1" \
                'BEGIN { printf "%.0f", (c1 > c0) ? (c1 * m1 - c0 * m0) / (c1 - c0) : 0 }')
            echo "$KS $c $t $rps $p50 $p99 $((c1 - c0)) $root" | tee -a "$RESULTS" >&2
        done
    done
    stop_casq
done

# ------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------
echo
printf '%-9s %8s %6s %10s %9s %9s %8s %9s %14s\n' keyspace clients cmd 'writes/s' p50_ms p99_ms 'p99/put' commits 'root B/commit'
while read -r ks c t rps p50 p99 commits root; do
    printf '%-9s %8s %6s %10.0f %9s %9s %8s %9s %14s\n' "$ks" "$c" "$t" "$rps" "$p50" "$p99" \
        "$(awk -v a="$p99" -v b="$PUT_MS" 'BEGIN { printf "%.2f", a / b }')" "$commits" "$root"
done <"$RESULTS"
set -- $KEYSPACES
first=$1
echo
for ks in $KEYSPACES; do
    [ "$ks" = "$first" ] && continue
    for c in $CLIENTS; do
        a=$(awk -v k="$ks" -v c="$c" '$1 == k && $2 == c && $3 == "set"' "$RESULTS")
        b=$(awk -v k="$first" -v c="$c" '$1 == k && $2 == c && $3 == "set"' "$RESULTS")
        [ -n "$a" ] && [ -n "$b" ] || continue
        set -- $a
        ra=$4 pa=$6
        set -- $b
        echo "SET at $c clients, keyspace $ks vs $first: throughput $(awk -v x="$ra" -v y="$4" 'BEGIN { printf "%.2f", x / y }')x," \
            "p99 $(awk -v x="$pa" -v y="$6" 'BEGIN { printf "%.2f", x / y }')x"
    done
done
