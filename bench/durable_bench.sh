#!/usr/bin/env bash
# durable_bench.sh -- durable writes: casq's group commit (file store, its
# default settings) against redis-server --appendonly yes --appendfsync
# always, in the same run, on the same disk.
#
# A benchmark, not a test: it asserts nothing and prints figures. In both
# servers a reply to a write is sent only after the write is fsynced, so the
# comparison is durable against durable.
#
# Parts (PARTS="xadd jobs sizes"):
#   xadd   acknowledged XADD throughput and latency at 1, 10, 50 and 200
#          concurrent clients, each in a closed loop (bench/xadd_load.c),
#          XADD ... MAXLEN ~ $MAXLEN so the stream (and casq's document)
#          stays the same size during the whole measurement.
#   jobs   a steady-state job loop (bench/durable_bench.c): pushers XADD,
#          workers XREADGROUP + XACK + XDEL, live queue <= 10,000 jobs,
#          once from an empty queue and once from a backlog of 10,000.
#   sizes  casq's commit cost against the stream length: for 1k, 10k, 100k
#          and 1M entries, the document size, the latency of one durable
#          XADD (one commit of the whole document), and the load time at
#          start-up.
#
# Every xadd/jobs measurement is repeated REPEAT times, casq and redis
# alternating (so background noise hits both alike); tables show medians and
# the ratio casq/redis (throughput: > 1 means casq is faster; latency: < 1
# means casq is faster). On a shared machine compare the ratios of one run,
# not figures across runs.
#
# Steady state: these runs are shorter than casq's grace period (60 s), so
# no segment is deleted while they measure. A long-running server deletes
# about as many as it seals; to measure that, make collection start at
# once and load the server first:
#   STEADY=15 CASQ_ARGS="--broker-timeout 1000 --segment-gc-grace 0" \
#       PARTS=xadd bench/durable_bench.sh
#
# Knobs: REPEAT=3 SECS=3 CLIENTS="1 10 50 200" MAXLEN=1000
#        CASQ_ARGS="..." (casq's options) STEADY=0 (seconds of XADD load at
#        50 clients on casq before the xadd rows)
#        SIZES="1000 10000 100000 1000000" PARTS="xadd jobs sizes"
#        PORT_BASE=26300 (uses 26300-26399) KEEP=1 (keep the work directory)
#        CASQ_BIN=path (default build/release/casq-server, built if missing)
#        CPULIST=cpulist (both servers' threads on those CPUs: bench/lib.sh)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEAT=${REPEAT:-3}
SECS=${SECS:-3}
CLIENTS=${CLIENTS:-"1 10 50 200"}
MAXLEN=${MAXLEN:-1000}
SIZES=${SIZES:-"1000 10000 100000 1000000"}
PARTS=${PARTS:-"xadd jobs sizes"}
CASQ_ARGS=${CASQ_ARGS:-}
STEADY=${STEADY:-0}
PORT_BASE=${PORT_BASE:-26300}
CASQ_BIN=${CASQ_BIN:-$ROOT/build/release/casq-server}
BENCH=$ROOT/build/bench

BENCH_NAME=durable_bench
. "$ROOT/bench/lib.sh"

echo "# durable_bench: casq $("$CASQ" --version | awk '{print $3}') vs $(redis-server --version | awk '{print $3}'), appendfsync always"
echo "# machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); data in $WORK ($(df -T "$WORK" | awk 'NR==2 {print $2}'))"
echo "# REPEAT=$REPEAT SECS=$SECS MAXLEN=$MAXLEN${CASQ_ARGS:+ CASQ_ARGS=\"$CASQ_ARGS\"} STEADY=$STEADY${CPULIST:+ CPULIST=$CPULIST (server_cpulist and bio_cpulist of both servers)}"

# ------------------------------------------------------------------------
# xadd: throughput and latency at N clients
# ------------------------------------------------------------------------
if [[ " $PARTS " == *" xadd "* ]]; then
    startServer casq casq $CASQ_ARGS
    startServer redis redis
    if [ "$STEADY" -gt 0 ]; then
        "$BENCH/xadd_load" -p "${PORT[casq]}" -c 50 -d "$STEADY" -w 0 -k bench:xadd -s 100 -m "$MAXLEN" >/dev/null
        alive casq
        echo "# casq loaded for $STEADY s first: segments sealed $(info casq segments_sealed), deleted $(info casq segments_deleted)"
    fi
    echo
    echo "## Durable XADD (closed loop per client, MAXLEN ~ $MAXLEN, 100-byte values)"
    printf '%8s %10s %10s %6s | %8s %8s | %8s %8s %6s | %s\n' clients casq/s redis/s ratio \
        "casq p50" "redis p50" "casq p99" "redis p99" ratio "casq avg batch"
    for c in $CLIENTS; do
        declare -a ct=() rt=() cp5=() rp5=() cp9=() rp9=()
        # This row's batches: changes made durable per commit, from the
        # counters' growth during the row (INFO's average is lifelong).
        c0=$(info casq commits); d0=$(info casq durable_seq)
        for _ in $(seq "$REPEAT"); do
            for s in casq redis; do
                cli $s del bench:xadd >/dev/null
                out=$("$BENCH/xadd_load" -p "${PORT[$s]}" -c "$c" -d "$SECS" -w 1 -k bench:xadd -s 100 -m "$MAXLEN")
                alive $s
                if [ $s = casq ]; then
                    ct+=("$(field xadd_per_sec <<<"$out")"); cp5+=("$(field p50_ms <<<"$out")"); cp9+=("$(field p99_ms <<<"$out")")
                else
                    rt+=("$(field xadd_per_sec <<<"$out")"); rp5+=("$(field p50_ms <<<"$out")"); rp9+=("$(field p99_ms <<<"$out")")
                fi
            done
        done
        a=$(median "${ct[@]}"); b=$(median "${rt[@]}")
        p9a=$(median "${cp9[@]}"); p9b=$(median "${rp9[@]}")
        printf '%8s %10.0f %10.0f %6s | %8s %8s | %8s %8s %6s | %s\n' "$c" "$a" "$b" "$(ratio "$a" "$b")" \
            "$(median "${cp5[@]}")" "$(median "${rp5[@]}")" "$p9a" "$p9b" "$(ratio "$p9a" "$p9b")" \
            "$(awk -v c="$(( $(info casq commits) - c0 ))" -v d="$(( $(info casq durable_seq) - d0 ))" \
                'BEGIN { printf "%.2f", (c > 0 ? d / c : 0) }')"
    done
    echo "# casq commits: $(info casq commits), latency p50 $(info casq commit_latency_p50_ms) ms," \
        "p99 $(info casq commit_latency_p99_ms) ms, document $(info casq document_bytes) bytes"
    stopServer casq
    stopServer redis
