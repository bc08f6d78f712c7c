#!/usr/bin/env bash
# bench_backlog.sh -- does a backlog slow acknowledgements down? (issue 9,
# docs/state-format.md "Segments")
#
# A benchmark, not a test: it asserts nothing and prints figures. For each
# backlog size (BACKLOGS, default "0 1000000" entries of ~100 bytes in the
# stream being written), casq (file store, default segment settings) and
# redis-server --appendfsync always get the same backlog, then:
#
#   load     casq's start-up time on the backlog written inline (a format 2
#            document as an older casq, or an export, has it), and again
#            after it was sealed into segments (a restart)
#   xadd     durable XADD at 1 and 50 clients (bench/xadd_load.c) into the
#            backlog stream: throughput, p50, p99, casq/redis; and casq's
#            cost per commit while it ran: root bytes per commit, and all
#            bytes written (roots + segments) per byte of entry appended
#   jobs     the job loop on the backlog (bench/durable_bench.c -b): 4
#            pushers add at the tail while 4 workers XREADGROUP from the
#            head (group at 0) + XACK + XDEL
#
# The goals (issue 9): with a 1M backlog, XADD and the job loop at >= 0.8x
# the empty-state figures (p50 within 1.5x), root bytes per commit <= 64 KB
# plus the pending lists, bytes written per appended byte <= 3.
#
# Every backlog's casq and redis run side by side, and the XADD
# measurements go round them REPEAT times (medians), so that a slow moment
# of a shared machine hits all of them alike.
#
# Knobs: BACKLOGS="0 1000000" SECS=5 REPEAT=3 CLIENTS="1 50" PORT_BASE=26400
#        (uses 26400-26499) KEEP=1 CASQ_BIN=path JOBS=0 (skip the job loop)
#        CASQ_ARGS="--segment-seal-bytes 16384 ..." (casq's options)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BACKLOGS=${BACKLOGS:-"0 1000000"}
SECS=${SECS:-5}
REPEAT=${REPEAT:-3}
CLIENTS=${CLIENTS:-"1 50"}
PORT_BASE=${PORT_BASE:-26400}
CASQ_BIN=${CASQ_BIN:-$ROOT/build/release/casq-server}
CASQ_ARGS=${CASQ_ARGS:-}
JOBS=${JOBS:-1}
BENCH=$ROOT/build/bench
BENCH_NAME=bench_backlog
. "$ROOT/bench/lib.sh"

KEY=backlog
VALUE=$(printf 'x%.0s' $(seq 100))

# gen_doc PATH N: a format 2 document holding stream $KEY with N entries
# (fields t 0 p <100 bytes>, as durable_bench's backlog) and no groups.
gen_doc() {
    /usr/bin/python3 - "$1" "$2" "$KEY" "$VALUE" <<'EOF'
import sys
path, n, key, value = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
base = 1700000000000
with open(path, "w") as f:
    f.write('{"format":2,"commit_seq":1,"databases":[{"id":0,"keys":[{"key":"%s","type":"stream","stream":'
            '{"length":%d,"last_id":"%d-0","first_id":"%d-0","max_deleted_id":"0-0","entries_added":%d,'
            '"entries":[' % (key, n, base + n - 1, base, n))
    for i in range(n):
        f.write('%s["%d-0","t","0","p","%s"]' % ("," if i else "", base + i, value))
    f.write('],"groups":[]}}]}]}\n')
EOF
}

# redis_fill NAME N: the same backlog into redis-server (pipelined).
redis_fill() {
    /usr/bin/python3 -c "
import sys
base = 1700000000000
out = sys.stdout.buffer
for i in range($2):
    out.write(b'*7\r\n\$4\r\nXADD\r\n\$%d\r\n%s\r\n\$15\r\n%d-0\r\n\$1\r\nt\r\n\$1\r\n0\r\n\$1\r\np\r\n\$100\r\n%s\r\n'
              % (len('$KEY'), b'$KEY', base + i, b'$VALUE'))
" | cli "$1" --pipe >/dev/null
}

