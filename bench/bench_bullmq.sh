#!/usr/bin/env bash
# bench_bullmq.sh -- BullMQ (npm `bullmq`, all Lua run by EVALSHA) jobs/s on
# casq against redis-server --appendfsync always.
#
# A benchmark, not a test: it asserts nothing and prints figures. For each
# CONCURRENCY (default "10 50"), bench/bullmq_load.js runs, on a fresh
# queue, against casq (file store, default settings) and redis-server with
# every write fsynced (lib.sh's startServer), the servers interleaved,
# REPEAT times:
#
#   add      CONCURRENCY producers awaiting one Queue.add each (addStandardJob)
#   process  a Worker with that concurrency and a no-op processor
#            (moveToActive, moveToFinished with fetch-next) over those jobs
#   both     producers and the Worker at once: jobs completed per second
#
# Prints the medians (jobs/s), the spread of the repeats ((max-min)/median)
# and casq/redis. Both servers and node share the machine: on 2 cores the
# node process (BullMQ's client side: msgpack, JSON, ioredis) takes one core
# or more, so the figures are the whole system's, as a BullMQ user sees them.
#
# Needs bullmq in tests/integration/node_modules (tests/install-deps.sh).
# Knobs: CONCURRENCY="10 50" JOBS=3000 REPEAT=3 PORT_BASE=24700 (uses
#        24700-24799) KEEP=1 CASQ_BIN=path CPULIST=cpus (lib.sh)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CONCURRENCY=${CONCURRENCY:-"10 50"}
JOBS=${JOBS:-3000}
REPEAT=${REPEAT:-3}
PORT_BASE=${PORT_BASE:-24700}
CASQ_BIN=${CASQ_BIN:-$ROOT/build/release/casq-server}
BENCH=$ROOT/build/bench
BENCH_NAME=bench_bullmq
mkdir -p "$BENCH"
. "$ROOT/bench/lib.sh"
command -v node >/dev/null || die "node not found (tests/install-deps.sh)"
[ -f "$ROOT/tests/integration/node_modules/bullmq/package.json" ] ||
    die "bullmq is not installed (tests/install-deps.sh, or npm ci --prefix tests/integration)"

startServer casq casq
startServer redis redis

# load NAME CONCURRENCY REP -> "add process both"
load() {
    node "$ROOT/bench/bullmq_load.js" "${PORT[$1]}" "$2" "$JOBS" "bench-$2-$3" |
        tail -1 | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); printf "%s ", kv[2] } print "" }'
}

spread() { # spread VALUES... -> (max-min)/median
    local m
    m=$(median "$@")
    printf '%s\n' "$@" | sort -g | awk -v m="$m" 'NR == 1 { lo = $1 } { hi = $1 } END { if (m > 0) printf "%.2f", (hi - lo) / m; else print "-" }'
}

declare -A RES
for rep in $(seq "$REPEAT"); do
    for c in $CONCURRENCY; do
        for s in casq redis; do
            alive $s
            read -r a p b < <(load $s "$c" "$rep")
            [ -n "${b:-}" ] || die "bullmq_load.js failed on $s (concurrency $c)"
            RES[$c,$s,add]+="$a " RES[$c,$s,process]+="$p " RES[$c,$s,both]+="$b "
            echo "# rep $rep concurrency $c $s: add $a process $p both $b jobs/s" >&2
        done
    done
done

echo "BullMQ $(node -p "require('$ROOT/tests/integration/node_modules/bullmq/package.json').version"), $JOBS jobs per phase, median of $REPEAT (jobs/s)"
printf '%-12s %-8s %10s %7s %10s %7s %11s\n' concurrency phase casq spread redis spread casq/redis
for c in $CONCURRENCY; do
    for ph in add process both; do
        # shellcheck disable=SC2086 # split on purpose
        cm=$(median ${RES[$c,casq,$ph]}) rm=$(median ${RES[$c,redis,$ph]})
        # shellcheck disable=SC2086
        printf '%-12s %-8s %10s %7s %10s %7s %11s\n' "$c" "$ph" "$cm" "$(spread ${RES[$c,casq,$ph]})" \
            "$rm" "$(spread ${RES[$c,redis,$ph]})" "$(ratio "$cm" "$rm")"
    done
done
