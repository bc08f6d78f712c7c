#!/usr/bin/env bash
# rgw.sh -- a throw-away single-host Ceph with a RADOS Gateway, for tests.
#
#   tests/s3/rgw.sh start DIR   start (or reuse) the cluster kept in DIR and
#                               print `export ...` lines for eval
#   tests/s3/rgw.sh env DIR     print the same lines for a running cluster
#   tests/s3/rgw.sh stop DIR    stop radosgw, then the OSD, then the mon
#
# One monitor, one memstore OSD (everything in RAM: the data is gone after
# stop), radosgw's beast frontend on 127.0.0.1, no cephx. Start-up takes about
# two seconds. The recipe and its pitfalls are in docs/s3.md.
#
# Ports (overridable from the environment): RGW_PORT (22480) for S3, 22300
# and 22789 for the monitor, 22800-22899 for the OSD's messengers.
set -euo pipefail

RGW_PORT=${RGW_PORT:-22480}
MON_V2_PORT=${MON_V2_PORT:-22300}
MON_V1_PORT=${MON_V1_PORT:-22789}
MS_PORT_MIN=${MS_PORT_MIN:-22800}
MS_PORT_MAX=${MS_PORT_MAX:-22899}
# Fixed test credentials: this cluster only ever listens on 127.0.0.1.
ACCESS_KEY=casqtestaccesskey
SECRET_KEY=casqtestsecretkey0123456789abcdefghijkl
BUCKET=${S3_BUCKET:-casq-test}
REGION=us-east-1

die() { echo "rgw.sh: $*" >&2; exit 1; }

usage() { die "usage: $0 start|stop|env DIR"; }

