# lib.sh -- what the durable benchmarks share (sourced, not run): building
# the drivers, starting and stopping casq and redis-server on free ports in
# a work directory, reading INFO, medians and ratios.
#
# The sourcing script sets ROOT, BENCH_NAME (messages, work directory
# name), PORT_BASE (uses PORT_BASE .. PORT_BASE+99) and CASQ_BIN before
# sourcing; it gets CASQ (a private copy of the binary), WORK, and the
# functions below.
#
# CPULIST=<cpulist> (e.g. CPULIST=1) runs both servers with server_cpulist and
# bio_cpulist set to it: every thread of each on those CPUs, the others
# left to the load generator (see README "Performance").
die() { echo "$BENCH_NAME: $*" >&2; exit 1; }

# ------------------------------------------------------------------------
# Build the drivers (and casq if needed)
# ------------------------------------------------------------------------
mkdir -p "$BENCH"
if [ ! -x "$CASQ_BIN" ]; then
    (cd "$ROOT" && make -j2 build/release/casq-server >/dev/null) || die "make failed"
fi
build() { # build NAME SOURCE PKGS...
    local out=$BENCH/$1 src=$2
    shift 2
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-missing-field-initializers -o "$out" \
            "$src" $(pkg-config --cflags --libs "$@") -lpthread || die "building $1 failed"
    fi
}
build xadd_load "$ROOT/bench/xadd_load.c" hiredis libevent
build durable_bench "$ROOT/bench/durable_bench.c" hiredis
for t in redis-server redis-cli redis-benchmark; do command -v $t >/dev/null || die "$t not found"; done

# ------------------------------------------------------------------------
# Servers: data on the root disk (build/), like a real deployment
# ------------------------------------------------------------------------
WORK=$(mktemp -d "$BENCH/$BENCH_NAME.XXXXXX") || die "mktemp"
CASQ=$WORK/casq-server
cp "$CASQ_BIN" "$CASQ" || die "cannot copy $CASQ_BIN"
NEXT_PORT=$PORT_BASE
declare -A PID PORT DIR

cleanup() {
    for s in "${!PID[@]}"; do stopServer "$s"; done
    if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

startServer() { # startServer NAME casq|redis [args...]
    local name=$1 kind=$2 p
    shift 2
    p=$NEXT_PORT
    while [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ]; do p=$((p + 1)); done
    [ "$p" -le $((PORT_BASE + 99)) ] || die "no free port"
    NEXT_PORT=$((p + 1))
    local d=$WORK/$name.$p
    mkdir -p "$d"
    if [ -n "${CPULIST:-}" ]; then set -- "$@" --server_cpulist "$CPULIST" --bio_cpulist "$CPULIST"; fi
    if [ "$kind" = casq ]; then
        "$CASQ" --port "$p" --bind 127.0.0.1 --dir "$d" "$@" >"$d/log" 2>&1 &
    else
        redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always \
            --dir "$d" --daemonize no "$@" >"$d/log" 2>&1 &
    fi
    PID[$name]=$!
    PORT[$name]=$p
    DIR[$name]=$d
    for _ in $(seq 200); do
        [ "$(redis-cli -p "$p" ping 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    cat "$d/log" >&2
    die "$name did not start"
}

stopServer() {
    local pid=${PID[$1]:-}
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null
    for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    unset "PID[$1]"
}

cli() { redis-cli -p "${PORT[$1]}" "${@:2}"; }
# alive NAME: dies with the server's log if it is gone (a measurement
# against a dead server would print zeros).
alive() {
    kill -0 "${PID[$1]}" 2>/dev/null && return 0
    echo "$BENCH_NAME: $1 (pid ${PID[$1]}) died; last lines of ${DIR[$1]}/log:" >&2
    tail -20 "${DIR[$1]}/log" >&2
    unset "PID[$1]"
    exit 1
}
field() { grep -o "$1=[0-9.na/]*" | cut -d= -f2; } # field NAME < "a=1 b=2" (a number, or n/a)
info() { cli "$1" info persistence | tr -d '\r' | grep "^$2:" | cut -d: -f2; }

# median of the arguments
# Values that are not numbers ("n/a": nothing measured) are left out; none: n/a.
median() { printf '%s\n' "$@" | grep -E '^-?[0-9.]+$' | sort -g |
    awk '{ v[NR] = $1 } END { if (!NR) print "n/a"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
