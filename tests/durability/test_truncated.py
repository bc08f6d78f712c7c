#!/usr/bin/python3
"""test_truncated.py -- the state document is emptied, cut short or
overwritten with garbage under a running broker, in place (`truncate -s 0
queue.json`, `> queue.json`, logrotate's copytruncate, a tool that dies
half-way through rewriting it).

Before the fix, a broker whose document was truncated to 0 bytes stepped
down (its commit or its probe found another version), could not read the
document again, and from then on answered every command with "-TRYAGAIN
... could not forward the command ... that is this node's own address":
the document's broker record named it, but it was not acting as broker.
It never wrote its state back although it held every acknowledged change
in memory, and a restart refused the empty document (rightly) -- after
deleting queue.json.tmp, the only complete version left on disk.

Now (docs/state-format.md "A document lost under a running broker"):
  emptied    written again from memory, as a deleted document is (epoch +
             1, every entry inline), under load and when idle;
  cut short  the same when what is left begins with the header of the
             version this broker wrote last (it is that version, cut);
  garbage    (or an edit gone wrong, in place) not overwritten: the node
             answers -LOADING saying why, keeps its state, never forwards
             to itself; once the file is removed it writes its state back.
             Before, an edit in place that kept the file's check was taken
             for a torn write and the spare (the version before the last)
             loaded in its place: the last commit was lost;
  restart    on each of the three casq refuses to start, leaves the
             document as it is and keeps queue.json.tmp, which it names;
  two nodes  a follower on the same document neither wedges nor takes
             over: its relayed writes are acknowledged again.
Every acknowledged XADD is there afterwards, also after a SIGKILL and a
restart. Ports: TRUNC_PORT_BASE (default 26240) .. +19.
"""

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import (Casq, binfo, check, finish, load_document, make_follower, pick_port,  # noqa: E402
                      run_casq_expect_exit, wait_for)

BROKER_TIMEOUT_MS = 1000
ARGS = ["--broker-timeout", str(BROKER_TIMEOUT_MS), "--segment-seal-bytes", "4kb", "--segment-max-bytes", "32kb"]
_used = set()


def port():
    p = pick_port(int(os.environ.get("TRUNC_PORT_BASE", "26240")), span=20, avoid=tuple(_used))
    _used.add(p)
    return p


class Pusher(threading.Thread):
    """XADDs to `jobs` on its own connection until stopped, recording what
    was acknowledged (and when) and every error."""

    def __init__(self, node, tag):
        super().__init__(daemon=True)
        self.node = node
        self.tag = tag
        self.acked = {}
        self.acked_at = []
        self.errors = []
        self.halt = threading.Event()

    def run(self):
        r = self.node.client(socket_timeout=10)
        n = 0
        while not self.halt.is_set():
            n += 1
            f = {b"t": self.tag, b"n": str(n).encode(), b"p": b"x" * 30}
            try:
                eid = r.xadd(b"jobs", f)
            except (redis.ResponseError, redis.BusyLoadingError, redis.ConnectionError, redis.TimeoutError) as e:
                self.errors.append(str(e))
                r.close()
                r = self.node.client(socket_timeout=10)
                time.sleep(0.02)
                continue
            self.acked[eid] = f
            self.acked_at.append(time.time())
        r.close()

    def stop(self):
        self.halt.set()
        self.join(30)


def all_acked(pushers, extra=None):
    out = dict(extra or {})
    for p in pushers:
        out.update(p.acked)
    return out


def own_address_errors(pushers):
    return [e for p in pushers for e in p.errors if "own address" in e]


def missing(r, acked):
    present = dict(r.xrange(b"jobs", "-", "+"))
    return [i for i, f in acked.items() if present.get(i) != f]


def missing_on_disk(doc_path, acked):
    try:
        doc = load_document(doc_path)
    except (OSError, ValueError) as e:
        return [f"unreadable: {e}"]
    keys = [k for k in doc["databases"][0]["keys"] if k["key"] == "jobs"]
    ids = {e[0].encode() for e in keys[0]["stream"]["entries"]} if keys else set()
    return [i for i in acked if i not in ids]


