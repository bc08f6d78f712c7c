#!/usr/bin/env bash
# bench_strhash.sh -- casq vs redis-server on strings and hashes, in the
# same run.
#
# A benchmark, not a test: it asserts nothing, it prints figures.
#
#   reads     GET, HGET, MGET (10 keys), HGETALL (10 fields) with
#             redis-benchmark -c 50 -P 1 and -P 16: casq against
#             redis-server in memory (--save '' --appendonly no)
#   writes    SET, INCR, HSET, APPEND with -c 50 -P 1, on empty servers:
#             durable casq (state document on local disk, every reply
#             after its fsynced group commit) against redis-server
#             --appendonly yes --appendfsync always. casq rewrites its
#             whole document at every commit, so this rate falls as the
#             state grows (10,000 random keys per test here)
#   memory    used_memory (INFO) per element after MEM_N strings
#             (SET key:<i> <16 bytes>) and after one hash of MEM_N fields,
#             casq against redis in memory
#
# Every measurement is repeated REPEAT times, servers alternated; the tables
# show the median and the ratio casq/redis (>1: casq faster; for memory <1:
# casq smaller).
#
# Knobs: SETTLE=3 (seconds between loading and reading memory) REPEAT=3 N=100000 MEM_N=100000 PORT_BASE=24900 (range 24900-24999)
#        CASQ_BIN=path (default build/release/casq-server) KEEP=1
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEAT=${REPEAT:-3}
N=${N:-100000}
MEM_N=${MEM_N:-100000}
PORT_BASE=${PORT_BASE:-24900}
CASQ=${CASQ_BIN:-$ROOT/build/release/casq-server}

die() { echo "bench_strhash: $*" >&2; exit 1; }
command -v redis-benchmark >/dev/null || die "redis-benchmark not found (apt-get install redis-tools)"
command -v redis-server >/dev/null || die "redis-server not found"
[ -x "$CASQ" ] || die "no casq at $CASQ (make)"

WORK=$(mktemp -d /tmp/bench-strhash.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "${KEEP:-}" ] && echo "(work directory kept: $WORK)" || rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
    local p=$1
    while (echo >/dev/tcp/127.0.0.1/$p) 2>/dev/null; do p=$((p + 1)); done
    echo $p
}

wait_up() {
    for _ in $(seq 200); do
        [ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    die "server on port $1 did not start"
}

P_REDIS=$(free_port "$PORT_BASE")
P_AOF=$(free_port $((P_REDIS + 1)))
P_CASQ=$(free_port $((P_AOF + 1)))
mkdir -p "$WORK/redis" "$WORK/aof" "$WORK/casq"
cp "$CASQ" "$WORK/casq-server"
redis-server --port "$P_REDIS" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/redis" \
    >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
redis-server --port "$P_AOF" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always \
    --dir "$WORK/aof" >"$WORK/aof.log" 2>&1 &
PIDS+=($!)
"$WORK/casq-server" --port "$P_CASQ" --bind 127.0.0.1 --dir "$WORK/casq" >"$WORK/casq.log" 2>&1 &
PIDS+=($!)
wait_up "$P_REDIS"; wait_up "$P_AOF"; wait_up "$P_CASQ"

# rps of one redis-benchmark run: port, pipeline, requests, command...
rb() {
    local port=$1 pipe=$2 n=$3
    shift 3
    redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -P "$pipe" -n "$n" -r 10000 --csv "$@" 2>/dev/null |
        awk -F'","' 'NR > 1 { gsub(/"/, "", $2); print $2; exit }'
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : 0) }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); -c 50; medians of $REPEAT runs"
# Writes first, on empty servers: casq writes its whole state at every
# commit, so its durable write rate depends on how much state there is.
printf '%-22s %4s %12s %12s %11s\n' "durable writes" "-P" "casq rps" "aof rps" "casq/aof"
write_test() {
    local name=$1
    shift
    local c=() r=() wn=$((N / 4))
    for _ in $(seq "$REPEAT"); do
        redis-cli -p "$P_CASQ" flushall >/dev/null
        redis-cli -p "$P_AOF" flushall >/dev/null
        c+=("$(rb "$P_CASQ" 1 "$wn" "$@")")
        r+=("$(rb "$P_AOF" 1 "$wn" "$@")")
    done
    local cm rm
    cm=$(printf '%s\n' "${c[@]}" | median)
    rm=$(printf '%s\n' "${r[@]}" | median)
    printf '%-22s %4s %12.0f %12.0f %11s\n' "$name" 1 "$cm" "$rm" "$(ratio "$cm" "$rm")"
}
write_test SET SET wkey:__rand_int__ xxxxxxxxxxxxxxxx
write_test INCR INCR counter:__rand_int__
write_test HSET HSET whash f:__rand_int__ xxxxxxxxxxxxxxxx
write_test APPEND APPEND akey:__rand_int__ xx

