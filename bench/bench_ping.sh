#!/usr/bin/env bash
# bench_ping.sh -- the server foundation's speed: casq vs redis-server on
# PING, in the same run.
#
# A benchmark, not a test: it asserts nothing, it prints figures (see
# bench/README.md, "ping"). For each of
#     redis-benchmark -t ping_inline,ping_mbulk -n N -c 50 -P 1
#     redis-benchmark -t ping_inline,ping_mbulk -n N -c 50 -P 16
# it runs casq and redis-server (both started here on free ports, redis with
# --save '' --appendonly no) REPEAT times, alternating the servers so that
# background noise hits both alike, and prints the median requests/s of each,
# the spread of the repeats ((max-min)/median) and the ratio casq/redis.
# PING touches no state, so casq's durability costs nothing here: this is the
# event loop, the parser and the reply path. Goal: ratio >= 0.80.
#
# Environment knobs:
#   N=200000        requests per redis-benchmark run
#   CLIENTS=50      connections (-c)
#   PIPELINES="1 16"
#   REPEAT=5        runs per server and setting (medians are printed)
#   PORT_BASE=28900 first port tried (range 28900-28999)
#   CASQ_BIN=path   casq binary (default build/release/casq-server, built if
#                   missing; src/casq-server may be a sanitizer build)
#   PIN=1           with 2+ cores (default): servers on CPU 0, redis-benchmark
#                   on CPU 1 (taskset), so the client does not steal the
#                   server's core; PIN=0 leaves scheduling to the kernel
#   KEEP=1          keep the work directory (raw CSV, server logs)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-200000}
CLIENTS=${CLIENTS:-50}
PIPELINES=${PIPELINES:-"1 16"}
REPEAT=${REPEAT:-5}
PORT_BASE=${PORT_BASE:-28900}
SERVER_CPU=""
CLIENT_CPU=""
if [ "${PIN:-1}" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    SERVER_CPU="taskset -c 0"
    CLIENT_CPU="taskset -c 1"
fi

die() { echo "bench_ping: $*" >&2; exit 1; }
command -v redis-benchmark >/dev/null || die "redis-benchmark not found (apt-get install redis-tools)"
command -v redis-server >/dev/null || die "redis-server not found (apt-get install redis-server)"

if [ -z "${CASQ_BIN:-}" ]; then
    make -C "$ROOT" --no-print-directory -s build/release/casq-server >/dev/null || die "build failed"
    CASQ_BIN=$ROOT/build/release/casq-server
fi
WORK=$(mktemp -d /tmp/casq-bench-ping.XXXXXX)
cp "$CASQ_BIN" "$WORK/casq-server" # a rebuild during the run cannot change it
PIDS=""
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    if [ "${KEEP:-}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Sets PORT to the next free port (not in a $(...) subshell: the counter
# must advance, or two servers would be given the same port).
next_port=$PORT_BASE
free_port() {
    while ! port_free "$next_port"; do next_port=$((next_port + 1)); done
    PORT=$next_port
    next_port=$((next_port + 1))
}
wait_ping() { # port
    for _ in $(seq 200); do
        [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    return 1
}

free_port
CASQ_PORT=$PORT
mkdir -p "$WORK/casq" "$WORK/redis"
$SERVER_CPU "$WORK/casq-server" --port "$CASQ_PORT" --bind 127.0.0.1 --dir "$WORK/casq" >"$WORK/casq.log" 2>&1 &
CASQ_PID=$!
PIDS="$PIDS $CASQ_PID"
free_port
REDIS_PORT=$PORT
$SERVER_CPU redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK/redis" --save '' --appendonly no \
    --daemonize no >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
PIDS="$PIDS $REDIS_PID"
wait_ping "$CASQ_PORT" || die "casq did not start: $(tail -5 "$WORK/casq.log")"
wait_ping "$REDIS_PORT" || die "redis-server did not start: $(tail -5 "$WORK/redis.log")"
# Each port must be served by the process started for it.
[ "$(redis-cli -p "$CASQ_PORT" INFO server | tr -d '\r' | sed -n 's/^process_id://p')" = "$CASQ_PID" ] ||
    die "port $CASQ_PORT is not served by the casq started here"
[ "$(redis-cli -p "$REDIS_PORT" INFO server | tr -d '\r' | sed -n 's/^process_id://p')" = "$REDIS_PID" ] ||
    die "port $REDIS_PORT is not served by the redis-server started here"

# CPU time (user + system, clock ticks) a process has used so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
CLK_TCK=$(getconf CLK_TCK)

# One run: prints "TEST rps" lines from redis-benchmark's CSV output, then
# "CPU usec-per-request" of the server (both tests together: 2*N requests).
run() { # port pipeline pid
    local before after
    before=$(cpu_ticks "$3")
    $CLIENT_CPU redis-benchmark -h 127.0.0.1 -p "$1" -t ping_inline,ping_mbulk -n "$N" -c "$CLIENTS" -P "$2" --csv 2>/dev/null |
        awk -F'","' 'NR > 1 { gsub(/"/, "", $1); gsub(/"/, "", $2); print $1, $2 }'
    after=$(cpu_ticks "$3")
    awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$N" 'BEGIN { printf "CPU %.3f\n", t * 1e6 / hz / (2 * n) }'
}

echo "# casq $("$WORK/casq-server" --version | sed 's/^casq server //') vs $(redis-server --version | cut -d' ' -f1-3)"
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); -n $N -c $CLIENTS; $REPEAT runs each, servers alternated${SERVER_CPU:+; servers on CPU 0, redis-benchmark on CPU 1}"
for _ in $(seq "$REPEAT"); do
    for p in $PIPELINES; do
        run "$CASQ_PORT" "$p" "$CASQ_PID" | sed "s/^/casq $p /" >>"$WORK/results"
        run "$REDIS_PORT" "$p" "$REDIS_PID" | sed "s/^/redis $p /" >>"$WORK/results"
    done
    printf '.' >&2
done
printf '\n' >&2

# Median and spread of the rps of (server, pipeline, test).
stats() { # server pipeline test -> "median spread%"
    awk -v s="$1" -v p="$2" -v t="$3" '$1 == s && $2 == p && $3 == t { print $4 }' "$WORK/results" | sort -g |
        awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "0 0"; exit }
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.0f %.0f\n", m, (m > 0 ? 100 * (v[NR] - v[1]) / m : 0) }'
}

printf '\n%-12s %3s %14s %7s %14s %7s %8s\n' test -P "casq rps" spread "redis rps" spread casq/redis
for p in $PIPELINES; do
    for t in PING_INLINE PING_MBULK; do
        read -r cm cs <<<"$(stats casq "$p" "$t")"
        read -r rm rs <<<"$(stats redis "$p" "$t")"
        ratio=$(awk -v a="$cm" -v b="$rm" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
        printf '%-12s %3s %14s %6s%% %14s %6s%% %8s\n' "$t" "$p" "$cm" "$cs" "$rm" "$rs" "$ratio"
    done
done
echo "(goal: casq/redis >= 0.80; medians of $REPEAT runs; both servers share the machine with redis-benchmark)"

# Server CPU time per request is far less sensitive to a busy machine than
# requests/s: it is what the server itself spends, however it is scheduled.
printf '\n%-12s %3s %14s %14s %14s\n' "server CPU" -P "casq us/req" "redis us/req" redis/casq
for p in $PIPELINES; do
    cc=$(awk -v s=casq -v p="$p" '$1 == s && $2 == p && $3 == "CPU" { print $4 }' "$WORK/results" | sort -g |
        awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    rc=$(awk -v s=redis -v p="$p" '$1 == s && $2 == p && $3 == "CPU" { print $4 }' "$WORK/results" | sort -g |
        awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    ratio=$(awk -v a="$cc" -v b="$rc" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
    printf '%-12s %3s %14s %14s %14s\n' "PING (both)" "$p" "$cc" "$rc" "$ratio"
done
echo "(redis/casq > 1: casq spends less CPU per request; medians of $REPEAT runs)"
