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
# median of the repeats and ± half their range, in % of the median.
#
# Environment knobs:
#   REPEAT=3         repeats of every measurement
#   TARGET_SECS=3    aim for about this long per measurement: every server of
#                    a row runs the same count, calibrated (short probe, first
#                    round) so that the slowest server runs about this long
#   MIN_N=10000 MAX_N=200000      bounds of requests per redis-benchmark run
#   MIN_JOBS=5000 JOBS_MAX=200000 bounds of jobs per worker-loop run
#   MEM_ENTRIES=1000000  XADDs for the memory test
#   TESTS="xadd xrange worker memory"   which parts to run
#   SERVERS="redis redis-aof casq-disk casq-shm"
#   PORT_BASE=29100  first port tried (this script's range: 29000-29999)
#   KEEP=1           keep the work directory (raw results, server logs)
#   NO_BUILD=1       use build/release/casq-server as it is (skip `make`)
#   CASQ_BIN=path    benchmark this casq-server binary instead (no build)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEAT=${REPEAT:-3}
TARGET_SECS=${TARGET_SECS:-3}
MIN_N=${MIN_N:-10000}
MAX_N=${MAX_N:-200000}
MIN_JOBS=${MIN_JOBS:-5000}
JOBS_MAX=${JOBS_MAX:-200000}
MEM_ENTRIES=${MEM_ENTRIES:-1000000}
TESTS=${TESTS:-"xadd xrange worker memory"}
SERVERS=${SERVERS:-"redis redis-aof casq-disk casq-shm"}
PORT_BASE=${PORT_BASE:-29100}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
# The release build, always: src/casq-server may be a sanitizer build that
# another session made. It is copied into the work directory so a rebuild
# during the run cannot change it under the benchmark.
CASQ_BUILT=${CASQ_BIN:-$ROOT/build/release/casq-server}
WORKER=$ROOT/build/bench/worker_loop

die() { echo "bench_streams: $*" >&2; exit 1; }

# ------------------------------------------------------------------------
# Table: medians, spread, ratios
# ------------------------------------------------------------------------
printTable() {
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
    printf "%-34s", "test"
    for (i = 1; i <= ns; i++) printf " %16s", sv[i]
    printf "  %6s %6s %6s\n", "(a)", "(b)", "(c)"
    for (k = 1; k <= ntests; k++) {
        t = order[k]
        printf "%-34s", t
        delete m
        for (i = 1; i <= ns; i++) {
            key = t SUBSEP sv[i]
            if (!(key in vals)) { printf " %16s", "-"; continue }
            m[sv[i]] = median(key)
            cell = m[sv[i]] >= 1000 ? sprintf("%.0f", m[sv[i]]) : m[sv[i]]
            if (m[sv[i]] + 0 > 0 && hi[key] != lo[key])
                cell = cell sprintf(" ±%.0f%%", (hi[key] - lo[key]) / m[sv[i]] * 50)
            printf " %16s", cell
        }
        printf "  %6s %6s %6s\n", ratio(m["casq-disk"], m["redis"]), ratio(m["casq-shm"], m["redis"]),
            ratio(m["casq-disk"], m["redis-aof"])
    }
    print ""
    print "Cells: median of the repeats ± half their range (max-min)/2 as % of the median."
    print "(a) casq-disk/redis  (b) casq-shm/redis  (c) casq-disk/redis-aof, ratios of medians."
    print "Throughput in req/s or jobs/s (ratio >1: casq faster); latency in microseconds and"
    print "memory in MiB (ratio >1: casq higher)."
}' "$1"
}

# `bench_streams.sh --table results.tsv`: print the table of a kept run.
if [ "${1:-}" = --table ]; then
    printTable "${2:?results.tsv}"
    exit 0
fi

# ------------------------------------------------------------------------
# Build
# ------------------------------------------------------------------------
if [ "${NO_BUILD:-0}" != 1 ] && [ -z "${CASQ_BIN:-}" ]; then
    (cd "$ROOT" && make -j2 build/release/casq-server >/dev/null) ||
        die "make failed (tree mid-edit? retry later, or NO_BUILD=1)"
fi
(cd "$ROOT" && make bench-tools >/dev/null) || die "make bench-tools failed"
[ -x "$CASQ_BUILT" ] || die "$CASQ_BUILT missing"
for t in redis-benchmark redis-cli "$REDIS_SERVER"; do command -v "$t" >/dev/null || die "$t not found"; done

# ------------------------------------------------------------------------
# Servers
# ------------------------------------------------------------------------
# Work directories: on the root disk for the durable servers (/tmp is on
# the same ext4 here; build/ is used so it is on disk whatever /tmp is),
# and in /dev/shm for casq-shm.
WORK=$(mktemp -d "$ROOT/build/bench/run.XXXXXX") || die "mktemp"
SHM=$(mktemp -d /dev/shm/casq-bench.XXXXXX) || die "mktemp /dev/shm"
# (Named so that a careless `pkill casq-server` elsewhere does not hit it.)
CASQ=$WORK/cq-bench-server
cp "$CASQ_BUILT" "$CASQ" || die "cannot copy $CASQ_BUILT"
declare -A PORT PID DIR
NEXT_PORT=$PORT_BASE

