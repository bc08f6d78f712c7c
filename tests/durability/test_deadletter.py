#!/usr/bin/python3
"""test_deadletter.py -- casq's dead-lettering (XDEADLETTER, issue 11)
across crashes and take-overs: moving an entry to the dead-letter stream
and removing it from the group's pending list happen in one commit, so
after any crash every entry is either still pending or dead-lettered,
exactly once.

A stream of N jobs, a group g with the policy "dead-letter after 1
delivery", every job delivered once (XREADGROUP). Workers then run
XAUTOCLAIM / XREADGROUP CLAIM / XNACK FATAL in a loop, each of which
dead-letters what it touches, while the node is SIGKILLed (crash) or the
broker is SIGKILLed and a follower takes over (takeover); they reconnect
and go on until the pending list is empty. Then: 0 entries still pending,
each of the N jobs in the dead-letter stream exactly once (0 lost, 0
duplicated), XINFO's dead-lettered count = N, and the same from a node
restarted on the document.
Ports 31600-31699.
"""

import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import binfo, Casq, check, finish, make_follower, pick_port, wait_for  # noqa: E402

N = 3000
BROKER_TIMEOUT_MS = 500
_used_ports = set()


def port():
    p = pick_port(31600, span=100, avoid=tuple(_used_ports))
    _used_ports.add(p)
    return p








def retrying(fn, tries=100):
    """fn(), again while the node answers TRYAGAIN/LOADING or drops the
    connection: with a 500 ms broker timeout a loaded machine can see a
    take-over during the set-up, and the set-up is not what is tested.
    Every step below is safe to repeat."""
    for k in range(tries):
        try:
            return fn()
        except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, redis.ResponseError) as e:
            if isinstance(e, redis.ResponseError) and not any(t in str(e) for t in ("LOADING", "TRYAGAIN")):
                raise
            if k == tries - 1:
                raise
            time.sleep(0.1)


def setup(node):
    r = node.client()

    def add_rest():
        # The IDs are explicit and a commit is all or nothing, so XLEN says
        # where a retried push resumes.
        p = r.pipeline(transaction=False)
        for i in range(r.xlen("jobs") + 1, N + 1):
            p.execute_command("XADD", "jobs", f"{i}-0", "job", str(i))
        p.execute()

    def create_group():
        if not any(g["name"] == b"g" for g in r.xinfo_groups("jobs")):
            r.execute_command("XGROUP", "CREATE", "jobs", "g", "0")
        r.execute_command("XDEADLETTER", "jobs", "g", "dead", "1")

    retrying(add_rest)
    retrying(create_group)
    # Deliver everything once, in chunks (one commit each).
    while retrying(lambda: r.execute_command("XREADGROUP", "GROUP", "g", "first", "COUNT", "500", "STREAMS", "jobs", ">")):
        pass
    r.close()


class Worker(threading.Thread):
    """Dead-letters by one of three ways until the PEL is empty."""

    def __init__(self, kind, get_port, done):
        super().__init__()
        self.kind, self.get_port, self.done = kind, get_port, done
        self.errors = []
        self.calls = 0

    def step(self, r):
        if self.kind == "autoclaim":
            r.execute_command("XAUTOCLAIM", "jobs", "g", "w-auto", "0", "0", "COUNT", "20")
        elif self.kind == "claim":
            r.execute_command("XREADGROUP", "GROUP", "g", "w-claim", "COUNT", "20", "CLAIM", "0", "STREAMS", "jobs", ">")
        else:
            pend = r.xpending_range(b"jobs", b"g", "-", "+", 20)
            if pend:
                ids = [p["message_id"] for p in pend]
                r.execute_command("XNACK", "jobs", "g", "FATAL", "IDS", str(len(ids)), *ids)

    def run(self):
        r = None
        deadline = time.time() + 60
        while time.time() < deadline and not self.done.is_set():
            try:
                if r is None:
                    r = redis.Redis(port=self.get_port(), socket_timeout=5)
                if r.xpending(b"jobs", b"g")["pending"] == 0:
                    self.done.set()
                    break
                self.step(r)
                self.calls += 1
                time.sleep(0.003)
            except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, redis.ResponseError) as e:
                msg = str(e)
                if isinstance(e, redis.ResponseError) and not any(k in msg for k in ("LOADING", "TRYAGAIN")):
                    self.errors.append(msg)
                if r is not None:
                    r.close()
                    r = None
                time.sleep(0.02)
        if r is not None:
            r.close()


