#!/usr/bin/env bash
# bench_set.sh -- casq vs redis-server on sets, in the same run.
#
# A benchmark, not a test: it asserts nothing, it prints figures.
#
# Servers (started by this script on free ports, killed on exit):
#   redis       redis-server --save '' --appendonly no          (in memory)
#   redis-aof   redis-server --appendonly yes --appendfsync always (on disk)
#   casq        casq, state document on local disk (every write reply waits
#               for an fsynced group commit)
#
# Measured with redis-benchmark (CLIENTS connections, requests per second):
#   reads   SISMEMBER / SRANDMEMBER / SCARD on a 100k-member set, SMEMBERS
#           of a 100-member set: casq vs redis (in memory)
#   writes  SADD of random members to a 100k-member set, SPOP: casq vs
#           redis-aof (both durable before replying)
#   memory  INFO used_memory growth per member for MEMBERS members
#           ("member:N" strings: a hashtable), for 500 integers (an
#           intset), and for MEMBERS/10 sets of 10 strings (listpacks in
#           Redis 7.2, hashtables in 7.0) and of 10 integers (intsets),
#           key names included: casq vs redis
#           (SETTLE=3 seconds after loading, as casq seals quiet keys into key segments)
# Ratios are casq / redis (throughput: >1 is better for casq; memory: <1).
#
# Environment: N=100000 requests per read run, WN=20000 per write run,
# CLIENTS=50, MEMBERS=200000, PORT_BASE=26960 (range 26960-26999),
# CASQ_BIN=path (default build/release/casq-server), KEEP=1 keeps the work
# directory.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-100000}
WN=${WN:-20000}
CLIENTS=${CLIENTS:-50}
MEMBERS=${MEMBERS:-200000}
PORT_BASE=${PORT_BASE:-26960}
CASQ=${CASQ_BIN:-$ROOT/build/release/casq-server}
[ -x "$CASQ" ] || { echo "bench_set: no casq binary at $CASQ (make first)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "bench_set: redis-server not found" >&2; exit 1; }
command -v redis-benchmark >/dev/null || { echo "bench_set: redis-benchmark not found" >&2; exit 1; }

WORK=$(mktemp -d /tmp/casq-bench-set.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ "${KEEP:-0}" = 1 ] && echo "work directory: $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
    local p=$1
    while [ "$p" -lt $((PORT_BASE + 100)) ]; do
        if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "$p"; return; fi
        p=$((p + 1))
    done
    echo "bench_set: no free port" >&2; exit 1
}

wait_up() {
    for _ in $(seq 1 200); do
        redis-cli -p "$1" ping 2>/dev/null | grep -q PONG && return 0
        sleep 0.05
    done
    echo "bench_set: server on port $1 did not start" >&2; exit 1
}

P_REDIS=$(free_port "$PORT_BASE")
mkdir -p "$WORK/redis" "$WORK/aof" "$WORK/casq"
redis-server --port "$P_REDIS" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/redis" \
    >"$WORK/redis.log" 2>&1 & PIDS+=($!)
wait_up "$P_REDIS"
P_AOF=$(free_port $((P_REDIS + 1)))
redis-server --port "$P_AOF" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always \
    --dir "$WORK/aof" >"$WORK/aof.log" 2>&1 & PIDS+=($!)
wait_up "$P_AOF"
P_CASQ=$(free_port $((P_AOF + 1)))
"$CASQ" --port "$P_CASQ" --bind 127.0.0.1 --dir "$WORK/casq" >"$WORK/casq.log" 2>&1 & PIDS+=($!)
wait_up "$P_CASQ"

# rps PORT N COMMAND...: requests per second of one redis-benchmark run
rps() {
    local port=$1 n=$2
    shift 2
    redis-benchmark -p "$port" -n "$n" -c "$CLIENTS" -r 100000 -q "$@" 2>/dev/null |
        tr '\r' '\n' | grep -Eo '[0-9.]+ requests per second' | tail -1 | awk '{print $1}'
}

# load PORT KEY COUNT PREFIX: SADD COUNT members PREFIX<i>, 1000 per command
load() {
    awk -v key="$2" -v n="$3" -v pfx="$4" 'BEGIN {
        for (i = 0; i < n; i += 1000) {
            m = (n - i < 1000) ? n - i : 1000
            printf "*%d\r\n$4\r\nSADD\r\n$%d\r\n%s\r\n", m + 2, length(key), key
            for (j = i; j < i + m; j++) { s = pfx j; printf "$%d\r\n%s\r\n", length(s), s }
        }
    }' | redis-cli -p "$1" --pipe >/dev/null
}