fi

# ------------------------------------------------------------------------
# jobs: the steady-state job loop
# ------------------------------------------------------------------------
if [[ " $PARTS " == *" jobs "* ]]; then
    echo
    echo "## Job loop: 4 pushers (XADD), 4 workers (XREADGROUP COUNT 10 + XACK + XDEL), live queue <= 10000"
    printf '%-22s %10s %10s %6s | %9s %9s | %9s %9s\n' start casq/s redis/s ratio "casq p50" "redis p50" \
        "casq p99" "redis p99"
    for prefill in 0 10000; do
        declare -a ct=() rt=() cp5=() rp5=() cp9=() rp9=()
        for _ in $(seq "$REPEAT"); do
            for s in casq redis; do
                startServer $s $s
                out=$("$BENCH/durable_bench" -p "${PORT[$s]}" -P 4 -W 4 -c 10 -l 10000 -f "$prefill" -d "$SECS")
                alive $s
                stopServer $s
                if [ $s = casq ]; then
                    ct+=("$(field jobs_per_sec <<<"$out")"); cp5+=("$(field job_p50_ms <<<"$out")"); cp9+=("$(field job_p99_ms <<<"$out")")
                else
                    rt+=("$(field jobs_per_sec <<<"$out")"); rp5+=("$(field job_p50_ms <<<"$out")"); rp9+=("$(field job_p99_ms <<<"$out")")
                fi
            done
        done
        a=$(median "${ct[@]}"); b=$(median "${rt[@]}")
        label="empty queue"
        [ "$prefill" -gt 0 ] && label="backlog of $prefill"
        printf '%-22s %10.0f %10.0f %6s | %9s %9s | %9s %9s\n' "$label" "$a" "$b" "$(ratio "$a" "$b")" \
            "$(median "${cp5[@]}")" "$(median "${rp5[@]}")" "$(median "${cp9[@]}")" "$(median "${rp9[@]}")"
    done
    echo "# job latency: XADD sent -> XDEL acknowledged; with a backlog it includes the wait behind it"
fi

# ------------------------------------------------------------------------
# sizes: commit cost against the stream length
# ------------------------------------------------------------------------
if [[ " $PARTS " == *" sizes "* ]]; then
    echo
    echo "## casq: commit cost against stream length (entries of ~40 bytes of fields)"
    printf '%10s %14s %12s %12s %14s %10s %10s\n' entries "document bytes" "xadd p50 ms" "xadd p99 ms" \
        "last commit ms" "encode ms" "load ms"
    for n in $SIZES; do
        startServer casq casq $CASQ_ARGS
        # Fill, pipelined (the commits batch thousands of XADDs each).
        redis-benchmark -p "${PORT[casq]}" -c 1 -P 1000 -n "$n" XADD bench:size '*' job 'resize photo 1234567' \
            >/dev/null 2>&1
        len=$(cli casq xlen bench:size)
        bytes=$(info casq document_bytes)
        # MAXLEN ~ n keeps the stream at about n entries while measuring.
        out=$("$BENCH/xadd_load" -p "${PORT[casq]}" -c 1 -d "$SECS" -w 0.5 -k bench:size -s 20 -m "$n")
        commit=$(info casq commit_last_latency_ms)
        encode=$(info casq commit_last_encode_ms)
        stopServer casq
        d=${DIR[casq]}
        # Load time: start again on the same document.
        "$CASQ" --port "${PORT[casq]}" --bind 127.0.0.1 --dir "$d" >"$d/log2" 2>&1 &
        PID[casq]=$!
        for _ in $(seq 1200); do [ "$(cli casq ping 2>/dev/null)" = PONG ] && break; sleep 0.05; done
        load=$(grep -o 'loaded in [0-9]* ms' "$d/log2" | awk '{print $3}')
        stopServer casq
        rm -rf "$d"
        printf '%10s %14s %12s %12s %14s %10s %10s\n' "$len" "$bytes" "$(field p50_ms <<<"$out")" \
            "$(field p99_ms <<<"$out")" "$commit" "$encode" "$load"
    done
    echo "# xadd p50/p99: one client, one XADD at a time: each waits for one commit of the whole document;"
    echo "# encode: main-thread time spent producing the document (the rest of a commit is on the store's thread)"
fi
