#!/usr/bin/python3
"""test_one_flush.py -- the file store's one flush per commit, end to end.

A commit that reuses the spare file skips the directory fsync, so after a
power loss the disk may hold the newest complete version under either name,
and the file under queue.json may be one a write had begun to overwrite
(src/store_file.c, "One flush per commit"). A power loss cannot be made
here; what it can leave on disk can: after a SIGKILL under load, the test
swaps queue.json and queue.json.tmp (the rename of the last commit lost)
and damages one of them (a write cut short), then restarts casq and checks
that every acknowledged XADD is there.

  1. lost rename: queue.json is the version before the last; .tmp the last;
  2. lost rename and a torn queue.json (its check no longer holds): the
     .tmp is loaded, the torn file is kept as queue.json.rejected; and
     killed under load (the spare maybe half rewritten), names swapped;
  3. a torn .tmp under a complete queue.json: queue.json is loaded;
  4. a clean shutdown marks the record clean; a document edited by hand
     then is loaded as it is;
  5. under load, commits skip the directory fsync (INFO
     store_file_writes_one_flush) and the record says dirty.

Ports: 26220-26229 (ONEFLUSH_PORT overrides).
"""

import json
import os
import shutil
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port  # noqa: E402

PORT = int(os.environ.get("ONEFLUSH_PORT", "0")) or pick_port(26220)
KEY = b"jobs"
UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)


def push_until_killed(casq, acked, seconds=1.0, threads=4, quiesce=False):
    """Pushers XADD while casq runs; SIGKILL after `seconds` -- under load,
    or (quiesce) once the pushers stopped and the last commit landed, so
    that the spare is complete. Records what was acknowledged in acked
    (token -> ID)."""
    stop = threading.Event()
    lock = threading.Lock()

    def pusher(i):
        r = casq.client(socket_timeout=5)
        n = 0
        while not stop.is_set():
            n += 1
            token = f"t{i}-{n}-{time.time_ns()}".encode()
            try:
                eid = r.xadd(KEY, {b"token": token})
            except UNKNOWN:
                return
            with lock:
                acked[token] = eid

    ts = [threading.Thread(target=pusher, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    time.sleep(seconds)
    if quiesce:
        stop.set()
        for t in ts:
            t.join()
        time.sleep(0.3)
    casq.kill()
    stop.set()
    for t in ts:
        t.join()


def all_there(casq, acked):
    r = casq.client()
    got = {f[b"token"]: eid for eid, f in r.xrange(KEY)}
    missing = [t for t, eid in acked.items() if got.get(t) != eid]
    return missing


def swap(d):
    p, t = os.path.join(d, "queue.json"), os.path.join(d, "queue.json.tmp")
    os.rename(p, p + ".via")
    os.rename(t, p)
    os.rename(p + ".via", t)


def tear(path):
    """Changes bytes in the middle of the document, its check left as it was."""
    with open(path, "r+b") as f:
        data = f.read()
        mid = data.index(b'"token"')
        f.seek(mid + 1)
        f.write(b"X")


def record(d):
    with open(os.path.join(d, "queue.json.lock"), "rb") as f:
        return f.read()


def main():
    tmp = tempfile.mkdtemp(prefix="casq-oneflush-")
    try:
        d = os.path.join(tmp, "data")
        # commit-log no: every commit writes the root, whose protocol this is about.
        casq = Casq(PORT, d, "--commit-log", "no").start()
        acked = {}
        r = casq.client()
        for i in range(50):
            acked[f"w{i}".encode()] = r.xadd(KEY, {b"token": f"w{i}".encode()})
        info = r.info("persistence")
        check(info.get("store_file_writes_one_flush", 0) > 0,
              "under load, commits that reuse the spare skip the directory fsync",
              f"store_file_writes_one_flush={info.get('store_file_writes_one_flush')}")

        # 1. The rename of the last commit lost.
        push_until_killed(casq, acked, seconds=1.0, quiesce=True)
        check(b"state=dirty" in record(d), "after a SIGKILL the record says dirty", repr(record(d)[:120]))
        check(os.path.exists(os.path.join(d, "queue.json.tmp")), "the spare is there after a SIGKILL")
        swap(d)
        casq.start()
        missing = all_there(casq, acked)
        check(len(acked) > 100 and not missing, "a lost rename: every acknowledged XADD is there",
              f"{len(missing)} of {len(acked)} missing")
        check("held a newer complete version" in casq.tail(400), "... and the log says what was loaded",
              casq.tail(5))

        # 2. Lost rename, and the file under queue.json torn.
        push_until_killed(casq, acked, seconds=1.0, quiesce=True)
        swap(d)
        tear(os.path.join(d, "queue.json"))
        casq.start()
        missing = all_there(casq, acked)
        check(not missing, "a torn queue.json: every acknowledged XADD is there",
              f"{len(missing)} of {len(acked)} missing")
        check(os.path.exists(os.path.join(d, "queue.json.rejected")), "... the torn file is kept aside")
        check("did not match its check" in casq.tail(400), "... and the log says so", casq.tail(5))

        # 2b. Killed under load (the spare may be half rewritten), names
        # swapped: whichever case it is, nothing acknowledged is lost.
        for _ in range(3):
            push_until_killed(casq, acked, seconds=0.5)
            swap(d)
            casq.start()
        missing = all_there(casq, acked)
        check(not missing, "killed under load three times, names swapped: every acknowledged XADD is there",
              f"{len(missing)} of {len(acked)} missing")

        # 3. A torn spare under a complete queue.json.
        push_until_killed(casq, acked, seconds=1.0)
        tear(os.path.join(d, "queue.json.tmp"))
        casq.start()
        missing = all_there(casq, acked)
        check(not missing, "a torn .tmp: queue.json is loaded, every acknowledged XADD is there",
              f"{len(missing)} of {len(acked)} missing")

        # 4. A clean shutdown, then an edit by hand that keeps the check.
        casq.client().xadd(KEY, {b"token": b"last"})
        check(casq.stop() == 0 and b"state=clean" in record(d), "a clean shutdown marks the record clean",
              repr(record(d)[:120]))
        path = os.path.join(d, "queue.json")
        with open(path, "rb") as f:
            raw = f.read()
        edited = raw.replace(b'"last"', b'"edit"', 1)
        check(edited != raw, "the document holds the last entry")
        with open(path, "wb") as f:
            f.write(edited)
        casq.start()
        r = casq.client()
        tokens = {f[b"token"] for _, f in r.xrange(KEY, "-", "+")}
        check(b"edit" in tokens and b"last" not in tokens, "after a clean shutdown an edited document is loaded as it is")
        json.loads(edited.decode("utf-8", "replace"))  # the file is JSON, check and all
        casq.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