cleanup() {
    for s in "${!PID[@]}"; do stopServer "$s"; done
    rm -rf "$SHM"
    if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Sets FREE_PORT (not a $(...) function: NEXT_PORT must advance in this
# shell, so a restarted server never reuses a port -- or a directory).
freePort() {
    local p=$NEXT_PORT
    while [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ]; do p=$((p + 1)); done
    [ "$p" -le 29999 ] || die "no free port in 29000-29999"
    NEXT_PORT=$((p + 1))
    FREE_PORT=$p
}

# startServer NAME: starts a fresh instance of the named configuration.
startServer() {
    local s=$1 p d
    freePort
    p=$FREE_PORT
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
    # timeout: redis-benchmark spins forever on a server that went away.
    timeout 300 redis-benchmark -p "${PORT[$s]}" -n "$n" --csv "$@" 2>/dev/null |
        awk -F'","' 'NR == 2 { gsub(/"/, "", $2); print $2 }'
}

# calibrate RATE MIN MAX: the count for a TARGET_SECS run at RATE per second.
calibrate() {
    awk -v r="$1" -v t="$TARGET_SECS" -v min="$2" -v max="$3" \
        'BEGIN { n = int(r * t); if (n < min) n = min; if (n > max) n = max; print n }'
}

# Every server of a row runs the same request count (the stream each XADD
# row builds, and so casq's document, grows with it): the count that makes
# the slowest server run about TARGET_SECS, probed once in the first round.
declare -A NREQ
# rowCount ROW PREPARE ARGS...: sets ROW_N for the row (probing if needed);
# PREPARE is a function run before each probe (e.g. to delete the key).
rowCount() {
    local row=$1 prep=$2 s probe min=""
    shift 2
    if [ -z "${NREQ[$row]:-}" ]; then
        for s in $SERVERS; do
            $prep "$s"
            probe=$(rbench "$s" 500 "$@")
            probe=${probe%.*}
            if [ -z "$min" ] || [ "${probe:-1}" -lt "$min" ]; then min=${probe:-1}; fi
        done
        NREQ[$row]=$(calibrate "$min" "$MIN_N" "$MAX_N")
    fi
    ROW_N=${NREQ[$row]}
}

# ensureUp SERVER: restarts a server that died (noted in the output).
ensureUp() {
    if [ -n "${PID[$1]:-}" ] && kill -0 "${PID[$1]}" 2>/dev/null; then return 0; fi
    echo "  WARNING: $1 (port ${PORT[$1]:-?}) is gone; restarting it with an empty state" >&2
    unset "PID[$1]"
    startServer "$1"
}

# measureRB ROW SERVER ARGS...: one redis-benchmark measurement of ROW_N.
measureRB() {
    local row=$1 s=$2 v
    shift 2
    ensureUp "$s"
    v=$(rbench "$s" "$ROW_N" "$@")
    record "$row" "$s" "${v:-0}"
    printf '  %-24s %-10s n=%-7s %12s req/s\n' "$row" "$s" "$ROW_N" "${v:-FAILED}" >&2
}

# ------------------------------------------------------------------------
# 1-2. XADD and XRANGE with redis-benchmark
# ------------------------------------------------------------------------
delS() { cli "$1" del s >/dev/null; }

# runXaddRow ROW C P [XADD OPTIONS]: `XADD s [options] * f v` at -c C -P P
# on every server; the key is deleted before and after, so it never weighs
# on another row.
runXaddRow() {
    local row=$1 c=$2 P=$3 s
    shift 3
    rowCount "$row" delS -c "$c" -P "$P" xadd s "$@" '*' f v
    for s in $SERVERS; do
        delS "$s"
        measureRB "$row" "$s" -c "$c" -P "$P" xadd s "$@" '*' f v
        delS "$s"
    done
}

runXadd() {
    local c P
    for c in 1 50; do
        for P in 1 16; do runXaddRow "XADD c$c P$P" "$c" "$P"; done
    done
    # A capped stream: casq's commit rewrites the whole document, so its cost
    # follows the stream's length; these rows show it without the growth.
    runXaddRow "XADD MAXLEN~1k c1 P1" 1 1 maxlen '~' 1000
    runXaddRow "XADD MAXLEN~1k c50 P16" 50 16 maxlen '~' 1000
}

XRANGE_ENTRIES=${XRANGE_ENTRIES:-10000}
populate() { # populate SERVER KEY COUNT: COUNT entries "f <16 bytes>" via --pipe
    awk -v n="$3" -v k="$2" 'BEGIN {
        for (i = 0; i < n; i++)
            printf "*5\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$1\r\n*\r\n$1\r\nf\r\n$16\r\n%016d\r\n", length(k), k, i }' |
        redis-cli -p "${PORT[$1]}" --pipe --pipe-timeout 300 >/dev/null
}

noPrep() { :; }
runXrange() {
    local s P
    for s in $SERVERS; do
        cli "$s" del r >/dev/null
        populate "$s" r "$XRANGE_ENTRIES"
    done
    for P in 1 16; do
        rowCount "XRANGE10 c50 P$P" noPrep -c 50 -P "$P" xrange r - + count 10
        for s in $SERVERS; do measureRB "XRANGE10 c50 P$P" "$s" -c 50 -P "$P" xrange r - + count 10; done
    done
    for s in $SERVERS; do cli "$s" del r >/dev/null; done
}

# ------------------------------------------------------------------------
# 3. Worker loop
# ------------------------------------------------------------------------
WL_ARGS=${WL_ARGS:-"-P 2 -W 4 -d 16 -c 10"}
declare -A NJOBS
# wloop SERVER JOBS [DRIVER OPTIONS]: one run of the driver, prints its
# key=value line.
wloop() {
    local s=$1 n=$2
    shift 2
    "$WORKER" -p "${PORT[$s]}" -n "$n" -t $((TARGET_SECS * 10 + 30)) $WL_ARGS "$@"
    cli "$s" del bench:jobs >/dev/null
}
kv() { sed -n "s/.*$1=\([0-9.-]*\).*/\1/p" <<<"$2"; }

# runWorkerRow ROW [DRIVER OPTIONS]
runWorkerRow() {
    local row=$1 s out v min=""
    shift
    if [ -z "${NJOBS[$row]:-}" ]; then
        for s in $SERVERS; do
            v=$(kv jobs_per_sec "$(wloop "$s" "${PROBE_JOBS:-2000}" "$@")")
            if [ -z "$min" ] || [ "${v:-1}" -lt "$min" ]; then min=${v:-1}; fi
        done
        NJOBS[$row]=$(calibrate "$min" "${ROW_MIN_JOBS:-$MIN_JOBS}" "$JOBS_MAX")
    fi
    for s in $SERVERS; do
        ensureUp "$s"
        out=$(wloop "$s" "${NJOBS[$row]}" "$@")
        record "$row" "$s" "$(kv jobs_per_sec "$out")"
        record "$row p50 lat us" "$s" "$(kv lat_p50_us "$out")"
        record "$row p99 lat us" "$s" "$(kv lat_p99_us "$out")"
        printf '  %-24s %-10s %s\n' "$row" "$s" "$out" >&2
    done
}
runWorker() {
    runWorkerRow "worker loop"
    runWorkerRow "worker loop MAXLEN~10k" -m 10000
}

# ------------------------------------------------------------------------
# 4. Memory after MEM_ENTRIES XADDs of "f <16-byte value>"; then the cost
#    of a big state: XADD and the worker loop next to that stream
# ------------------------------------------------------------------------
vmRSS() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"; }
vmHWM() { awk '/^VmHWM:/ { print $2 * 1024 }' "/proc/$1/status"; }
infoRSS() { cli "$1" info memory | tr -d '\r' | awk -F: '$1 == "used_memory_rss" { print $2 }'; }
mb() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1048576 }'; }

