#!/usr/bin/env bash
# bench_evalsha.sh -- server CPU per EVALSHA of BullMQ's own scripts, casq
# against redis-server --appendfsync always.
#
# A benchmark, not a test: it asserts nothing and prints figures.
# bench/evalsha_load.js runs BullMQ 6's addStandardJob (Queue.add: 626
# lines with its included helpers, about a dozen redis.call run per call)
# then moveToActive (a Worker taking the next job: 237 lines), then
# getState (Job.getState: 64 lines, 10 redis.call, read-only: no commit,
# so its CPU is the scripts' in-memory cost alone) with the KEYS
# and ARGV BullMQ builds (msgpackr-packed opts, as BullMQ packs them), CALLS
# calls each over CLIENTS connections (each awaiting its reply), against
# casq (file store, default settings) and redis-server with every write
# fsynced, the servers interleaved, REPEAT times. For each server and
# script it prints the medians of:
#
#   calls/s      calls per second of wall time
#   us/call      the server's CPU (utime + stime of every thread, from
#                /proc/PID/task/*/stat) over the phase, divided by CALLS
#   main         the main thread's part (the event loop: parsing, Lua,
#                the commands, the replies)
#   others       the other threads by name: casq's commit path
#                (file_commit, file_segment); redis's bio threads
#
# and casq/redis for each. The goal: casq's total CPU per call <= 1.2x
# redis-server's.
#
# Knobs: CLIENTS=50 CALLS=20000 REPEAT=3 PORT_BASE=24800 (uses 24800-24899)
#        KEEP=1 CASQ_BIN=path CPULIST=cpus (lib.sh)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLIENTS=${CLIENTS:-50}
CALLS=${CALLS:-20000}
REPEAT=${REPEAT:-3}
PORT_BASE=${PORT_BASE:-24800}
CASQ_BIN=${CASQ_BIN:-$ROOT/build/release/casq-server}
BENCH=$ROOT/build/bench
BENCH_NAME=bench_evalsha
mkdir -p "$BENCH"
. "$ROOT/bench/lib.sh"
command -v node >/dev/null || die "node not found (tests/install-deps.sh)"
[ -f "$ROOT/tests/integration/node_modules/bullmq/package.json" ] ||
    die "bullmq is not installed (tests/install-deps.sh, or npm ci --prefix tests/integration)"
CLK_TCK=$(getconf CLK_TCK)
export CLK_TCK

startServer casq casq
startServer redis redis

declare -A RES
SCRIPTS="addStandardJob moveToActive getState"
for rep in $(seq "$REPEAT"); do
    for s in casq redis; do
        alive $s
        out=$(node "$ROOT/bench/evalsha_load.js" "${PORT[$s]}" "${PID[$s]}" "$CLIENTS" "$CALLS") ||
            die "evalsha_load.js failed on $s: $out"
        echo "# rep $rep $s:" >&2
        echo "$out" | sed 's/^/#   /' >&2
        for sc in $SCRIPTS; do
            line=$(echo "$out" | grep "^$sc ")
            RES[$s,$sc,rate]+="$(echo "$line" | field rate) "
            RES[$s,$sc,total]+="$(echo "$line" | field us_total) "
            RES[$s,$sc,main]+="$(echo "$line" | field us_main) "
            RES[$s,$sc,lines]=$(echo "$line" | field lines)
            # Thread names with their us/call, one median per name.
            for kv in $(echo "$line" | sed -n 's/.*threads=//p' | tr ',' ' '); do
                [ "$kv" = - ] && continue
                RES[$s,$sc,t,${kv%%:*}]+="${kv#*:} "
                case " ${RES[$s,$sc,tnames]:-} " in *" ${kv%%:*} "*) ;; *) RES[$s,$sc,tnames]+="${kv%%:*} " ;; esac
            done
        done
    done
done

others() { # others SERVER SCRIPT -> "name:us name:us" (medians over the repeats)
    local out="" n
    for n in ${RES[$1,$2,tnames]:-}; do
        # shellcheck disable=SC2086 # split on purpose
        out+="$n:$(median ${RES[$1,$2,t,$n]}) "
    done
    echo "${out:--}"
}

echo "EVALSHA of BullMQ $(node -p "require('$ROOT/tests/integration/node_modules/bullmq/package.json').version")'s scripts, $CLIENTS clients, $CALLS calls per phase, median of $REPEAT"
printf '%-16s %-6s %9s %9s %9s  %s\n' script server calls/s us/call main others
for sc in $SCRIPTS; do
    for s in casq redis; do
        # shellcheck disable=SC2086
        printf '%-16s %-6s %9s %9s %9s  %s\n' "$sc" "$s" "$(median ${RES[$s,$sc,rate]})" \
            "$(median ${RES[$s,$sc,total]})" "$(median ${RES[$s,$sc,main]})" "$(others $s $sc)"
    done
done
echo
printf '%-28s %8s %8s %13s\n' casq/redis calls/s us/call main-us/call
for sc in $SCRIPTS; do
    # shellcheck disable=SC2086
    printf '%-28s %8s %8s %13s\n' "$sc" \
        "$(ratio "$(median ${RES[casq,$sc,rate]})" "$(median ${RES[redis,$sc,rate]})")" \
        "$(ratio "$(median ${RES[casq,$sc,total]})" "$(median ${RES[redis,$sc,total]})")" \
        "$(ratio "$(median ${RES[casq,$sc,main]})" "$(median ${RES[redis,$sc,main]})")"
done