ready_ms() { # ready_ms NAME: ms from the process start to PONG
    local t0=$1 p=$2
    for _ in $(seq 6000); do
        [ "$(redis-cli -p "$p" ping 2>/dev/null)" = PONG ] && { echo $(($(date +%s%3N) - t0)); return; }
        sleep 0.01
    done
    echo -1
}

# settle NAME: waits until sealing is done (the root small again).
settle() {
    for _ in $(seq 600); do
        local r; r=$(info "$1" root_bytes_last)
        [ "$(info "$1" segments_seal_in_progress)" = 0 ] && [ "${r:-0}" -lt 1048576 ] && return 0
        sleep 0.2
    done
}

total_written() { echo $(( $(info "$1" store_file_bytes_written) + $(info "$1" store_file_segment_bytes_written) )); }

echo "# bench_backlog: casq $("$CASQ" --version | awk '{print $3}') vs $(redis-server --version | awk '{print $3}') appendfsync always"
echo "# machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); SECS=$SECS REPEAT=$REPEAT"
declare -A RES

# --- 1. every backlog's casq and redis, started and left running -------
for n in $BACKLOGS; do
    echo
    echo "## backlog $n entries: loading"
    # casq: start on the inline document, let it seal, restart
    startServer "casq$n" casq $CASQ_ARGS
    stopServer "casq$n"
    if [ "$n" -gt 0 ]; then
        rm -f "${DIR[casq$n]}"/queue.json*
        gen_doc "${DIR[casq$n]}/queue.json" "$n"
        echo "inline document: $(stat -c %s "${DIR[casq$n]}/queue.json") bytes"
    fi
    t0=$(date +%s%3N)
    "$CASQ" --port "${PORT[casq$n]}" --bind 127.0.0.1 --dir "${DIR[casq$n]}" $CASQ_ARGS >>"${DIR[casq$n]}/log" 2>&1 &
    PID[casq$n]=$!
    echo "casq load, inline: $(ready_ms "$t0" "${PORT[casq$n]}") ms"
    settle "casq$n"
    echo "sealed: $(info "casq$n" segments) segments, $(info "casq$n" segments_bytes) bytes; root $(info "casq$n" root_bytes_last) bytes"
    stopServer "casq$n"
    t0=$(date +%s%3N)
    "$CASQ" --port "${PORT[casq$n]}" --bind 127.0.0.1 --dir "${DIR[casq$n]}" $CASQ_ARGS >>"${DIR[casq$n]}/log" 2>&1 &
    PID[casq$n]=$!
    echo "casq load, from segments: $(ready_ms "$t0" "${PORT[casq$n]}") ms (root $(stat -c %s "${DIR[casq$n]}/queue.json") bytes)"
    startServer "redis$n" redis
    [ "$n" -gt 0 ] && redis_fill "redis$n" "$n"
    echo "redis backlog: $(cli "redis$n" xlen $KEY) entries"
done

# --- 2. durable XADD: every server in turn, REPEAT rounds ---------------
# Alternating (rather than one backlog after the other) makes a slow
# moment of the machine hit every server alike.
# Bytes of one entry as the document holds it: ["<id>","p","<100>"].
perentry=130
for c in $CLIENTS; do
    for r in $(seq "$REPEAT"); do
        for n in $BACKLOGS; do
            s=casq$n
            c0=$(info $s commits); w0=$(total_written $s); d0=$(info $s store_file_bytes_written)
            out=$("$BENCH/xadd_load" -p "${PORT[$s]}" -c "$c" -d "$SECS" -w 1 -k $KEY -s 100)
            alive $s
            c1=$(info $s commits); w1=$(total_written $s); d1=$(info $s store_file_bytes_written)
            acked=$(field acked <<<"$out")
            RES[$n,$c,casq]+=" $(field xadd_per_sec <<<"$out")"
            RES[$n,$c,casq50]+=" $(field p50_ms <<<"$out")"
            RES[$n,$c,casq99]+=" $(field p99_ms <<<"$out")"
            RES[$n,$c,root]+=" $(awk -v d=$((d1 - d0)) -v c=$((c1 - c0)) 'BEGIN { printf "%.0f", c ? d / c : 0 }')"
            RES[$n,$c,wroot]+=" $(awk -v d=$((d1 - d0)) -v a="$acked" -v e=$perentry 'BEGIN { printf "%.2f", a ? d / (a * e) : 0 }')"
            RES[$n,$c,wseg]+=" $(awk -v d=$((d1 - d0)) -v w=$((w1 - w0)) -v a="$acked" -v e=$perentry 'BEGIN { printf "%.2f", a ? (w - d) / (a * e) : 0 }')"
            s=redis$n
            out=$("$BENCH/xadd_load" -p "${PORT[$s]}" -c "$c" -d "$SECS" -w 1 -k $KEY -s 100)
            alive $s
            RES[$n,$c,redis]+=" $(field xadd_per_sec <<<"$out")"
            RES[$n,$c,redis50]+=" $(field p50_ms <<<"$out")"
            RES[$n,$c,redis99]+=" $(field p99_ms <<<"$out")"
        done
    done