runMemory() {
    local s base_vm vm info hwm secs t0
    for s in $SERVERS; do
        # A fresh server: earlier tests' freed memory must not count.
        stopServer "$s"
        startServer "$s"
        base_vm=$(vmRSS "${PID[$s]}")
        t0=$(date +%s.%N)
        populate "$s" mem "$MEM_ENTRIES"
        secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        [ "$(cli "$s" xlen mem)" = "$MEM_ENTRIES" ] || echo "  warning: $s: xlen mem != $MEM_ENTRIES" >&2
        sleep 1 # let a commit in flight finish and its buffers go
        vm=$(vmRSS "${PID[$s]}")
        hwm=$(vmHWM "${PID[$s]}")
        info=$(infoRSS "$s")
        record "load 1M: XADD/s" "$s" "$(awk -v n="$MEM_ENTRIES" -v t="$secs" 'BEGIN { printf "%.0f", n / t }')"
        record "RSS MB (VmRSS)" "$s" "$(mb "$vm")"
        record "RSS MB (INFO)" "$s" "$(mb "$info")"
        record "peak RSS MB (VmHWM)" "$s" "$(mb "$hwm")"
        record "RSS growth MB" "$s" "$(mb $((vm - base_vm)))"
        record "bytes/entry" "$s" "$(awk -v v="$vm" -v b="$base_vm" -v n="$MEM_ENTRIES" 'BEGIN { printf "%.1f", (v - b) / n }')"
        printf '  %-24s %-10s load %ss VmRSS=%s (base %s, peak %s) INFO rss=%s\n' memory "$s" "$secs" "$vm" \
            "$base_vm" "$hwm" "$info" >&2
        if [ "${s#casq}" != "$s" ] && [ -f "${DIR[$s]}/queue.json" ]; then
            record "document MB" "$s" "$(mb "$(stat -c %s "${DIR[$s]}/queue.json")")"
        fi
    done
    # The same workloads again, next to the big stream (casq rewrites the
    # whole document at every commit).
    runXaddRow "XADD c50 P16 +1M state" 50 16
    PROBE_JOBS=500 ROW_MIN_JOBS=1000 runWorkerRow "worker loop +1M state"
    for s in $SERVERS; do cli "$s" del mem >/dev/null; done
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

echo
printTable "$RESULTS"
