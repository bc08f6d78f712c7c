#!/usr/bin/env bash
# run_all.sh -- runs casq's test suites one after the other and sums them.
#
#   tests/run_all.sh [suite ...]        (what `make test` and friends call)
#
# Suites:
#   unit         C unit tests (build/<variant>/tests/unit-tests)
#   tcl          tcl-tests/ against casq
#   tcl-redis    tcl-tests/ against redis-server (proves the tests assert
#                Redis's behaviour), with --redis-aof for the persistence tests
#   integration  tests/integration/: redis-cli, redis-benchmark, redis-py,
#                ioredis, BullMQ, hostile input
#   durability   tests/durability/run.sh: SIGKILL under load, corrupt
#                documents, full disk, two writers
#   s3           tests/s3/run.sh: the S3 store against a real Ceph RGW
#   diff         tests/stream_diff.py: random stream commands, casq vs redis
#   fuzz         the libFuzzer targets (RESP parser, state-document loader), FUZZ_SECONDS each
#   valgrind     a scripted session against casq under valgrind
#
# Every suite ends its output with a line `N passed, N failed`; this script
# parses it, prints a table with each suite's counts and duration, and ends
# with the summed `N passed, N failed`. A suite that exits non-zero without
# reporting a failure, prints no summary line, or is missing counts as one
# failure. Exit status: 0 only if nothing failed.
#
# Ports: everything started from here uses 28000-28999 (the S3 suite's Ceph
# and RGW too), so a run never collides with a suite run by hand elsewhere.
#
# Environment: CASQ_BIN (server binary, default src/casq-server), UNIT_BIN,
# FUZZ_BIN, FUZZ_SECONDS, CASQ_SANITIZE=1 (sanitizer options for a
# build/san binary), TEST_LOG_DIR (default build/test-logs).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
PY=/usr/bin/python3
export CASQ_BIN=${CASQ_BIN:-$ROOT/src/casq-server}
UNIT_BIN=${UNIT_BIN:-$ROOT/build/release/tests/unit-tests}
FUZZ_BIN=${FUZZ_BIN:-$ROOT/build/fuzz/fuzz_resp}
export FUZZ_SECONDS=${FUZZ_SECONDS:-60}
LOG_DIR=${TEST_LOG_DIR:-$ROOT/build/test-logs}
mkdir -p "$LOG_DIR"

if [ "${CASQ_SANITIZE:-}" = 1 ]; then
    # Any report aborts the server (the harnesses see a crash or a bad exit
    # status); leaks are checked when it exits.
    export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:halt_on_error=1:disable_coredump=1
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export LSAN_OPTIONS=exitcode=23
fi

# The command line of each suite; empty if its files are not in the tree.
suite_cmd() {
    case "$1" in
    unit)        [ -x "$UNIT_BIN" ] && echo "$UNIT_BIN" ;;
    tcl)         [ -f tcl-tests/run.tcl ] &&
                     echo "tclsh tcl-tests/run.tcl --server casq --casq-bin $CASQ_BIN --baseport 28200 --portcount 300" ;;
    tcl-redis)   [ -f tcl-tests/run.tcl ] &&
                     echo "tclsh tcl-tests/run.tcl --server redis --redis-aof --baseport 28500 --portcount 300" ;;
    integration) echo "tests/integration/run.sh" ;;
    durability)  [ -x tests/durability/run.sh ] && echo "tests/durability/run.sh" ;;
    s3)          [ -x tests/s3/run.sh ] &&
                     echo "env RGW_PORT=28480 PROXY_PORT=28481 MON_V2_PORT=28300 MON_V1_PORT=28389 MS_PORT_MIN=28800 MS_PORT_MAX=28899 tests/s3/run.sh" ;;
    s3-e2e)      [ -x tests/s3/run_e2e.sh ] &&
                     echo "env RGW_PORT=28480 MON_V2_PORT=28300 MON_V1_PORT=28389 MS_PORT_MIN=28800 MS_PORT_MAX=28899 E2E_PROXY_PORT=28482 E2E_PORT_BASE=28000 tests/s3/run_e2e.sh" ;;
    sanitize)    echo "make --no-print-directory test-sanitize" ;;
    diff)        echo "tests/run_diffs.sh" ;;
    fuzz)        echo "tests/fuzz/run.sh $FUZZ_BIN" ;;
    valgrind)    echo "$PY tests/integration/valgrind_session.py" ;;
    *)           return 1 ;;
    esac
}

# A private temporary directory for this run (servers' dirs and logs): a
# cleanup of /tmp/casq-* by someone else on a shared machine cannot pull a
# running test's directory away. Removed at the end if everything passed.
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/casq-run.XXXXXX")
export TMPDIR=$RUN_TMP

suites=${*:-unit tcl tcl-redis integration durability s3 s3-e2e diff fuzz sanitize}
total_passed=0
total_failed=0
table=""
t0=$(date +%s)
for s in $suites; do
    cmd=$(suite_cmd "$s")
    if [ -z "$cmd" ]; then
        echo "##### $s: MISSING (its runner is not in the tree or not built)"
        table+=$(printf '%-12s %-8s %7s %7s %6s' "$s" MISSING 0 1 0)$'\n'
        total_failed=$((total_failed + 1))
        continue
    fi
    echo "##### $s: $cmd"
    log="$LOG_DIR/$s.log"
    start=$(date +%s)
    # Each suite runs in a session of its own, so that nothing it does to
    # its process group (a stray `kill 0`) can reach this script or make;
    # Ctrl-C here stops the suite's whole group.
    # shellcheck disable=SC2086 # the command line is split on purpose
    # shellcheck disable=SC2016 # expanded by the inner bash
    setsid bash -c 'set -o pipefail; "$@" 2>&1 | tee "$0"' "$log" $cmd </dev/null &
    suite_pid=$!
    trap 'kill -TERM -- -$suite_pid 2>/dev/null; echo "##### interrupted"; exit 130' INT TERM
    wait "$suite_pid"
    rc=$?
    trap - INT TERM
    secs=$(($(date +%s) - start))
    line=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        p=0
        f=1
        status="NO-SUMMARY"
    else
        p=${line%% passed*}
        f=${line#*passed, }
        f=${f%% failed*}
        status=ok
        [ "$f" != 0 ] && status=FAILED
        if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
            f=1
            status="EXIT-$rc"
        fi
    fi
    echo "##### $s: $p passed, $f failed in ${secs} s (exit $rc, log $log)"
    table+=$(printf '%-12s %-10s %7s %7s %6s' "$s" "$status" "$p" "$f" "$secs")$'\n'
    total_passed=$((total_passed + p))
    total_failed=$((total_failed + f))
done

echo
echo "================ casq test summary ($(($(date +%s) - t0)) s, logs in $LOG_DIR)"
printf '%-12s %-10s %7s %7s %6s\n' suite result passed failed secs
printf '%s' "$table"
if [ "$total_failed" = 0 ]; then
    rm -rf "$RUN_TMP"
else
    echo "(temporary files of this run kept in $RUN_TMP)"
fi
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
