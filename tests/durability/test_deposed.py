#!/usr/bin/python3
"""test_deposed.py -- a broker that was replaced while idle must notice
(issue 14, fault 13).

Before the fix: node 1 starts, node 2 starts on the same document and takes
over (epoch 2); a group and an entry are added through node 2; ten seconds
later node 1 still said `broker_role:broker` at epoch 1, answered `XLEN
jobs` with 0 and XREADGROUP with NOGROUP: only a write taught it. The same
after SIGSTOP/SIGCONT of an idle broker.

Now an idle broker asks the store every broker-timeout/4 whether the
document is still the version it wrote, steps down when it is not, and
serves nothing from a state the store has not confirmed within
broker-timeout. Checked here on the file store:
  1. an idle deposed broker becomes a follower within about broker-timeout
     and its clients see the new state (never the stale one);
  2. a broker stopped (SIGSTOP) while a follower takes over never answers a
     read from its stale state after SIGCONT: it answers with the new state
     (relayed) or -TRYAGAIN, and becomes a follower.
"""

import os
import signal
import shutil
import sys
import tempfile
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port  # noqa: E402

BROKER_TIMEOUT_MS = 1000
_used = set()


def port():
    p = pick_port(27700, span=20, avoid=tuple(_used))
    _used.add(p)
    return p


def node(datadir, name):
    return Casq(port(), datadir, "--broker-timeout", str(BROKER_TIMEOUT_MS), logname=f"{name}.log")


def role(n):
    r = n.client(socket_timeout=5)
    try:
        return r.info("persistence")["broker_role"]
    finally:
        r.close()


def idle_deposed(datadir):
    n1 = node(datadir, "n1").start()
    r1 = n1.client()
    r1.xadd(b"before", {b"f": b"v"})
    n2 = node(datadir, "n2").start()  # takes over: epoch 2
    r2 = n2.client()
    r2.xgroup_create(b"jobs", b"g", id="$", mkstream=True)
    r2.xadd(b"jobs", {b"f": b"v"})
    t0 = time.time()
    became = None
    while time.time() - t0 < 10:
        if role(n1) == "follower":
            became = time.time() - t0
            break
        time.sleep(0.05)
    check(became is not None and became < 3 * BROKER_TIMEOUT_MS / 1000,
          "deposed: an idle replaced broker becomes a follower within about broker-timeout",
          f"after {became} s" if became is not None else "still " + role(n1))
    # Through node 1 (a fresh connection): the new state.
    r1 = n1.client()
    check(r1.xlen(b"jobs") == 1, "deposed: XLEN through the old broker shows the new state")
    got = r1.xreadgroup(b"g", b"c", {b"jobs": ">"}, count=10)
    check(got and len(got[0][1]) == 1, "deposed: XREADGROUP through the old broker finds the group")
    info = r2.info("persistence")
    check(info["broker_role"] == "broker", "deposed: node 2 is the broker")
    log = open(n1.log, "rb").read().decode("utf-8", "replace")
    check("stepping down" in log, "deposed: node 1's log says why it stepped down")
    r1.close()
    r2.close()
    n1.stop()
    n2.stop()


def stopped_broker(datadir):
    n1 = node(datadir, "s1").start()
    n2 = node(datadir, "s2").start()  # takes over
    r2 = n2.client()
    r2.xadd(b"x", {b"f": b"v"})
    # n1 follows n2 now (probe); make n1 the broker again by stopping n2.
    deadline = time.time() + 10
    while time.time() < deadline and role(n1) != "follower":
        time.sleep(0.05)
    n2.proc.send_signal(signal.SIGSTOP)
    deadline = time.time() + 10
    while time.time() < deadline and role(n1) != "broker":
        time.sleep(0.05)
    check(role(n1) == "broker", "stopped: node 1 took over from the stopped node 2")
    r1 = n1.client()
    for i in range(5):
        r1.xadd(b"x", {b"n": str(i).encode()})
    fresh = r1.xlen(b"x")
    # Node 2 wakes up: its state says 1 entry; the truth is `fresh`.
    r2 = n2.client(socket_timeout=10)
    n2.proc.send_signal(signal.SIGCONT)
    stale = []
    answered = 0
    t0 = time.time()
    while time.time() - t0 < 3:
        try:
            n = r2.xlen(b"x")
            answered += 1
            if n != fresh:
                stale.append(n)
        except redis.ResponseError as e:
            if "TRYAGAIN" not in str(e):
                stale.append(str(e))
        except (redis.ConnectionError, redis.TimeoutError):
            r2 = n2.client(socket_timeout=10)
        time.sleep(0.01)
    check(not stale, "stopped: after SIGCONT the old broker never answers from its stale state",
          f"{len(stale)} stale answers, e.g. {stale[:3]}")
    check(answered > 0, "stopped: ... and it answers with the new state once it knows", f"{answered} answers")
    check(role(n2) == "follower", "stopped: the old broker is a follower")
    r1.close()
    r2.close()
    n2.kill(signal.SIGKILL)
    n1.stop()


def main():
    d = tempfile.mkdtemp(prefix="casq-deposed-")
    idle_deposed(d)
    shutil.rmtree(d, ignore_errors=True)
    d = tempfile.mkdtemp(prefix="casq-deposed-")
    stopped_broker(d)
    shutil.rmtree(d, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
