#!/usr/bin/python3
"""test_counters.py -- counters and times in the document are checked
against what commands can produce (issue 14, faults 7 and 8), and casq
never writes a document it would refuse.

Before the fix, `"entries_added":"18446744073709551615"` loaded, the next
XADD wrapped it to 0 and casq then refused its own document; negative times
loaded and overflowed XPENDING/XINFO idle times; a negative expires_at_ms
loaded as "no expiry" (-1).

Refused documents: casq exits non-zero, names the file and the problem,
and leaves the file as it was. Accepted extremes (LLONG_MAX) survive a
write and a restart.
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port, run_casq_expect_exit  # noqa: E402

PORT = int(os.environ.get("COUNTERS_PORT", "0")) or pick_port(26170)
LLONG_MAX = 2**63 - 1


def good_document(workdir):
    d = os.path.join(workdir, "good")
    casq = Casq(PORT, d).start()
    r = casq.client()
    for i in range(5):
        r.xadd(b"jobs", {b"n": str(i).encode()})
    r.xgroup_create(b"jobs", b"g", id="0")
    r.xreadgroup(b"g", b"alice", {b"jobs": ">"}, count=2)
    r.xadd(b"ttl", {b"f": b"v"})
    r.pexpireat(b"ttl", 4102444800000)  # 2100-01-01
    r.close()
    casq.stop()
    with open(os.path.join(d, "queue.json"), "rb") as f:
        return json.loads(f.read())


def key_of(doc, name):
    return next(k for k in doc["databases"][0]["keys"] if k["key"] == name)


def stream_of(doc):
    return key_of(doc, "jobs")["stream"]


def edited(good, fn):
    doc = json.loads(json.dumps(good))
    fn(doc)
    return json.dumps(doc).encode()


def setter(fn):
    def edit(d):
        fn(d)
    return edit


def refused_cases(good):
    def pend(i, v):
        return lambda d: stream_of(d)["groups"][0]["pending"][0].__setitem__(i, v)

    def cons(field, v):
        return lambda d: stream_of(d)["groups"][0]["consumers"][0].__setitem__(field, v)

    return [
        ("entries_added 2^64-1", edited(good, lambda d: stream_of(d).__setitem__("entries_added", "18446744073709551615")),
         "entries_added"),
        ("entries_added 2^63", edited(good, lambda d: stream_of(d).__setitem__("entries_added", str(2**63))),
         "entries_added"),
        ("negative expires_at_ms", edited(good, lambda d: key_of(d, "ttl").__setitem__("expires_at_ms", -5)),
         "expires_at_ms"),
        ("expires_at_ms -2^63", edited(good, lambda d: key_of(d, "ttl").__setitem__("expires_at_ms", str(-2**63))),
         "expires_at_ms"),
        ("delivery time -2^63", edited(good, pend(2, str(-2**63))), "delivery time"),
        ("delivery time -1", edited(good, pend(2, -1)), "delivery time"),
        ("delivery count 2^63", edited(good, pend(3, str(2**63))), "delivery count"),
        ("seen_time_ms -2^63", edited(good, cons("seen_time_ms", str(-2**63))), "seen_time_ms"),
        ("active_time_ms -2", edited(good, cons("active_time_ms", -2)), "active_time_ms"),
    ]


def identity(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return (f.read(), st.st_ino, st.st_mtime_ns)


def start_on(workdir, name, content):
    d = os.path.join(workdir, name)
    os.makedirs(d)
    with open(os.path.join(d, "queue.json"), "wb") as f:
        f.write(content)
    return d


def main():
    workdir = tempfile.mkdtemp(prefix="casq-counters-")
    good = good_document(workdir)

    for n, (name, content, problem) in enumerate(refused_cases(good)):
        d = start_on(workdir, f"bad{n}", content)
        path = os.path.join(d, "queue.json")
        before = identity(path)
        code, out = run_casq_expect_exit(PORT, d)
        check(code is not None and code != 0, f"counters[{name}]: casq refuses to start", f"exit code {code}")
        check(identity(path) == before, f"counters[{name}]: the document is untouched")
        check(path in out and problem in out, f"counters[{name}]: the message names the file and the problem",
              f"expected {problem!r} in: {out.strip().splitlines()[-2:]}")
        if code == 0 or code is None:
            continue

    # entries_added at LLONG_MAX: loads, XADD keeps it there, restart works.
    d = start_on(workdir, "max", edited(good, lambda d: stream_of(d).__setitem__("entries_added", str(LLONG_MAX))))
    casq = Casq(PORT, d).start()
    r = casq.client()
    r.xadd(b"jobs", {b"n": b"more"})
    added = r.xinfo_stream(b"jobs")["entries-added"]
    check(added == LLONG_MAX, "counters: XADD at entries_added LLONG_MAX does not wrap", f"entries-added {added}")
    # RETRYCOUNT LLONG_MAX, then a claim that counts a delivery.
    pend = r.xpending_range(b"jobs", b"g", min="-", max="+", count=1)
    eid = pend[0]["message_id"]
    r.execute_command("XCLAIM", "jobs", "g", "bob", "0", eid, "RETRYCOUNT", str(LLONG_MAX))
    r.execute_command("XCLAIM", "jobs", "g", "carol", "0", eid)
    cnt = r.xpending_range(b"jobs", b"g", min=eid, max=eid, count=1)[0]["times_delivered"]
    check(cnt == LLONG_MAX, "counters: the delivery count stops at LLONG_MAX", f"count {cnt}")
    # XCLAIM IDLE at the extremes: the delivery time is clamped to now.
    r.execute_command("XCLAIM", "jobs", "g", "carol", "0", eid, "IDLE", str(-2**63))
    r.execute_command("XCLAIM", "jobs", "g", "carol", "0", eid, "IDLE", str(LLONG_MAX))
    idle = r.xpending_range(b"jobs", b"g", min=eid, max=eid, count=1)[0]["time_since_delivered"]
    check(0 <= idle < 10000, "counters: XCLAIM IDLE -2^63 / LLONG_MAX clamp the delivery time to now", f"idle {idle}")
    r.close()
    casq.stop()
    casq = Casq(PORT, d).start()
    r = casq.client()
    ok = r.xinfo_stream(b"jobs")["entries-added"] == LLONG_MAX and r.xlen(b"jobs") == 6
    check(ok, "counters: casq restarts on the document it wrote at the extremes")
    r.close()
    casq.stop()

    # A time 0 expiry (the epoch) loads and expires as usual.
    d = start_on(workdir, "epoch", edited(good, lambda d: key_of(d, "ttl").__setitem__("expires_at_ms", 0)))
    casq = Casq(PORT, d).start()
    r = casq.client()
    check(r.exists(b"ttl") == 0 and r.xlen(b"jobs") == 5, "counters: expires_at_ms 0 loads as expired")
    r.close()
    casq.stop()
    shutil.rmtree(workdir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