def verify(label, node):
    r = node.client()
    pending = r.xpending(b"jobs", b"g")["pending"]
    dead = r.xrange(b"dead")
    ids = [f[b"dlq-id"] for _, f in dead]
    uniq = set(ids)
    want = {f"{i}-0".encode() for i in range(1, N + 1)}
    check(pending == 0, f"{label}: 0 entries still pending", f"{pending}")
    check(uniq == want, f"{label}: every one of the {N} jobs is in the dead-letter stream (0 lost)",
          f"{len(want - uniq)} missing")
    check(len(ids) == len(uniq), f"{label}: ... exactly once (0 duplicated)", f"{len(ids) - len(uniq)} duplicates")
    bad = [f for _, f in dead if f[b"dlq-group"] != b"g" or f[b"dlq-source"] != b"jobs"
           or f[b"job"] != f[b"dlq-id"].split(b"-")[0]]
    check(not bad, f"{label}: each dead letter carries its group, source, ID and original fields", f"{bad[:2]}")
    grp = [g for g in r.xinfo_groups(b"jobs") if g["name"] == b"g"][0]
    check(grp.get("dead-lettered") == N and r.xlen(b"jobs") == N,
          f"{label}: XINFO GROUPS dead-lettered = {N}; the source stream keeps its entries",
          f"{grp.get('dead-lettered')} {r.xlen(b'jobs')}")
    r.close()


def run_workers(get_port):
    done = threading.Event()
    workers = [Worker(k, get_port, done) for k in ("autoclaim", "claim", "nack")]
    for w in workers:
        w.start()
    return workers, done


def scenario_crash():
    d = tempfile.mkdtemp(prefix="casq-dlq-crash-")
    p = port()
    args = ("--stream-id-mode", "liberal", "--enable-debug-command", "yes", "--commit-debug-delay", "15")
    a = Casq(p, d, *args, logname="a.log").start()
    setup(a)
    workers, done = run_workers(lambda: p)
    for k in range(3):
        time.sleep(0.25)
        a.kill(signal.SIGKILL)
        a = Casq(p, d, *args, logname=f"a{k}.log").start()
    for w in workers:
        w.join(70)
    check(done.is_set(), "crash: the workers emptied the pending list across 3 SIGKILLs",
          f"{[w.calls for w in workers]}")
    odd = [e for w in workers for e in w.errors]
    check(not odd, "crash: the workers saw only connection/LOADING errors", f"{odd[:3]}")
    verify("crash", a)
    a.kill(signal.SIGKILL)
    a = Casq(p, d, *args, logname="a-last.log").start()
    verify("crash, after one more SIGKILL", a)
    check(a.stop() == 0, "crash: clean shutdown")
    shutil.rmtree(d, ignore_errors=True)


def scenario_takeover():
    d = tempfile.mkdtemp(prefix="casq-dlq-to-")
    args = ("--broker-timeout", str(BROKER_TIMEOUT_MS), "--stream-id-mode", "liberal")
    a = Casq(port(), d, *args, logname="a.log").start()
    b = Casq(port(), d, *args, logname="b.log").start()
    check(make_follower(a), "takeover: a follows b")
    setup(b)
    workers, done = run_workers(lambda: a.port)
    time.sleep(0.3)
    b.kill(signal.SIGKILL)
    check(wait_for(lambda: binfo(a)["broker_role"] == "broker", 5), "takeover: the follower took over")
    for w in workers:
        w.join(70)
    check(done.is_set(), "takeover: the workers emptied the pending list", f"{[w.calls for w in workers]}")
    verify("takeover", a)
    check(a.stop() == 0, "takeover: clean shutdown")
    c = Casq(port(), d, *args, logname="c.log").start()
    verify("takeover, restarted node", c)
    check(c.stop() == 0, "takeover: restarted node shuts down cleanly")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    scenario_crash()
    scenario_takeover()
    finish()