used() { redis-cli -p "$1" info memory | tr -d '\r' | awk -F: '$1 == "used_memory" {print $2}'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

row() { printf "%-36s %14s %14s %8s\n" "$@"; }

for p in "$P_REDIS" "$P_AOF" "$P_CASQ"; do
    load "$p" big 100000 "member:"
    load "$p" small 100 "m"
done

echo "bench_set: casq $("$CASQ" --version 2>/dev/null | head -1), $(redis-server --version | awk '{print $3}')"
echo "clients $CLIENTS; reads $N requests, writes $WN requests"
echo
row "reads (requests/s)" "redis" "casq" "casq/redis"
for cmd in "SISMEMBER big member:__rand_int__" "SRANDMEMBER big" "SCARD big" "SMEMBERS small" \
           "SRANDMEMBER big 10"; do
    # shellcheck disable=SC2086
    a=$(rps "$P_REDIS" "$N" $cmd)
    # shellcheck disable=SC2086
    b=$(rps "$P_CASQ" "$N" $cmd)
    row "$cmd" "$a" "$b" "$(ratio "$b" "$a")"
done
echo
row "durable writes (requests/s)" "redis-aof" "casq" "casq/aof"
for cmd in "SADD big new:__rand_int__" "SADD small x__rand_int__" "SPOP big"; do
    # shellcheck disable=SC2086
    a=$(rps "$P_AOF" "$WN" $cmd)
    # shellcheck disable=SC2086
    b=$(rps "$P_CASQ" "$WN" $cmd)
    row "$cmd" "$a" "$b" "$(ratio "$b" "$a")"
done
echo
row "memory (bytes per member)" "redis" "casq" "casq/redis"
for p in "$P_REDIS" "$P_CASQ"; do redis-cli -p "$p" del mem memint >/dev/null; done
declare -A per
for p in "$P_REDIS" "$P_CASQ"; do
    b0=$(used "$p")
    load "$p" mem "$MEMBERS" "member:"
    sleep "${SETTLE:-3}" # steady state: casq seals quiet keys into key segments
    b1=$(used "$p")
    per[$p]=$(awk -v a="$b0" -v b="$b1" -v n="$MEMBERS" 'BEGIN { printf "%.1f", (b - a) / n }')
done
row "hashtable, $MEMBERS \"member:N\"" "${per[$P_REDIS]}" "${per[$P_CASQ]}" \
    "$(ratio "${per[$P_CASQ]}" "${per[$P_REDIS]}")"
for p in "$P_REDIS" "$P_CASQ"; do
    b0=$(used "$p")
    load "$p" memint 500 ""
    sleep "${SETTLE:-3}" # steady state: casq seals quiet keys into key segments
    b1=$(used "$p")
    per[$p]=$(awk -v a="$b0" -v b="$b1" 'BEGIN { printf "%.1f", (b - a) / 500 }')
done
row "intset, 500 integers" "${per[$P_REDIS]}" "${per[$P_CASQ]}" "$(ratio "${per[$P_CASQ]}" "${per[$P_REDIS]}")"
# Small sets, one key each: the per-key costs count too.
for kind in strings integers; do
    for p in "$P_REDIS" "$P_CASQ"; do
        b0=$(used "$p")
        awk -v n="$((MEMBERS / 10))" -v kind="$kind" 'BEGIN {
            for (i = 0; i < n; i++)
                if (kind == "strings") printf "SADD small%s:%d a b c d e f g h i j\r\n", kind, i
                else printf "SADD small%s:%d 1 2 3 4 5 6 7 8 9 10\r\n", kind, i
        }' | redis-cli -p "$p" --pipe >/dev/null
        sleep "${SETTLE:-3}" # steady state: casq seals quiet keys into key segments
        b1=$(used "$p")
        per[$p]=$(awk -v a="$b0" -v b="$b1" -v n="$MEMBERS" 'BEGIN { printf "%.1f", (b - a) / n }')
    done
    row "$((MEMBERS / 10)) sets of 10 $kind" "${per[$P_REDIS]}" "${per[$P_CASQ]}" \
        "$(ratio "${per[$P_CASQ]}" "${per[$P_REDIS]}")"
done