done

med() { median ${RES[$1]}; } # med KEY: the median of what RES[KEY] collected
for n in $BACKLOGS; do
    echo
    echo "## backlog $n entries: durable XADD (medians of $REPEAT)"
    printf '%8s %10s %10s %6s | %8s %8s | %8s %8s | %12s %10s %s\n' clients casq/s redis/s ratio "casq p50" "redis p50" \
        "casq p99" "redis p99" "root B/commit" "written/B" "(root+seg)"
    for c in $CLIENTS; do
        a=$(med "$n,$c,casq"); b=$(med "$n,$c,redis"); wr=$(med "$n,$c,wroot"); ws=$(med "$n,$c,wseg")
        printf '%8s %10.0f %10.0f %6s | %8s %8s | %8s %8s | %12s %10s %s\n' "$c" "$a" "$b" "$(ratio "$a" "$b")" \
            "$(med "$n,$c,casq50")" "$(med "$n,$c,redis50")" "$(med "$n,$c,casq99")" "$(med "$n,$c,redis99")" \
            "$(med "$n,$c,root")" "$(awk -v r="$wr" -v s="$ws" 'BEGIN { printf "%.2f", r + s }')" "$wr+$ws"
    done
done

# --- 3. the job loop on each backlog (it consumes it: one after another) -
for n in $BACKLOGS; do
    stopServer "redis$n"
    [ "$JOBS" = 1 ] || { stopServer "casq$n"; continue; }
    out=$("$BENCH/durable_bench" -p "${PORT[casq$n]}" -P 4 -W 4 -c 10 -k $KEY -b "$n" -l 10000 -d "$SECS")
    alive "casq$n"
    RES[$n,jobs]=$(field jobs_per_sec <<<"$out")
    echo "casq job loop, backlog $n: $(field jobs_per_sec <<<"$out") jobs/s, p50 $(field job_p50_ms <<<"$out") ms," \
        "p99 $(field job_p99_ms <<<"$out") ms; root $(info "casq$n" root_bytes_last) bytes," \
        "segments $(info "casq$n" segments) ($(info "casq$n" segments_sealed) sealed, $(info "casq$n" segments_rewritten) rewritten," \
        "$(info "casq$n" segments_deleted) deleted since start)"
    stopServer "casq$n"
done

set -- $BACKLOGS
if [ $# -ge 2 ]; then
    first=$1; last=${!#}
    echo
    echo "## backlog $last vs $first (goal >= 0.8; p50 ratio goal <= 1.5; measured alternately)"
    for c in $CLIENTS; do
        echo "xadd $c clients: $(ratio "$(med "$last,$c,casq")" "$(med "$first,$c,casq")")" \
            "(p50 $(med "$last,$c,casq50") vs $(med "$first,$c,casq50") ms; redis itself: $(ratio "$(med "$last,$c,redis")" "$(med "$first,$c,redis")"))"
    done
    if [ "$JOBS" = 1 ]; then echo "job loop: $(ratio "${RES[$last,jobs]}" "${RES[$first,jobs]}")"; fi
fi
