#!/usr/bin/env bash
# bench_streams.sh -- casq vs redis-server on streams, in the same run.
#
# A benchmark, not a test: it asserts nothing, it prints figures. See
# bench/README.md ("streams") for what is measured and how to read it.
#
# Servers (all started by this script, on free ports, killed on exit):
#   redis       redis-server --save '' --appendonly no     (in memory)
#   redis-aof   redis-server --appendonly yes --appendfsync always, on disk
#   casq-disk   casq, state document on local disk (the default: durable,
#               every write reply waits for an fsynced group commit)
#   casq-shm    casq, state document in /dev/shm (the full commit path, but
#               fsync on tmpfs is free)
# Comparisons printed as ratios (casq / redis, >1 means casq is better for
# throughput; for memory <1 is better):
#   (a) casq-disk / redis    (b) casq-shm / redis    (c) casq-disk / redis-aof
#
# Every measurement is repeated REPEAT times (servers interleaved within a
# round, so background noise hits all of them alike); the table shows the
# median and the spread ((max-min)/median) of the repeats.
#
# Environment knobs:
#   REPEAT=3         repeats of every measurement
#   TARGET_SECS=3    aim for about this long per measurement (the request
#                    count is calibrated per server and test with a short probe)
#   MAX_N=200000     upper bound of requests per redis-benchmark run
#   JOBS_MAX=200000  upper bound of jobs per worker-loop run
#   MEM_ENTRIES=1000000  XADDs for the memory test
#   TESTS="xadd xrange worker memory"   which parts to run
#   SERVERS="redis redis-aof casq-disk casq-shm"
#   PORT_BASE=29100  first port tried (this script's range: 29000-29999)
#   KEEP=1           keep the work directory (raw results, server logs)
#   NO_BUILD=1       use src/casq-server as it is (skip `make`)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEAT=${REPEAT:-3}
TARGET_SECS=${TARGET_SECS:-3}
MAX_N=${MAX_N:-200000}
JOBS_MAX=${JOBS_MAX:-200000}
MEM_ENTRIES=${MEM_ENTRIES:-1000000}
TESTS=${TESTS:-"xadd xrange worker memory"}
SERVERS=${SERVERS:-"redis redis-aof casq-disk casq-shm"}
PORT_BASE=${PORT_BASE:-29100}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
CASQ=$ROOT/src/casq-server
WORKER=$ROOT/build/bench/worker_loop

die() { echo "bench_streams: $*" >&2; exit 1; }

# ------------------------------------------------------------------------
# Build
# ------------------------------------------------------------------------
if [ "${NO_BUILD:-0}" != 1 ]; then
    (cd "$ROOT" && make -j2 >/dev/null) || die "make failed (tree mid-edit? retry later, or NO_BUILD=1)"
fi
(cd "$ROOT" && make bench-tools >/dev/null) || die "make bench-tools failed"
[ -x "$CASQ" ] || die "$CASQ missing"
for t in redis-benchmark redis-cli "$REDIS_SERVER"; do command -v "$t" >/dev/null || die "$t not found"; done

# ------------------------------------------------------------------------
# Servers
# ------------------------------------------------------------------------
# Work directories: on the root disk for the durable servers (/tmp is on
# the same ext4 here; build/ is used so it is on disk whatever /tmp is),
# and in /dev/shm for casq-shm.
WORK=$(mktemp -d "$ROOT/build/bench/run.XXXXXX") || die "mktemp"
SHM=$(mktemp -d /dev/shm/casq-bench.XXXXXX) || die "mktemp /dev/shm"
declare -A PORT PID DIR
NEXT_PORT=$PORT_BASE

cleanup() {
    for s in "${!PID[@]}"; do stopServer "$s"; done
    rm -rf "$SHM"
    if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

freePort() {
    local p=$NEXT_PORT
    while [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ]; do p=$((p + 1)); done
    [ "$p" -le 29999 ] || die "no free port in 29000-29999"
    NEXT_PORT=$((p + 1))
    echo "$p"
}

# startServer NAME: starts a fresh instance of the named configuration.
startServer() {
    local s=$1 p d
    p=$(freePort)
    case $s in
        casq-shm) d=$SHM/$s.$p ;;
        *) d=$WORK/$s.$p ;;
    esac
    mkdir -p "$d"
    case $s in
        redis)
            "$REDIS_SERVER" --port "$p" --bind 127.0.0.1 --save '' --appendonly no --dir "$d" \
                --daemonize no >"$d/log" 2>&1 &
            ;;
        redis-aof)
            "$REDIS_SERVER" --port "$p" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always \
                --dir "$d" --daemonize no >"$d/log" 2>&1 &
            ;;
        casq-disk | casq-shm)
            "$CASQ" --port "$p" --dir "$d" >"$d/log" 2>&1 &
            ;;
        *) die "unknown server $s" ;;
    esac
    PID[$s]=$!
    PORT[$s]=$p
    DIR[$s]=$d
    for _ in $(seq 100); do
        [ "$(redis-cli -p "$p" ping 2>/dev/null)" = PONG ] && return 0
        sleep 0.1
    done
    cat "$d/log" >&2
    die "$s did not start on port $p"
}

