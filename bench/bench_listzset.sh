#!/usr/bin/env bash
# bench_listzset.sh -- casq vs redis-server on lists and sorted sets, in the
# same run.
#
# A benchmark, not a test: it asserts nothing, it prints figures.
#
# Servers (started by this script on free ports, killed on exit):
#   redis       redis-server --save '' --appendonly no     (in memory)
#   redis-aof   redis-server --appendonly yes --appendfsync always, on disk
#   casq        casq, state document on local disk (every write reply waits
#               for its fsynced group commit)
#
# Measured with redis-benchmark (CLIENTS connections, N requests):
#   reads   LRANGE 0 99 of a 1000-element list, LINDEX in its middle,
#           ZRANGE 0 99 WITHSCORES of a 1000-member set, ZSCORE, ZRANK:
#           casq vs redis (in memory);
#   writes  RPUSH / LPOP of a queue, ZADD of random members, ZINCRBY:
#           casq vs redis-aof (both durable before the reply) and vs redis;
#           RPUSH / LPOP again on a queue that holds BACKLOG elements
#           (casq seals its quiet middle into chunk segments: a commit
#           writes the two ends, not the backlog);
#   memory  INFO used_memory growth per element for MEM_ELEMENTS RPUSHes and
#           ZADDs (16-byte elements), and for MEM_ELEMENTS/10 lists of 10
#           one-byte elements (key names included), casq vs redis.
#           (SETTLE=3 seconds after loading, as casq seals quiet keys into key segments)
# Ratios are casq / redis: for throughput >1 means casq is faster, for
# memory >1 means casq uses more.
#
# Environment knobs:
#   N=100000 CLIENTS=50 REPEAT=3 MEM_ELEMENTS=200000 BACKLOG=200000
#   PORT_BASE=25900  first port tried (this script's range: 25900-25999)
#   CASQ_BIN=path    benchmark this casq-server (default: the release build)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-100000}
CLIENTS=${CLIENTS:-50}
REPEAT=${REPEAT:-3}
MEM_ELEMENTS=${MEM_ELEMENTS:-200000}
BACKLOG=${BACKLOG:-200000}
PORT_BASE=${PORT_BASE:-25900}
CASQ=${CASQ_BIN:-$ROOT/build/release/casq-server}

die() { echo "bench_listzset: $*" >&2; exit 1; }

if [ -z "${CASQ_BIN:-}" ]; then
    (cd "$ROOT" && make -j2 build/release/casq-server >/dev/null) || die "make failed"
fi
[ -x "$CASQ" ] || die "$CASQ missing"
for t in redis-benchmark redis-cli redis-server; do command -v "$t" >/dev/null || die "$t not found"; done

WORK=$(mktemp -d /tmp/bench-listzset.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
    local p=$1
    while [ "$p" -lt $((PORT_BASE + 100)) ]; do
        if ! (exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null; then echo "$p"; return; fi
        p=$((p + 1))
    done
    die "no free port"
}

wait_up() {
    for _ in $(seq 1 200); do
        redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    die "server on port $1 did not start"
}

P_REDIS=$(free_port "$PORT_BASE")
P_AOF=$(free_port $((P_REDIS + 1)))
P_CASQ=$(free_port $((P_AOF + 1)))
mkdir -p "$WORK/redis" "$WORK/aof" "$WORK/casq"
redis-server --port "$P_REDIS" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/redis" \
    >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
redis-server --port "$P_AOF" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always \
    --dir "$WORK/aof" >"$WORK/aof.log" 2>&1 &
PIDS+=($!)
"$CASQ" --port "$P_CASQ" --bind 127.0.0.1 --dir "$WORK/casq" >"$WORK/casq.log" 2>&1 &
PIDS+=($!)
wait_up "$P_REDIS"
wait_up "$P_AOF"
wait_up "$P_CASQ"

# rps PORT ARGS...: requests per second of one redis-benchmark run.
rps() {
    local port=$1
    shift
    redis-benchmark -p "$port" -n "$N" -c "$CLIENTS" -r 100000 -q "$@" 2>/dev/null |
        tr '\r' '\n' | awk '/requests per second/ {for (i = 2; i <= NF; i++) if ($i == "requests") {print $(i - 1); exit}}'
}

# median of the arguments
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

populate() {
    local port=$1
    redis-cli -p "$port" del blist bz >/dev/null
    for i in $(seq 1 1000); do echo "RPUSH blist element-$i"; echo "ZADD bz $i member-$i"; done |
        redis-cli -p "$port" >/dev/null
}
for p in "$P_REDIS" "$P_AOF" "$P_CASQ"; do populate "$p"; done
# The backlog queue: BACKLOG 24-byte jobs.
for p in "$P_REDIS" "$P_AOF" "$P_CASQ"; do
    seq 1 "$BACKLOG" | awk '{printf "RPUSH backlogq job-%012d-payload\n", $1}' | redis-cli -p "$p" --pipe >/dev/null
done
sleep 2 # casq: the backlog's middle is sealed

printf '%-34s %12s %12s %12s %10s %10s\n' test redis redis-aof casq casq/redis casq/aof
row() { # name servers... -- command
    local name=$1 use_aof=$2
    shift 2
    local r=() a=() c=()
    for _ in $(seq 1 "$REPEAT"); do
        r+=("$(rps "$P_REDIS" "$@")")
        [ "$use_aof" = 1 ] && a+=("$(rps "$P_AOF" "$@")")
        c+=("$(rps "$P_CASQ" "$@")")
    done
    local mr ma mc
    mr=$(median "${r[@]}")
    mc=$(median "${c[@]}")
    ma=-
    [ "$use_aof" = 1 ] && ma=$(median "${a[@]}")
    awk -v n="$name" -v r="$mr" -v a="$ma" -v c="$mc" 'BEGIN {
        printf "%-34s %12.0f %12s %12.0f %10.2f %10s\n", n, r, (a == "-" ? "-" : sprintf("%.0f", a)), c, c / r,
            (a == "-" ? "-" : sprintf("%.2f", c / a)) }'
}