echo
# Data for the reads.
for port in "$P_REDIS" "$P_CASQ"; do
    redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -n 10000 -r 10000 SET key:__rand_int__ xxxxxxxxxxxxxxxx >/dev/null 2>&1
    redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -n 10000 -r 10000 HSET myhash f:__rand_int__ xxxxxxxxxxxxxxxx >/dev/null 2>&1
    redis-cli -p "$port" hset small a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9 j 10 >/dev/null
done

printf '%-22s %4s %12s %12s %11s\n' "reads (in memory)" "-P" "casq rps" "redis rps" "casq/redis"
read_test() {
    local name=$1 pipe=$2
    shift 2
    local c=() r=()
    for _ in $(seq "$REPEAT"); do
        c+=("$(rb "$P_CASQ" "$pipe" "$N" "$@")")
        r+=("$(rb "$P_REDIS" "$pipe" "$N" "$@")")
    done
    local cm rm
    cm=$(printf '%s\n' "${c[@]}" | median)
    rm=$(printf '%s\n' "${r[@]}" | median)
    printf '%-22s %4s %12.0f %12.0f %11s\n' "$name" "$pipe" "$cm" "$rm" "$(ratio "$cm" "$rm")"
}
for pipe in 1 16; do
    read_test GET "$pipe" GET key:__rand_int__
    read_test HGET "$pipe" HGET myhash f:__rand_int__
    read_test "MGET (10 keys)" "$pipe" MGET key:1 key:2 key:3 key:4 key:5 key:6 key:7 key:8 key:9 key:10
    read_test "HGETALL (10 fields)" "$pipe" HGETALL small
done

echo
printf '%-26s %14s %14s %11s\n' "memory (used_memory)" "casq B/elem" "redis B/elem" "casq/redis"
used() { redis-cli -p "$1" info memory | awk -F: '/^used_memory:/ { print $2 + 0 }'; }
mem_test() {
    local name=$1 gen=$2 port out=()
    for port in "$P_CASQ" "$P_REDIS"; do
        redis-cli -p "$port" flushall >/dev/null
        sleep 0.2
        local before after
        before=$(used "$port")
        $gen | redis-cli -p "$port" --pipe >/dev/null
        sleep "${SETTLE:-3}" # steady state: casq seals quiet keys into key segments
        after=$(used "$port")
        out+=("$(awk -v a="$after" -v b="$before" -v n="$MEM_N" 'BEGIN { printf "%.1f", (a - b) / n }')")
    done
    printf '%-26s %14s %14s %11s\n' "$name" "${out[0]}" "${out[1]}" "$(ratio "${out[0]}" "${out[1]}")"
}
gen_strings() { awk -v n="$MEM_N" 'BEGIN { for (i = 0; i < n; i++) printf "SET key:%d vvvvvvvvvvvvvvvv\r\n", i }'; }
gen_ints() { awk -v n="$MEM_N" 'BEGIN { for (i = 0; i < n; i++) printf "SET key:%d %d\r\n", i, i * 7 }'; }
gen_hash() { awk -v n="$MEM_N" 'BEGIN { for (i = 0; i < n; i++) printf "HSET h f:%d vvvvvvvvvvvvvvvv\r\n", i }'; }
gen_small_hashes() { awk -v n="$MEM_N" 'BEGIN { for (i = 0; i < n / 10; i++) printf "HSET h:%d a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9 j 10\r\n", i }'; }
mem_test "string (16-byte value)" gen_strings
mem_test "string (integer)" gen_ints
mem_test "hash field (1 big hash)" gen_hash
mem_test "field (10-field hashes)" gen_small_hashes
echo "(memory: bytes per SET key / per hash field, key names included; the 10-field row divides by MEM_N too)"