stopServer() {
    local s=$1 pid=${PID[$1]:-}
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    unset "PID[$s]"
}

cli() { redis-cli -p "${PORT[$1]}" "${@:2}"; }

# ------------------------------------------------------------------------
# Results: one line "test<TAB>server<TAB>value" per measurement
# ------------------------------------------------------------------------
RESULTS=$WORK/results.tsv
: >"$RESULTS"
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"; }

# rbench SERVER N ARGS...: redis-benchmark, prints requests per second.
rbench() {
    local s=$1 n=$2
    shift 2
    redis-benchmark -p "${PORT[$s]}" -n "$n" --csv "$@" 2>/dev/null |
        awk -F'","' 'NR == 2 { gsub(/"/, "", $2); print $2 }'
}

# calibrate RATE: the request count for a TARGET_SECS run at RATE req/s.
calibrate() {
    awk -v r="$1" -v t="$TARGET_SECS" -v max="$MAX_N" \
        'BEGIN { n = int(r * t); if (n < 1000) n = 1000; if (n > max) n = max; print n }'
}

declare -A NREQ
# measureRB TEST SERVER ARGS...: one calibrated redis-benchmark measurement.
measureRB() {
    local test=$1 s=$2 key
    shift 2
    key="$test/$s"
    if [ -z "${NREQ[$key]:-}" ]; then
        local probe
        probe=$(rbench "$s" 500 "$@")
        NREQ[$key]=$(calibrate "${probe:-1000}")
    fi
    local v
    v=$(rbench "$s" "${NREQ[$key]}" "$@")
    record "$test" "$s" "${v:-0}"
    printf '  %-22s %-10s n=%-7s %12s req/s\n' "$test" "$s" "${NREQ[$key]}" "${v:-FAILED}" >&2
}

# ------------------------------------------------------------------------
# 1-2. XADD and XRANGE with redis-benchmark
# ------------------------------------------------------------------------
runXadd() {
    local s c P
    for c in 1 50; do
        for P in 1 16; do
            for s in $SERVERS; do
                cli "$s" del s >/dev/null
                measureRB "XADD c$c P$P" "$s" -c "$c" -P "$P" xadd s '*' f v
            done
        done
    done
}

XRANGE_ENTRIES=10000
populate() { # populate SERVER KEY COUNT: COUNT entries "f <16 bytes>" via --pipe
    awk -v n="$3" -v k="$2" 'BEGIN {
        for (i = 0; i < n; i++)
            printf "*5\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$1\r\n*\r\n$1\r\nf\r\n$16\r\n%016d\r\n", length(k), k, i }' |
        redis-cli -p "${PORT[$1]}" --pipe --pipe-timeout 120 >/dev/null
}

runXrange() {
    local s
    for s in $SERVERS; do
        if [ "$(cli "$s" xlen r)" != "$XRANGE_ENTRIES" ]; then
            cli "$s" del r >/dev/null
            populate "$s" r "$XRANGE_ENTRIES"
        fi
    done
    for P in 1 16; do
        for s in $SERVERS; do
            measureRB "XRANGE10 c50 P$P" "$s" -c 50 -P "$P" xrange r - + count 10
        done
    done
}

# ------------------------------------------------------------------------
# 3. Worker loop
# ------------------------------------------------------------------------
WL_ARGS=${WL_ARGS:-"-P 2 -W 4 -d 16 -c 10"}
declare -A NJOBS
runWorker() {
    local s out v
    for s in $SERVERS; do
        if [ -z "${NJOBS[$s]:-}" ]; then
            out=$("$WORKER" -p "${PORT[$s]}" -n 2000 -t 30 $WL_ARGS)
            v=$(sed -n 's/.*jobs_per_sec=\([0-9]*\).*/\1/p' <<<"$out")
            NJOBS[$s]=$(MAX_N=$JOBS_MAX calibrate "${v:-1000}")
        fi
        out=$("$WORKER" -p "${PORT[$s]}" -n "${NJOBS[$s]}" -t $((TARGET_SECS * 10 + 30)) $WL_ARGS)
        v=$(sed -n 's/.*jobs_per_sec=\([0-9]*\).*/\1/p' <<<"$out")
        record "worker loop" "$s" "${v:-0}"
        record "worker p50 lat us" "$s" "$(sed -n 's/.*lat_p50_us=\([0-9-]*\).*/\1/p' <<<"$out")"
        record "worker p99 lat us" "$s" "$(sed -n 's/.*lat_p99_us=\([0-9-]*\).*/\1/p' <<<"$out")"
        printf '  %-22s %-10s %s\n' "worker loop" "$s" "$out" >&2
        cli "$s" del bench:jobs >/dev/null
    done
}

