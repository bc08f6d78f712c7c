#!/usr/bin/env bash
# bench_keyspace.sh -- does a big keyspace slow durable writes down? (key
# segments, docs/state-format.md "Key segments")
#
# A benchmark, not a test: it asserts nothing and prints figures. For each
# keyspace size (KEYSPACES, default "0 100000" job hashes of 10 fields, as
# RQ keeps a job: about 250 bytes of JSON each), casq (file store, default
# settings) and redis-server --appendfsync always get the same keys, wait
# QUIET seconds (casq seals them into key segments), then:
#
#   set      durable SET of 1,000 hot keys, redis-benchmark -c 1 and -c 50
#            (-r 1000): throughput and p50 (ms), casq/redis, and casq's mean
#            root bytes per commit while it ran
#   hset     durable HSET into the preloaded job hashes (-r over all of
#            them, -c 50): a change to a sealed key
#
# The goal: with 100,000 job hashes, durable writes at >= 0.8x the
# empty-state figures (commit cost follows what changed, not the keyspace).
# Before key segments casq wrote every key at every commit: 200 SET/s at
# 50 clients with 100,000 hashes against ~6,500 on an empty state.
#
# Knobs: KEYSPACES="0 100000" N=20000 N1=2000 REPEAT=3 QUIET=3
#        PORT_BASE=26500 (uses 26500-26599) KEEP=1 CASQ_BIN=path
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KEYSPACES=${KEYSPACES:-"0 100000"}
N=${N:-20000}
N1=${N1:-2000}
REPEAT=${REPEAT:-3}
QUIET=${QUIET:-3}
PORT_BASE=${PORT_BASE:-26500}
CASQ_BIN=${CASQ_BIN:-$ROOT/build/release/casq-server}
BENCH=$ROOT/build/bench
BENCH_NAME=bench_keyspace
mkdir -p "$BENCH"
. "$ROOT/bench/lib.sh"
command -v redis-benchmark >/dev/null || die "redis-benchmark not found (apt-get install redis-tools)"
/usr/bin/python3 -c 'import redis' 2>/dev/null || die "/usr/bin/python3 has no redis module (python3-redis)"

preload() { # preload NAME COUNT
    /usr/bin/python3 - "${PORT[$1]}" "$2" <<'EOF'
import redis, sys
r = redis.Redis(port=int(sys.argv[1]))
n = int(sys.argv[2])
fields = {f"f{j}": "v" * 10 for j in range(10)}
for b in range(0, n, 1000):
    p = r.pipeline(transaction=False)
    for i in range(b, min(n, b + 1000)):
        p.hset(f"rq:job:{i:012d}", mapping=fields)
    p.execute()
EOF
}

# rb NAME CLIENTS REQUESTS TEST RANGE -> "rps p50". TEST hset is one field
# of a preloaded job hash (redis-benchmark's own -t hset writes one key,
# "myhash"); __rand_int__ is 12 digits, as preload names the jobs.
rb() {
    if [ "$4" = hset ]; then
        redis-benchmark -p "${PORT[$1]}" -c "$2" -n "$3" -r "$5" --csv HSET 'rq:job:__rand_int__' f0 vvvvvvvvvv
    else
        redis-benchmark -p "${PORT[$1]}" -c "$2" -n "$3" -t "$4" -r "$5" --csv
    fi 2>/dev/null | tail -1 | awk -F'"' '{ print $4, $10 }' # rps, p50_latency_ms
}

declare -A RES
for ks in $KEYSPACES; do
    for s in casq redis; do
        if [ $s = casq ]; then startServer casq casq; else startServer redis redis; fi
        [ "$ks" -gt 0 ] && preload $s "$ks"
    done
    sleep "$QUIET"
    for rep in $(seq "$REPEAT"); do
        for s in casq redis; do
            alive $s
            [ $s = casq ] && w0=$(info casq store_file_bytes_written) c0=$(info casq commits)
            read -r a ap < <(rb $s 50 "$N" set 1000)
            read -r b bp < <(rb $s 1 "$N1" set 1000)
            hr=$([ "$ks" -gt 0 ] && rb $s 50 "$N" hset "$ks" | cut -d' ' -f1 || echo 0)
            RES[$ks,$s,set50]+="$a " RES[$ks,$s,p50]+="$ap " RES[$ks,$s,set1]+="$b " RES[$ks,$s,p1]+="$bp "
            RES[$ks,$s,hset]+="$hr "
            # The HSETs took keys out of their segments: let them settle
            # (sealed again) before the next SET, which measures the
            # steady state.
            [ "$ks" -gt 0 ] && sleep "$QUIET"
            [ $s = casq ] && w1=$(info casq store_file_bytes_written) c1=$(info casq commits)
        done
        RES[$ks,root]+="$(awk -v w="$((w1 - w0))" -v c="$((c1 - c0))" 'BEGIN { printf "%.0f", c ? w / c : 0 }') "
    done
    for s in casq redis; do stopServer $s; done
done

printf '\n%-9s %-6s %12s %8s %12s %8s %12s %14s\n' keyspace server "SET -c50/s" p50ms "SET -c1/s" p50ms "HSET -c50/s" "root B/commit"
for ks in $KEYSPACES; do
    for s in casq redis; do
        printf '%-9s %-6s %12.0f %8s %12.0f %8s %12.0f %14s\n' "$ks" $s "$(median ${RES[$ks,$s,set50]})" \
            "$(median ${RES[$ks,$s,p50]})" "$(median ${RES[$ks,$s,set1]})" "$(median ${RES[$ks,$s,p1]})" \
            "$(median ${RES[$ks,$s,hset]})" "$([ $s = casq ] && median ${RES[$ks,root]} || echo -)"
    done
done
echo
set -- $KEYSPACES
first=$1
for ks in $KEYSPACES; do
    [ "$ks" = "$first" ] && continue
    printf 'keyspace %s vs %s (casq): SET -c50 %sx, SET -c1 %sx;  casq/redis at %s: SET -c50 %sx, SET -c1 %sx, HSET -c50 %sx\n' \
        "$ks" "$first" \
        "$(ratio "$(median ${RES[$ks,casq,set50]})" "$(median ${RES[$first,casq,set50]})")" \
        "$(ratio "$(median ${RES[$ks,casq,set1]})" "$(median ${RES[$first,casq,set1]})")" "$ks" \
        "$(ratio "$(median ${RES[$ks,casq,set50]})" "$(median ${RES[$ks,redis,set50]})")" \
        "$(ratio "$(median ${RES[$ks,casq,set1]})" "$(median ${RES[$ks,redis,set1]})")" \
        "$(ratio "$(median ${RES[$ks,casq,hset]})" "$(median ${RES[$ks,redis,hset]})")"
done
