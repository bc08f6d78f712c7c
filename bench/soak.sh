#!/bin/bash
# soak.sh -- a long run: does anything grow that should not?
#
# A benchmark, not a test: it asserts nothing and prints figures. Runs that
# last less than the segment grace period (60 s) never see a segment
# deleted; this one runs for minutes, as a server does, and watches what a
# long life accumulates. casq alone (file store, its defaults unless
# CASQ_ARGS), two loads at once for SECS seconds:
#
#   jobs   bench/durable_bench.c: PUSHERS pushers XADD, WORKERS workers
#          XREADGROUP + XACK + XDEL (a job queue that stays short; the
#          stream's segments die from their head);
#   trim   bench/xadd_load.c: TRIM_CLIENTS clients XADD MAXLEN ~ 5000 into
#          a second stream.
#
# Every INTERVAL seconds one line: the server's resident memory, the files
# in the segments' directory (and how many of them are kept for reuse,
# `.free.*`), the data directory's megabytes, the root's size, the objects
# the root names (INFO `segments`) and those waiting out the grace period
# (`segments_garbage`), and the segment counters.
# When the loads end it waits for the grace period (plus 5 s) and counts
# the files again: only the segments the root names and the kept files
# should be left. Then a summary: throughput and errors of both loads,
# first / max / last of memory, files and megabytes.
#
# Healthy: memory, files and megabytes level off after the first grace
# period; errors 0; the files left at the end are the named ones plus at
# most 256 kept ones. (Stop 24: 20 minutes, 22.4M jobs, memory flat at
# 39 MB, 4,600-7,500 files, 45-126 MB.)
#
# Knobs: SECS=600 INTERVAL=30 PUSHERS=16 WORKERS=8 TRIM_CLIENTS=4
#        PORT_BASE=26700 (uses 26700-26799) KEEP=1 CASQ_BIN=path
#        CASQ_ARGS="--segment-gc-grace 10000 ..." (casq's options)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-600}
INTERVAL=${INTERVAL:-30}
PUSHERS=${PUSHERS:-16}
WORKERS=${WORKERS:-8}
TRIM_CLIENTS=${TRIM_CLIENTS:-4}
CASQ_ARGS=${CASQ_ARGS:-}
PORT_BASE=${PORT_BASE:-26700}
CASQ_BIN=${CASQ_BIN:-$ROOT/build/release/casq-server}
BENCH=$ROOT/build/bench

BENCH_NAME=soak
. "$ROOT/bench/lib.sh"

startServer casq casq $CASQ_ARGS
SEGDIR=${DIR[casq]}/queue.json.segments
GRACE_MS=$(cli casq config get segment-gc-grace | tail -1)
echo "# soak: casq $("$CASQ" --version | awk '{print $3}'), $(nproc) cores, SECS=$SECS" \
    "PUSHERS=$PUSHERS WORKERS=$WORKERS TRIM_CLIENTS=$TRIM_CLIENTS segment-gc-grace=$GRACE_MS ms" \
    "${CASQ_ARGS:+CASQ_ARGS=\"$CASQ_ARGS\"}"
echo "# data in ${DIR[casq]}"

# sample: one line of figures, also kept in $WORK/samples
sample() {
    local rss files kept mb
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/${PID[casq]}/status")
    files=$(find "$SEGDIR" -maxdepth 1 -type f 2>/dev/null | wc -l)
    kept=$(find "$SEGDIR" -maxdepth 1 -type f -name '.free.*' 2>/dev/null | wc -l)
    mb=$(du -sm "${DIR[casq]}" 2>/dev/null | cut -f1)
    printf '%s rss_kb=%s files=%s kept=%s mb=%s root_bytes=%s named=%s garbage=%s sealed=%s manifests=%s deleted=%s\n' \
        "$(date +%T)" "$rss" "$files" "$kept" "$mb" "$(info casq root_bytes_last)" "$(info casq segments)" \
        "$(info casq segments_garbage)" "$(info casq segments_sealed)" "$(info casq segments_manifests_written)" \
        "$(info casq segments_deleted)" |
        tee -a "$WORK/samples"
}

"$BENCH/durable_bench" -p "${PORT[casq]}" -P "$PUSHERS" -W "$WORKERS" -c 20 -l 100000 -f 20000 -d "$SECS" \
    -s 200 >"$WORK/jobs.out" 2>&1 &
JOBS_PID=$!
"$BENCH/xadd_load" -p "${PORT[casq]}" -c "$TRIM_CLIENTS" -d "$SECS" -w 0 -k soak:trim -s 100 -m 5000 \
    >"$WORK/trim.out" 2>&1 &
TRIM_PID=$!
END=$((SECONDS + SECS))
while [ $SECONDS -lt $END ]; do
    sleep "$INTERVAL"
    alive casq
    sample
done
wait $JOBS_PID $TRIM_PID
alive casq

WAIT=$((GRACE_MS / 1000 + 5))
echo "# loads ended; waiting ${WAIT} s (grace period + 5 s) for collection"
sleep "$WAIT"
alive casq
LAST=$(sample)

col() { sed -n "s/.* $1=\\([0-9]*\\).*/\\1/p" "$WORK/samples"; } # col NAME: that figure, one per sample
summary() { # summary NAME: first / max / last of the load's samples
    local v
    v=$(col "$1" | head -n -1)
    printf '%-8s first %8s  max %8s  last %8s\n' "$1" "$(echo "$v" | head -1)" \
        "$(echo "$v" | sort -n | tail -1)" "$(echo "$v" | tail -1)"
}
echo
echo "## summary"
echo "jobs: $(cat "$WORK/jobs.out")"
echo "trim: $(cat "$WORK/trim.out")"
for f in rss_kb files mb root_bytes garbage; do summary $f; done
echo "after collection: files=$(echo "$LAST" | sed -n 's/.* files=\([0-9]*\).*/\1/p')" \
    "(named $(echo "$LAST" | sed -n 's/.* named=\([0-9]*\).*/\1/p')," \
    "kept $(echo "$LAST" | sed -n 's/.* kept=\([0-9]*\).*/\1/p'))"