row "LRANGE 0 99 (1000 elements)" 0 LRANGE blist 0 99
row "LINDEX 500" 0 LINDEX blist 500
row "ZRANGE 0 99 WITHSCORES (1000)" 0 ZRANGE bz 0 99 WITHSCORES
row "ZSCORE" 0 ZSCORE bz member-500
row "ZRANK" 0 ZRANK bz member-500
row "RPUSH (durable on aof/casq)" 1 RPUSH bq __rand_int__
row "LPOP (durable on aof/casq)" 1 LPOP bq
row "ZADD random (durable)" 1 ZADD bzz __rand_int__ m:__rand_int__
row "ZINCRBY (durable)" 1 ZINCRBY bzi 1 m:__rand_int__
row "RPUSH onto the backlog (durable)" 1 RPUSH backlogq __rand_int__
row "LPOP from the backlog (durable)" 1 LPOP backlogq
echo "req/s, median of $REPEAT runs of redis-benchmark -n $N -c $CLIENTS"

# Memory per element.
mem() { redis-cli -p "$1" info memory | tr -d '\r' | awk -F: '$1 == "used_memory" {print $2}'; }
memtest() { # port cmd key
    local port=$1 cmd=$2 key=$3 before after
    redis-cli -p "$port" del "$key" >/dev/null
    before=$(mem "$port")
    if [ "$cmd" = RPUSH ]; then
        seq 1 "$MEM_ELEMENTS" | awk -v k="$key" '{printf "RPUSH %s el-%012d\n", k, $1}' | redis-cli -p "$port" --pipe >/dev/null
    else
        seq 1 "$MEM_ELEMENTS" | awk -v k="$key" '{printf "ZADD %s %d el-%012d\n", k, $1, $1}' | redis-cli -p "$port" --pipe >/dev/null
    fi
    sleep "${SETTLE:-3}" # steady state: casq seals quiet keys into key segments
    after=$(mem "$port")
    awk -v a="$after" -v b="$before" -v n="$MEM_ELEMENTS" 'BEGIN {printf "%.1f", (a - b) / n}'
}
echo
printf '%-34s %12s %12s %10s\n' "memory (bytes/element)" redis casq casq/redis
for t in "RPUSH list" "ZADD zset"; do
    set -- $t
    mr=$(memtest "$P_REDIS" "$1" "mem$2")
    mc=$(memtest "$P_CASQ" "$1" "mem$2")
    awk -v n="$t ($MEM_ELEMENTS x 16 B)" -v r="$mr" -v c="$mc" 'BEGIN {printf "%-34s %12s %12s %10.2f\n", n, r, c, c / r}'
done
# Small lists, one key each (key names included).
smalltest() { # port
    local before after
    before=$(mem "$1")
    awk -v n="$((MEM_ELEMENTS / 10))" 'BEGIN { for (i = 0; i < n; i++) printf "RPUSH small:%d a b c d e f g h i j\r\n", i }' |
        redis-cli -p "$1" --pipe >/dev/null
    sleep "${SETTLE:-3}" # steady state: casq seals quiet keys into key segments
    after=$(mem "$1")
    awk -v a="$after" -v b="$before" -v n="$MEM_ELEMENTS" 'BEGIN {printf "%.1f", (a - b) / n}'
}
mr=$(smalltest "$P_REDIS")
mc=$(smalltest "$P_CASQ")
awk -v n="$((MEM_ELEMENTS / 10)) lists of 10 x 1 B" -v r="$mr" -v c="$mc" 'BEGIN {printf "%-34s %12s %12s %10.2f\n", n, r, c, c / r}'