[ $# -eq 2 ] || usage
CMD=$1
DIR=$2
CONF="$DIR/ceph.conf"

# ------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------

ensurePackages() {
    local missing=()
    for bin in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool curl; do
        command -v "$bin" >/dev/null 2>&1 || missing+=("$bin")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "rgw.sh: installing Ceph packages (missing: ${missing[*]})" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl >&2 ||
        { apt-get update >&2 &&
          apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl >&2; } ||
        die "could not install ceph-mon ceph-osd radosgw ceph-common"
}

# Alive and not a zombie: daemons that outlive this script are reparented to
# PID 1, which may take a while to reap them, and kill -0 succeeds on zombies.
procAlive() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

pidAlive() { [ -f "$1" ] && procAlive "$(cat "$1")"; }

# Waits up to $2 tenths of a second for command $1 to succeed.
waitFor() {
    local what=$1 tries=$2 i
    for ((i = 0; i < tries; i++)); do
        eval "$what" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

printEnv() {
    echo "export S3_ENDPOINT=http://127.0.0.1:$RGW_PORT" \
         "AWS_ACCESS_KEY_ID=$ACCESS_KEY" \
         "AWS_SECRET_ACCESS_KEY=$SECRET_KEY" \
         "AWS_REGION=$REGION" \
         "S3_BUCKET=$BUCKET"
}

# Signed S3 request with curl (SigV4). $1 method, $2 path.
s3curl() {
    curl -sS -o /dev/null -w '%{http_code}' --max-time 5 -X "$1" \
        --aws-sigv4 "aws:amz:$REGION:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
        "http://127.0.0.1:$RGW_PORT$2"
}

rgwListening() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$RGW_PORT/"; }

running() {
    pidAlive "$DIR/mon.pid" && pidAlive "$DIR/osd.pid" && pidAlive "$DIR/rgw.pid" && rgwListening
}

# SIGTERM, then SIGKILL after a short grace: a clean Ceph shutdown takes about
# two seconds per daemon, and this cluster keeps nothing worth a clean stop
# (memstore; the next start wipes DIR anyway).
STOP_GRACE_TENTHS=${STOP_GRACE_TENTHS:-5}

stopDaemon() { # $1 name
    local pidfile="$DIR/$1.pid" pid i
    [ -f "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    if procAlive "$pid"; then
        kill "$pid" 2>/dev/null || true
        for ((i = 0; i < STOP_GRACE_TENTHS * 2; i++)); do
            procAlive "$pid" || break
            sleep 0.05
        done
        if procAlive "$pid"; then
            kill -9 "$pid" 2>/dev/null || true
            for ((i = 0; i < 100; i++)); do
                procAlive "$pid" || break
                sleep 0.05
            done
            procAlive "$pid" && die "$1 (pid $pid) does not die"
        fi
    fi
    rm -f "$pidfile"
}

stopAll() {
    stopDaemon rgw
    stopDaemon osd
    stopDaemon mon
}

# Shows the tail of a daemon's log when start-up fails, then stops all.
failStart() {
    echo "rgw.sh: $1" >&2
    for f in "$DIR"/log/*.log "$DIR"/*.out; do
        [ -f "$f" ] || continue
        echo "--- $f" >&2
        tail -n 15 "$f" >&2
    done
    stopAll
    exit 1
}

writeConf() {
    local fsid=$1
    cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$MON_V2_PORT,v1:127.0.0.1:$MON_V1_PORT]
mon initial members = a
public addr = 127.0.0.1
ms bind port min = $MS_PORT_MIN
ms bind port max = $MS_PORT_MAX
# No cephx: a private cluster on loopback. radosgw then needs crc mode or it
# loops on EACCES and never listens.
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
run dir = $DIR/run
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
log to stderr = false
err to stderr = true
mon data = $DIR/mon/\$cluster-\$id
osd data = $DIR/osd/\$cluster-\$id
keyring = /dev/null
# One OSD on one host: pools of size 1, replicas chosen among OSDs.
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
# Without this every pool creation waits a full paxos round (~1 s).
paxos propose interval = 0.05
mon osd full ratio = 0.99
mon osd nearfull ratio = 0.98
osd objectstore = memstore
memstore device bytes = 1073741824
osd max object name len = 256
osd max object namespace len = 64

[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw data = $DIR/rgw
rgw dns name = 127.0.0.1
rgw enable usage log = false
EOF
}

start() {
    ensurePackages
    if running; then
        printEnv
        return 0
    fi
    # Anything half-started is useless (memstore forgets everything): begin anew.
    stopAll
    local port
    for port in "$RGW_PORT" "$MON_V2_PORT" "$MON_V1_PORT"; do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            die "port $port is in use (another cluster? stop it with: $0 stop ITS_DIR)"
        fi
    done
    rm -rf "$DIR"
    mkdir -p "$DIR"/{run,log,mon,osd/ceph-0,rgw}
    export CEPH_CONF="$CONF"
    local fsid osd_uuid osd_id
    fsid=$(cat /proc/sys/kernel/random/uuid)
    osd_uuid=$(cat /proc/sys/kernel/random/uuid)
    writeConf "$fsid"

    # Monitor.
    monmaptool --create --fsid "$fsid" \
        --addv a "[v2:127.0.0.1:$MON_V2_PORT,v1:127.0.0.1:$MON_V1_PORT]" \
        "$DIR/monmap" >"$DIR/mkfs.out" 2>&1 || failStart "monmaptool failed"
    ceph-mon --mkfs -i a --monmap "$DIR/monmap" >>"$DIR/mkfs.out" 2>&1 ||
        failStart "ceph-mon --mkfs failed"
    ceph-mon -i a -f >"$DIR/mon.out" 2>&1 &
    echo $! >"$DIR/mon.pid"

    # OSD: register it with the monitor, make its (in-memory) store, run it.
    osd_id=$(timeout 20 ceph osd new "$osd_uuid" 2>>"$DIR/mkfs.out") ||
        failStart "monitor did not answer 'ceph osd new'"
    [ "$osd_id" = 0 ] || failStart "unexpected OSD id '$osd_id'"
    ceph-osd -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$DIR/mkfs.out" 2>&1 ||
        failStart "ceph-osd --mkfs failed"
    ceph-osd -i 0 -f >"$DIR/osd.out" 2>&1 &
    echo $! >"$DIR/osd.pid"

    # The user exists in RADOS, so it must wait for the OSD; creating it also
    # creates radosgw's pools.
    radosgw-admin user create --uid=casq-test --display-name="casq test" \
        --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" \
        >"$DIR/user.out" 2>&1 || failStart "radosgw-admin user create failed"

    radosgw -n client.rgw.a -f >"$DIR/rgw.out" 2>&1 &
    echo $! >"$DIR/rgw.pid"
    waitFor rgwListening 300 || failStart "radosgw did not listen on 127.0.0.1:$RGW_PORT"

    local code
    code=$(s3curl PUT "/$BUCKET") || true
    [ "$code" = 200 ] || failStart "creating bucket $BUCKET: HTTP $code"
    printEnv
}

case "$CMD" in
start) start ;;
stop) stopAll ;;
env)
    running || die "no cluster running in $DIR"
    printEnv
    ;;
*) usage ;;
esac