# ------------------------------------------------------------------------
# 4. Memory after MEM_ENTRIES XADDs of "f <16-byte value>"
# ------------------------------------------------------------------------
vmRSS() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"; }
infoRSS() { cli "$1" info memory | tr -d '\r' | awk -F: '$1 == "used_memory_rss" { print $2 }'; }

runMemory() {
    local s base_vm base_info vm info
    for s in $SERVERS; do
        # A fresh server: earlier tests' freed memory must not count.
        stopServer "$s"
        startServer "$s"
        base_vm=$(vmRSS "${PID[$s]}")
        base_info=$(infoRSS "$s")
        populate "$s" mem "$MEM_ENTRIES"
        [ "$(cli "$s" xlen mem)" = "$MEM_ENTRIES" ] || echo "  warning: $s: xlen mem != $MEM_ENTRIES" >&2
        sleep 1 # let a commit in flight finish and its buffers go
        vm=$(vmRSS "${PID[$s]}")
        info=$(infoRSS "$s")
        record "RSS MB (VmRSS)" "$s" "$(awk -v v="$vm" 'BEGIN { printf "%.1f", v / 1048576 }')"
        record "RSS MB (INFO)" "$s" "$(awk -v v="$info" 'BEGIN { printf "%.1f", v / 1048576 }')"
        record "RSS MB growth" "$s" "$(awk -v v="$vm" -v b="$base_vm" 'BEGIN { printf "%.1f", (v - b) / 1048576 }')"
        record "bytes/entry" "$s" "$(awk -v v="$vm" -v b="$base_vm" -v n="$MEM_ENTRIES" 'BEGIN { printf "%.1f", (v - b) / n }')"
        printf '  %-22s %-10s VmRSS=%s (base %s) INFO rss=%s (base %s)\n' memory "$s" "$vm" "$base_vm" \
            "$info" "$base_info" >&2
        if [ "${s#casq}" != "$s" ] && [ -f "${DIR[$s]}/queue.json" ]; then
            record "document MB" "$s" "$(stat -c %s "${DIR[$s]}/queue.json" | awk '{ printf "%.1f", $1 / 1048576 }')"
        fi
        cli "$s" del mem >/dev/null
    done
}

# ------------------------------------------------------------------------
# Run
# ------------------------------------------------------------------------
for s in $SERVERS; do startServer "$s"; done
echo "bench_streams: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); servers:" >&2
for s in $SERVERS; do echo "  $s port ${PORT[$s]} dir ${DIR[$s]}" >&2; done

for round in $(seq "$REPEAT"); do
    echo "round $round/$REPEAT (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for t in $TESTS; do
        case $t in
            xadd) runXadd ;;
            xrange) runXrange ;;
            worker) runWorker ;;
            memory) runMemory ;;
            *) die "unknown test $t" ;;
        esac
    done
done

# ------------------------------------------------------------------------
# Table: medians, spread, ratios
# ------------------------------------------------------------------------
echo
awk -F'\t' -v servers="$SERVERS" '
function median(key,    n, i, j, t, a) {
    n = split(vals[key], a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    lo[key] = a[1]; hi[key] = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ratio(x, y) { return (x == "" || y == "" || y + 0 == 0) ? "-" : sprintf("%.2f", x / y) }
{
    if (!($1 in seen)) { seen[$1] = 1; order[++ntests] = $1 }
    vals[$1 SUBSEP $2] = vals[$1 SUBSEP $2] " " $3
}
END {
    ns = split(servers, sv, " ")
    printf "%-20s", "test"
    for (i = 1; i <= ns; i++) printf " %14s", sv[i]
    printf "  %7s %7s %7s  %s\n", "(a)", "(b)", "(c)", "spread"
    for (k = 1; k <= ntests; k++) {
        t = order[k]; spread = 0
        printf "%-20s", t
        delete m
        for (i = 1; i <= ns; i++) {
            key = t SUBSEP sv[i]
            if (!(key in vals)) { printf " %14s", "-"; continue }
            m[sv[i]] = median(key)
            if (m[sv[i]] + 0 > 0) { sp = (hi[key] - lo[key]) / m[sv[i]] * 100; if (sp > spread) spread = sp }
            printf " %14s", (m[sv[i]] >= 1000 ? sprintf("%.0f", m[sv[i]]) : m[sv[i]])
        }
        printf "  %7s %7s %7s  %.0f%%\n", ratio(m["casq-disk"], m["redis"]), ratio(m["casq-shm"], m["redis"]),
            ratio(m["casq-disk"], m["redis-aof"]), spread
    }
    print ""
    print "(a) casq-disk/redis  (b) casq-shm/redis  (c) casq-disk/redis-aof -- medians of the repeats;"
    print "spread = largest (max-min)/median over the servers of a row. Throughput: req/s or jobs/s;"
    print "latency in microseconds; memory in MiB (ratios >1 mean casq uses more)."
}' "$RESULTS"
