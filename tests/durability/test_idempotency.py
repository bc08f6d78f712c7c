#!/usr/bin/python3
"""test_idempotency.py -- XADD IDMP (Redis 8.6) across crashes and
take-overs: the idempotency window is in the state document, so a producer
that retries an XADD it got no answer for gets the original entry ID back
and never adds a duplicate job (issue 11).

Producers push jobs with XADD IDMP <producer> <job-id>; a job whose XADD
failed (connection lost, LOADING, TRYAGAIN) is retried, with the same
idempotent id, until it gets an ID. Then every job must be in the stream
exactly once, under the ID its producer was given, and retrying every job
once more must return those IDs and add nothing.

Scenarios, each on its own document:
  crash     one node with commit-debug-delay (commits in flight when it
            dies), SIGKILLed under load and restarted on the document
  takeover  two nodes; the producers talk to the follower, the broker is
            SIGKILLed under load and the follower takes over
  idmpauto  IDMPAUTO (the id is the hash of the fields) across a SIGKILL
  lostreply deterministic: an XADD IDMP is committed, its reply never read,
            the node SIGKILLed; the retry on the restarted node gets the
            committed entry's ID (and one sent while its commit is still
            delayed, never committed, is added exactly once by the retry)
Ports 31500-31599.
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

BROKER_TIMEOUT_MS = 500
_used_ports = set()


def port():
    p = pick_port(31500, span=100, avoid=tuple(_used_ports))
    _used_ports.add(p)
    return p








RETRYABLE = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, redis.ResponseError)


class Producer(threading.Thread):
    """Pushes jobs p<i>-<n> with XADD IDMP, retrying each until answered."""

    def __init__(self, i, get_port, stop, auto=False):
        super().__init__()
        self.i, self.get_port, self.stop, self.auto = i, get_port, stop, auto
        self.ids = {}  # job -> entry ID it was given
        self.retries = 0
        self.odd_errors = []

    def xadd(self, r, job):
        if self.auto:
            return r.execute_command("XADD", "jobs", "IDMPAUTO", f"p{self.i}", "*", "job", job)
        return r.execute_command("XADD", "jobs", "IDMP", f"p{self.i}", job, "*", "job", job)

    def run(self):
        r = None
        n = 0
        while not self.stop.is_set():
            n += 1
            job = f"p{self.i}-{n}"
            while True:
                try:
                    if r is None:
                        r = redis.Redis(port=self.get_port(), socket_timeout=5)
                    self.ids[job] = self.xadd(r, job)
                    break
                except RETRYABLE as e:
                    msg = str(e)
                    if isinstance(e, redis.ResponseError) and not any(
                            k in msg for k in ("LOADING", "TRYAGAIN", "commit", "store")):
                        self.odd_errors.append(msg)
                    self.retries += 1
                    if r is not None:
                        r.close()
                        r = None
                    time.sleep(0.02)
                    if self.stop.is_set() and time.time() > self.deadline:
                        return
        if r is not None:
            r.close()

    deadline = float("inf")


def verify(label, node, producers):
    r = node.client()
    entries = r.xrange(b"jobs", b"(0-1", b"+")  # skip the seed entry 0-1
    seen = {}
    for eid, f in entries:
        seen.setdefault(f[b"job"].decode(), []).append(eid)
    dups = {j: v for j, v in seen.items() if len(v) > 1}
    given = {j: eid for p in producers for j, eid in p.ids.items()}
    wrong = {j: (eid, seen.get(j)) for j, eid in given.items() if seen.get(j) != [eid]}
    retries = sum(p.retries for p in producers)
    check(not dups, f"{label}: 0 duplicate jobs among {len(entries)} entries ({retries} retried XADDs)",
          f"{len(dups)} duplicated, e.g. {list(dups.items())[:2]}")
    check(not wrong and given, f"{label}: every one of the {len(given)} answered jobs is in the stream once, "
                               "under the ID its producer got", f"{list(wrong.items())[:3]}")
    check(retries > 0, f"{label}: the producers did retry ({retries})")
    # Retrying every job again: the same IDs, nothing added.
    before = r.xlen(b"jobs")
    again = {}
    # Pipelined: the same XADD IDMP per job, in the same order, but not one
    # round trip (and, with commit-debug-delay, one delayed commit) each --
    # thousands of them were most of this test's run time.
    for p in producers:
        jobs = list(p.ids)
        for k in range(0, len(jobs), 500):
            pipe = r.pipeline(transaction=False)
            for j in jobs[k:k + 500]:
                p.xadd(pipe, j)
            again.update(zip(jobs[k:k + 500], pipe.execute()))
    changed = [j for j in given if again[j] != given[j]]
    check(not changed and r.xlen(b"jobs") == before,
          f"{label}: retrying all {len(given)} jobs again returns their IDs and adds nothing",
          f"{changed[:3]} {before} {r.xlen(b'jobs')}")
    odd = [e for p in producers for e in p.odd_errors]
    check(not odd, f"{label}: the producers saw only connection/LOADING/TRYAGAIN errors", f"{odd[:3]}")
    r.close()


def seed(node, maxsize=10000):
    r = node.client()
    r.execute_command("XADD", "jobs", "0-1", "seed", "1")
    r.execute_command("XCFGSET", "jobs", "IDMP-MAXSIZE", str(maxsize), "IDMP-DURATION", "3600")
    r.close()


def scenario_crash(auto=False):
    label = "idmpauto" if auto else "crash"
    d = tempfile.mkdtemp(prefix=f"casq-idmp-{label}-")
    p = port()
    args = ("--stream-id-mode", "liberal", "--enable-debug-command", "yes", "--commit-debug-delay", "20")
    a = Casq(p, d, *args, logname="a.log").start()
    seed(a)
    stop = threading.Event()
    producers = [Producer(i, lambda: p, stop, auto=auto) for i in range(3)]
    for t in producers:
        t.start()
    for round_ in range(2):
        time.sleep(0.6)
        a.kill(signal.SIGKILL)
        time.sleep(0.1)
        a = Casq(p, d, *args, logname=f"a{round_}.log").start()
    time.sleep(0.6)
    stop.set()
    for t in producers:
        t.deadline = time.time() + 20
        t.join(30)
    check(all(not t.is_alive() for t in producers), f"{label}: the producers finished")
    verify(f"{label} (2 x SIGKILL)", a, producers)
    check(a.stop() == 0, f"{label}: clean shutdown")
    shutil.rmtree(d, ignore_errors=True)


def scenario_takeover():
    d = tempfile.mkdtemp(prefix="casq-idmp-to-")
    args = ("--broker-timeout", str(BROKER_TIMEOUT_MS), "--stream-id-mode", "liberal")
    a = Casq(port(), d, *args, logname="a.log").start()
    b = Casq(port(), d, *args, logname="b.log").start()
    check(make_follower(a), "takeover: a follows b")
    seed(b)
    stop = threading.Event()
    producers = [Producer(i, lambda: a.port, stop) for i in range(3)]
    for t in producers:
        t.start()
    time.sleep(0.7)
    b.kill(signal.SIGKILL)
    check(wait_for(lambda: binfo(a)["broker_role"] == "broker", 5), "takeover: the follower took over")
    time.sleep(0.7)
    stop.set()
    for t in producers:
        t.deadline = time.time() + 20
        t.join(30)
    verify("takeover", a, producers)
    check(a.stop() == 0, "takeover: clean shutdown")
    # And once more from the document, on a fresh node.
    c = Casq(port(), d, *args, logname="c.log").start()
    verify("takeover, restarted node", c, producers)
    check(c.stop() == 0, "takeover: restarted node shuts down cleanly")
    shutil.rmtree(d, ignore_errors=True)


def scenario_lostreply():
    import socket
    d = tempfile.mkdtemp(prefix="casq-idmp-lost-")
    p = port()
    args = ("--stream-id-mode", "liberal", "--enable-debug-command", "yes", "--commit-debug-delay", "300")
    a = Casq(p, d, *args, logname="a.log").start()
    seed(a)
    cmd = b"*8\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$4\r\nIDMP\r\n$2\r\np1\r\n$5\r\njob-1\r\n$1\r\n*\r\n$1\r\nf\r\n$1\r\nv\r\n"
    s = socket.create_connection(("127.0.0.1", p))
    s.sendall(cmd)  # the reply is never read: the producer "did not get it"
    time.sleep(1.0)  # ... but the commit landed
    a.kill(signal.SIGKILL)
    s.close()
    a = Casq(p, d, *args, logname="a1.log").start()
    r = a.client()
    stored = [eid for eid, f in r.xrange(b"jobs") if f.get(b"f") == b"v"]
    again = r.execute_command("XADD", "jobs", "IDMP", "p1", "job-1", "*", "f", "retry")
    check(len(stored) == 1 and again == stored[0] and r.xlen(b"jobs") == 2,
          "lostreply: the retry after SIGKILL returns the ID of the committed first try, adds nothing",
          f"{stored} {again} {r.xlen(b'jobs')}")
    # Now a first try whose commit never lands (killed during the delay).
    s = socket.create_connection(("127.0.0.1", p))
    s.sendall(cmd.replace(b"job-1", b"job-2"))
    time.sleep(0.05)
    a.kill(signal.SIGKILL)
    s.close()
    r.close()
    a = Casq(p, d, *args, logname="a2.log").start()
    r = a.client()
    before = r.xlen(b"jobs")
    id1 = r.execute_command("XADD", "jobs", "IDMP", "p1", "job-2", "*", "f", "w")
    id2 = r.execute_command("XADD", "jobs", "IDMP", "p1", "job-2", "*", "f", "w")
    check(before == 2 and id1 == id2 and r.xlen(b"jobs") == 3,
          "lostreply: a first try lost with its commit is added once by the retries", f"{before} {id1} {id2}")
    r.close()
    check(a.stop() == 0, "lostreply: clean shutdown")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    scenario_lostreply()
    scenario_crash()
    scenario_takeover()
    scenario_crash(auto=True)
    finish()