def readable(path):
    try:
        with open(path, "rb") as f:
            json.loads(f.read())
        return True
    except (OSError, ValueError):
        return False


def wait_quiet(path, quiet=0.5, timeout=10):
    """Until the broker has not written the document for `quiet` seconds
    (the seals that follow a burst of writes are commits too): damage done
    in place then hits the document, not a file a commit is replacing."""
    last, since, deadline = None, time.time(), time.time() + timeout
    while time.time() < deadline:
        st = os.stat(path)
        now = (st.st_ino, st.st_mtime_ns, st.st_size)
        if now != last:
            last, since = now, time.time()
        elif time.time() - since >= quiet:
            return
        time.sleep(0.05)


def prefill(r, n=2000):
    acked = {}
    for i in range(n):
        f = {b"t": b"pre", b"n": str(i).encode(), b"p": b"y" * 40}
        acked[r.xadd(b"jobs", f)] = f
    r.xgroup_create(b"jobs", b"g", id="0")
    r.xreadgroup(b"g", b"c", {b"jobs": ">"}, count=10)
    return acked


# ------------------------------------------------------------------------
# The damages, done in place (same inode) as truncate(1) and a shell's
# redirection do
# ------------------------------------------------------------------------
def empty(path):
    os.truncate(path, 0)


