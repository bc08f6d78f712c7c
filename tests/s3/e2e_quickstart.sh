#!/usr/bin/env bash
# e2e_quickstart.sh -- runs the "Quick start" of docs/s3.md as written, so
# the steps a new user follows keep working: three environment variables,
# one flag, push jobs, SIGKILL casq mid-load, restart, every acknowledged
# job is there.
#
# The shell blocks between the quickstart:begin/end markers are run as one
# bash script, with only these mechanical substitutions so that the run
# cannot collide with anything else on the machine:
#   casq-server / redis-cli   get `--port P` / `-p P` (P free in E2E_PORT_BASE+900..999)
#   s3://casq-test/queue.json a fresh key in the same bucket
#   http://127.0.0.1:22480    $S3_ENDPOINT (the same unless RGW_PORT moved)
# It runs in a temporary directory where ./src points at the repository's
# src/. Afterwards the servers it left running are stopped and the line
# `acknowledged: N, lost: M` is checked (N > 0, M = 0).
#
# Needs the environment of tests/s3/run_e2e.sh (S3_ENDPOINT and the test
# RGW's credentials). Ends with `N passed, N failed`.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DOC=$ROOT/docs/s3.md
S3_ENDPOINT=${S3_ENDPOINT:?run from tests/s3/run_e2e.sh}
WORK=$(mktemp -d /tmp/casq-quickstart.XXXXXX)
pass=0
fail=0
check() { # name cond-exit-status [detail]
    if [ "$2" = 0 ]; then
        pass=$((pass + 1)); echo "[ok]: $1"
    else
        fail=$((fail + 1)); echo "[err]: $1"; [ -n "${3:-}" ] && echo "$3" | sed 's/^/    /'
    fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=
BASE=${E2E_PORT_BASE:-30000}
for p in $(seq $((BASE + 900 + $$ % 50)) $((BASE + 999))); do
    if port_free "$p"; then PORT=$p; break; fi
done
[ -n "$PORT" ] || { echo "no free port"; echo "0 passed, 1 failed"; exit 1; }
KEY=quickstart-$$-$(date +%s).json

# The bucket the Quick start names (rgw.sh creates it; a reused RGW may not have it).
curl -s -o /dev/null --max-time 5 -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" \
    --user "casqtestaccesskey:casqtestsecretkey0123456789abcdefghijkl" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$S3_ENDPOINT/casq-test"

# The script, as written in the doc.
sed -n '/<!-- quickstart:begin/,/<!-- quickstart:end/p' "$DOC" |
    awk '/^```sh/ { on = 1; next } /^```/ { on = 0; next } on' >"$WORK/as-written.sh"
check "docs/s3.md has a Quick start script" "$([ -s "$WORK/as-written.sh" ]; echo $?)"
check "it uses one flag (--store) and three environment variables" \
    "$(grep -q -- '--store s3://' "$WORK/as-written.sh" &&
       [ "$(grep -c '^export AWS_' "$WORK/as-written.sh")" = 3 ]; echo $?)" "$(cat "$WORK/as-written.sh")"

{
    sed -e "s#casq-server #casq-server --port $PORT #g" \
        -e "s#redis-cli #redis-cli -p $PORT #g" \
        -e "s#s3://casq-test/queue.json#s3://casq-test/$KEY#g" \
        -e "s#http://127.0.0.1:22480#$S3_ENDPOINT#g" "$WORK/as-written.sh"
    # Not part of the doc: stop what it left running.
    echo 'kill $(jobs -p) 2>/dev/null; wait'
} >"$WORK/run.sh"
ln -s "$ROOT/src" "$WORK/src"
echo "# running docs/s3.md's Quick start in $WORK (port $PORT, key $KEY)"
(cd "$WORK" && env -u AWS_ENDPOINT_URL -u AWS_ENDPOINT_URL_S3 -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
    -u AWS_REGION timeout 300 bash "$WORK/run.sh") >"$WORK/out.txt" 2>&1
rc=$?
line=$(grep -E '^acknowledged: [0-9]+, lost: [0-9]+$' "$WORK/out.txt" | tail -n 1)
echo "# $line"
check "the steps run (exit $rc)" "$rc" "$(tail -n 30 "$WORK/out.txt")"
acked=$(sed -n 's/^acknowledged: \([0-9]*\),.*/\1/p' <<<"$line")
lost=$(sed -n 's/.*lost: \([0-9]*\)$/\1/p' <<<"$line")
check "jobs were acknowledged before the SIGKILL (${acked:-none})" "$([ "${acked:-0}" -gt 0 ]; echo $?)" \
    "$(tail -n 30 "$WORK/out.txt")"
check "every acknowledged job is there after the restart (lost: ${lost:-?})" "$([ "${lost:-1}" = 0 ]; echo $?)"
check "the restarted server loaded the document" \
    "$(grep -q 'State document: .* keys' "$WORK/out.txt"; echo $?)" "$(grep 'State document' "$WORK/out.txt")"
check "nothing leaked into the log (sanitizer, assertion)" \
    "$(! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|ASSERTION FAILED|PANIC' "$WORK/out.txt"; echo $?)"

if [ "$fail" = 0 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$WORK"; else echo "# kept $WORK"; fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
