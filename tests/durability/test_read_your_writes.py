#!/usr/bin/python3
"""test_read_your_writes.py -- no client observes an entry before the XADD
that created it is acknowledged (design.md §4).

casq runs with commit-debug-delay 200: every commit takes 200 ms longer to
complete, so each XADD exists in memory, unacknowledged, for at least that
long. A writer XADDs; readers on other connections poll XRANGE, XREVRANGE,
XREAD, XLEN, XINFO STREAM and a blocking XREAD all the while.

"Acknowledged" is checked without any timing assumption: the server
acknowledges a change exactly when the document on disk holds it, and the
document only grows in this test. So whenever a client receives a reply,
everything the reply shows must already be in queue.json, read *after* the
reply arrived. The same holds for the writer's own acknowledgement.

INFO is sampled too, to prove the readers really polled while changes were
waiting for their commit (otherwise the test would show nothing).
"""

import os
import shutil
import sys
import tempfile
import threading

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, document_streams, finish, load_document, pick_port  # noqa: E402

PORT = int(os.environ.get("RYW_PORT", "0")) or pick_port(26110)
WRITES = 30
KEY = b"jobs"

violations = []
observations = {"n": 0, "entries": 0, "pending_seen": 0}
lock = threading.Lock()
done = threading.Event()


def doc_ids(path):
    doc = load_document(path)
    s = document_streams(doc).get(KEY)
    return {e[0].encode() for e in s["entries"]} if s else set()


def note(what, shown_ids, path, length=None):
    ids_on_disk = doc_ids(path)
    with lock:
        observations["n"] += 1
        observations["entries"] += len(shown_ids)
        missing = [i for i in shown_ids if i not in ids_on_disk]
        if missing:
            violations.append(f"{what} showed {missing[:3]} before they were durable")
        if length is not None and length > len(ids_on_disk):
            violations.append(f"{what} showed length {length} but only {len(ids_on_disk)} entries are durable")


def poller(port, path):
    r = redis.Redis(port=port, socket_timeout=30)
    while not done.is_set():
        info = r.info("persistence")
        if info.get("rdb_changes_since_last_save", 0) > 0:
            with lock:
                observations["pending_seen"] += 1
        note("XRANGE", [i for i, _ in r.xrange(KEY, "-", "+")], path)
        note("XREVRANGE", [i for i, _ in r.xrevrange(KEY, "+", "-", count=5)], path)
        note("XLEN", [], path, length=r.xlen(KEY))
        resp = r.xread({KEY: "0-0"}, count=1000)
        note("XREAD", [i for _, entries in resp for i, _ in entries], path)
        try:
            xi = r.xinfo_stream(KEY)
            shown = [xi["last-generated-id"]] if xi.get("length") else []
            note("XINFO STREAM", shown, path, length=xi["length"])
        except redis.ResponseError:
            pass  # no such key yet: consistent with an empty document


def blocking_reader(port, path):
    r = redis.Redis(port=port, socket_timeout=30)
    last = "$"
    while not done.is_set():
        resp = r.xread({KEY: last}, block=500)
        ids = [i for _, entries in resp for i, _ in entries]
        if ids:
            last = ids[-1]
            note("XREAD BLOCK", ids, path)


def main():
    datadir = tempfile.mkdtemp(prefix="casq-ryw-")
    path = os.path.join(datadir, "queue.json")
    casq = Casq(PORT, datadir, "--enable-debug-command", "yes", "--commit-debug-delay", "200").start()
    threads = [threading.Thread(target=poller, args=(PORT, path)) for _ in range(2)]
    threads.append(threading.Thread(target=blocking_reader, args=(PORT, path)))
    for t in threads:
        t.start()
    w = casq.client(socket_timeout=30)
    writer_late = []
    for n in range(WRITES):
        eid = w.xadd(KEY, {b"n": str(n).encode(), b"bin": b"\x00\xff"})
        if eid not in doc_ids(path):
            writer_late.append(eid)
    done.set()
    for t in threads:
        t.join()

    check(not writer_late, "ryw: every XADD is durable when its reply arrives", f"{writer_late[:3]}")
    check(observations["entries"] > 0, f"ryw: readers observed entries ({observations['entries']} in "
          f"{observations['n']} replies)")
    check(observations["pending_seen"] > 0, "ryw: readers polled while changes were waiting for their commit "
          f"({observations['pending_seen']} INFO samples)")
    check(not violations, "ryw: no reader saw an entry (or a length) before it was durable", "; ".join(violations[:3]))
    check(w.xlen(KEY) == WRITES, "ryw: all writes present")
    w.close()
    code = casq.stop()
    check(code == 0, "ryw: clean shutdown", casq.tail())
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