def cut_short(path):
    """Half of the JSON text is left (the file store pads it with spaces:
    half of the file could be all of the text)."""
    with open(path, "r+b") as f:
        f.truncate(len(f.read().rstrip()) // 2)


def garbage(path):
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(b"this is not the queue\n")


def bad_edit(path):
    """An edit gone wrong, in place: the broker's own header, then a JSON
    syntax error (not cut short: somebody's, not written over)."""
    with open(path, "r+b") as f:
        text = f.read()
        f.seek(0)
        f.truncate(0)
        f.write(text.replace(b'"databases":[', b'"databases":[@', 1))


def damage_under_load(casq, doc, damage, tries=10):
    """Damages the document at the path. Under load the file damaged may
    be the one a commit in flight is replacing that moment (it becomes the
    spare, which the next commit overwrites): nothing happened then, and
    it is tried again."""
    r = casq.client(socket_timeout=5)
    try:
        for _ in range(tries):
            damage(doc)
            if wait_for(lambda: int(r.info("persistence")["document_vanished"]) > 0, 1.5) or not readable(doc):
                return
    finally:
        r.close()


def push_through_damage(pushers, broker, doc, damage):
    """The pushers run, the document is damaged under the broker, and they
    go on for 3 s; returns when the damage was done."""
    for p in pushers:
        p.start()
    time.sleep(0.7)
    damage_under_load(broker, doc, damage)
    t_damage = time.time()
    time.sleep(3)
    for p in pushers:
        p.stop()
    return t_damage


def crash_and_check(label, casq, acked, pending=10):
    """SIGKILL, restart: every acknowledged entry and the group are there."""
    casq.kill(signal.SIGKILL)
    casq.start()
    r = casq.client()
    lost = missing(r, acked)
    check(not lost, f"{label}: after SIGKILL and restart every acknowledged XADD is there",
          f"{len(lost)} of {len(acked)} lost")
    pend = r.xpending(b"jobs", b"g")
    check(pend["pending"] == pending, f"{label}: the group and its pending entries survived", str(pend))
    r.close()


def start_broker(prefix, entries):
    """A broker on a new data directory, with `entries` XADDs and a group
    with pending entries: (datadir, document path, node, client, acked)."""
    d = tempfile.mkdtemp(prefix=prefix)
    casq = Casq(port(), d, *ARGS).start()
    r = casq.client()
    return d, os.path.join(d, "queue.json"), casq, r, prefill(r, entries)


def crash_check_and_remove(label, d, casq, r, acked):
    r.close()
    crash_and_check(label, casq, acked)
    casq.stop()
    shutil.rmtree(d, ignore_errors=True)


def xadd_acked(r, acked, tries=50):
    """One more XADD, retried until it is acknowledged; whether it was."""
    f = {b"t": b"after"}
    for _ in range(tries):
        try:
            acked[r.xadd(b"jobs", f)] = f
            return True
        except (redis.ResponseError, redis.BusyLoadingError):
            time.sleep(0.1)
    return False


# ------------------------------------------------------------------------
# One node, under load: emptied or cut short -> written back
# ------------------------------------------------------------------------
def written_back_under_load(label, damage):
    d, doc, casq, r, acked = start_broker("casq-trunc-", 2000)
    wait_for(lambda: int(r.info("persistence")["segments"]) > 0, 10)
    pushers = [Pusher(casq, b"p%d" % i) for i in range(2)]
    t_damage = push_through_damage(pushers, casq, doc, damage)
    after = sum(1 for p in pushers for t in p.acked_at if t > t_damage + 2)
    check(after > 0, f"{label}: writes are acknowledged again after the damage", f"{after} acknowledged")
    odd = own_address_errors(pushers)
    check(not odd, f"{label}: no client was told to go to this node's own address", f"{odd[:1]}")
    check(binfo(casq)["broker_role"] == "broker" and r.info("persistence")["broker_role"] == "broker",
          f"{label}: the node is still the broker")
    acked = all_acked(pushers, acked)
    lost = missing(r, acked)
    check(not lost, f"{label}: every acknowledged XADD is served", f"{len(lost)} of {len(acked)} missing")
    xadd_acked(r, acked)
    lost = missing_on_disk(doc, acked)
    check(not lost, f"{label}: the document written back holds every acknowledged XADD ({len(acked)})",
          f"{len(lost)} missing: {lost[:2]}")
    check(int(r.info("persistence")["document_vanished"]) >= 1, f"{label}: INFO counts it (document_vanished)")
    crash_check_and_remove(label, d, casq, r, acked)


# ------------------------------------------------------------------------
# One node, idle: its probe finds the damage, no client write needed
# ------------------------------------------------------------------------
def written_back_idle():
    label = "emptied while idle"
    d, doc, casq, r, acked = start_broker("casq-trunc-idle-", 200)
    wait_quiet(doc)
    empty(doc)
    back = wait_for(lambda: os.path.getsize(doc) > 0 and readable(doc), 5)
    check(back, f"{label}: the broker writes the document back by itself")
    check(wait_for(lambda: binfo(casq)["broker_role"] == "broker", 3), f"{label}: and is the broker")
    check(xadd_acked(r, acked, tries=1), f"{label}: a write is acknowledged at once")
    check(not missing_on_disk(doc, acked), f"{label}: every acknowledged XADD is in the document")
    crash_check_and_remove(label, d, casq, r, acked)


# ------------------------------------------------------------------------
# Garbage: kept, -LOADING with the reason, written back once removed
# ------------------------------------------------------------------------
def garbage_kept(label, damage):
    d, doc, casq, r, acked = start_broker("casq-trunc-garbage-", 200)
    wait_quiet(doc)
    damage(doc)
    with open(doc, "rb") as f:
        damaged = f.read()
    seen = []

    def refused():
        try:
            r.xadd(b"jobs", {b"t": b"refused"})
        except (redis.ResponseError, redis.BusyLoadingError) as e:
            seen.append(str(e))
            return isinstance(e, redis.BusyLoadingError) and "invalid JSON" in str(e)
        return False

    check(wait_for(refused, 5), f"{label}: writes get -LOADING naming the problem", f"{seen[-1:]}")
    time.sleep(1.5)
    check(not [e for e in seen if "own address" in e], f"{label}: never told to go to its own address")
    with open(doc, "rb") as f:
        check(f.read() == damaged, f"{label}: the document is left as it is")
    check(binfo(casq)["broker_role"] == "loading", f"{label}: INFO says loading", binfo(casq)["broker_role"])
    os.remove(doc)
    check(wait_for(lambda: readable(doc), 5), f"{label}: once removed, the broker writes its state back")
    check(xadd_acked(r, acked), f"{label}: and writes are acknowledged again")
    lost = missing_on_disk(doc, acked)
    check(not lost, f"{label}: every acknowledged XADD is in the document", f"{len(lost)} missing")
    crash_check_and_remove(label, d, casq, r, acked)


# ------------------------------------------------------------------------
# Restart on a damaged document: refused, untouched, the spare kept
# ------------------------------------------------------------------------
def restart_refused(label, damage):
    d = tempfile.mkdtemp(prefix="casq-trunc-restart-")
    doc, spare = os.path.join(d, "queue.json"), os.path.join(d, "queue.json.tmp")
    p = port()
    casq = Casq(p, d, *ARGS).start()
    r = casq.client()
    for i in range(50):
        r.xadd(b"jobs", {b"n": str(i).encode()})
    r.close()
    casq.stop()
    damage(doc)
    with open(doc, "rb") as f:
        before = f.read()
    code, out = run_casq_expect_exit(p, d, *ARGS)
    with open(doc, "rb") as f:
        after = f.read()
    check(code not in (0, None), f"restart[{label}]: casq refuses to start", f"exit {code}")
    check(before == after, f"restart[{label}]: the document is untouched")
    check(os.path.exists(spare) and readable(spare), f"restart[{label}]: queue.json.tmp is kept")
    check(spare in out, f"restart[{label}]: the log names queue.json.tmp", out.strip().splitlines()[-3:])
    shutil.rmtree(d, ignore_errors=True)


# ------------------------------------------------------------------------
# Two nodes on one document
# ------------------------------------------------------------------------
def two_nodes(label, damage):
    d = tempfile.mkdtemp(prefix="casq-trunc-two-")
    doc = os.path.join(d, "queue.json")
    a = Casq(port(), d, *ARGS, logname="a.log").start()
    b = Casq(port(), d, *ARGS, logname="b.log").start()  # takes over at start-up
    check(make_follower(a), f"two nodes[{label}]: a follows b")
    rb = b.client()
    acked = prefill(rb, 500)
    pushers = [Pusher(a, b"via-a"), Pusher(b, b"via-b")]
    t_damage = push_through_damage(pushers, b, doc, damage)
    for p in pushers:
        after = sum(1 for t in p.acked_at if t > t_damage + 2)
        check(after > 0, f"two nodes[{label}]: writes through {p.tag.decode()} are acknowledged again",
              f"{after}; last errors {p.errors[-2:]}")
    odd = own_address_errors(pushers)
    check(not odd, f"two nodes[{label}]: no client was told to go to a node's own address", f"{odd[:1]}")
    ia, ib = binfo(a), binfo(b)
    check(ia["broker_role"] == "follower" and ib["broker_role"] == "broker" and ia["broker_id"] == ib["node_id"],
          f"two nodes[{label}]: b is still the broker, a follows it",
          f"a {ia['broker_role']}, b {ib['broker_role']}")
    acked = all_acked(pushers, acked)
    lost = missing(rb, acked)
    check(not lost, f"two nodes[{label}]: every acknowledged XADD is served", f"{len(lost)} of {len(acked)}")
    rb.close()
    a.kill(signal.SIGKILL)
    crash_and_check(f"two nodes[{label}]", b, acked)
    b.stop()
    shutil.rmtree(d, ignore_errors=True)


def run(name, fn, *args):
    """One scenario; an exception (a server that refuses to start, an
    error reply where none may be) is one failure, and the others still
    run."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 -- reported, not hidden
        check(False, f"{name}: the scenario ran to its end", repr(e)[:300])


def main():
    run("emptied under load", written_back_under_load, "emptied under load", empty)
    run("cut short under load", written_back_under_load, "cut short under load", cut_short)
    run("emptied while idle", written_back_idle)
    run("garbage", garbage_kept, "garbage", garbage)
    run("bad edit", garbage_kept, "bad edit", bad_edit)
    for label, damage in (("emptied", empty), ("cut short", cut_short), ("garbage", garbage)):
        run(f"restart[{label}]", restart_refused, label, damage)
    run("two nodes[emptied]", two_nodes, "emptied", empty)
    run("two nodes[cut short]", two_nodes, "cut short", cut_short)
    finish()


if __name__ == "__main__":
    main()
