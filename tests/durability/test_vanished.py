#!/usr/bin/python3
"""test_vanished.py -- the state document vanishes under a running broker
(issue 14, fault 1): a person runs `rm queue.json`, or wipes the whole data
directory. casq must never take "no document" as the truth: it writes the
document again from memory (create-only, epoch + 1, every entry inline,
segments sealed again afterwards), and after a SIGKILL and a restart every
acknowledged entry is there.

Before the fix, casq reloaded, found no document, "started with an empty
state" and committed it: XLEN 0 after a restart, epoch back to 1.
"""

import glob
import json
import os
import shutil
import signal
import sys
import tempfile
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, load_document, pick_port  # noqa: E402

PORT = int(os.environ.get("VANISHED_PORT", "0")) or pick_port(26190)
ARGS = ["--segment-seal-bytes", "4kb", "--segment-max-bytes", "32kb", "--segment-merge-fanout", "4",
        "--stream-id-mode", "liberal"]


def xadd_until_acked(r, key, fields, tries=50):
    """XADD, retried while the server reports the commit failed (the first
    one after the document vanished finds a conflict); returns the ID."""
    for _ in range(tries):
        try:
            return r.xadd(key, fields)
        except (redis.ResponseError, redis.BusyLoadingError) as e:
            last = e
            time.sleep(0.1)
    raise RuntimeError(f"XADD never acknowledged: {last}")


def scenario(label, wipe):
    datadir = tempfile.mkdtemp(prefix="casq-vanished-")
    doc_path = os.path.join(datadir, "queue.json")
    casq = Casq(PORT, datadir, *ARGS).start()
    r = casq.client()
    acked = {}
    for i in range(3000):
        f = {b"n": str(i).encode(), b"p": b"x" * 40}
        acked[r.xadd(b"jobs", f)] = f
    r.xgroup_create(b"jobs", b"g", id="0")
    r.xreadgroup(b"g", b"c", {b"jobs": ">"}, count=10)
    deadline = time.time() + 10
    while time.time() < deadline and int(r.info("persistence")["segments"]) == 0:
        time.sleep(0.1)
    epoch_before = json.load(open(doc_path))["broker"]["epoch"]
    check(int(r.info("persistence")["segments"]) > 0, f"vanished[{label}]: the stream was sealed into segments")

    wipe(datadir)
    eid = xadd_until_acked(r, b"jobs", {b"n": b"after"})
    acked[eid] = {b"n": b"after"}
    info = r.info("persistence")
    check(info.get("document_vanished") == 1, f"vanished[{label}]: INFO counts the vanished document",
          str(info.get("document_vanished")))
    check(os.path.exists(doc_path), f"vanished[{label}]: the document exists again")
    doc = load_document(doc_path)
    check(doc["broker"]["epoch"] > epoch_before, f"vanished[{label}]: written with a new epoch",
          f"{doc['broker']['epoch']} vs {epoch_before}")
    keys = [k for k in doc["databases"][0]["keys"] if k["key"] == "jobs"]
    ids = {e[0].encode() for e in keys[0]["stream"]["entries"]} if keys else set()
    # An XADD that failed (the conflict) may be there too: it was not
    # acknowledged, and an unacknowledged change may survive.
    check(all(i in ids for i in acked), f"vanished[{label}]: the document written again holds every acknowledged "
          f"entry ({len(acked)})", f"{len([i for i in acked if i not in ids])} missing")
    log = open(casq.log, "rb").read().decode("utf-8", "replace")
    check("VANISHED" in log, f"vanished[{label}]: the log says so loudly")
    # More work, sealing again, then a crash.
    for i in range(500):
        f = {b"n": b"late%d" % i}
        acked[r.xadd(b"jobs", f)] = f
    time.sleep(1)
    r.close()
    casq.kill(signal.SIGKILL)
    casq.start()
    r = casq.client()
    present = dict(r.xrange(b"jobs", "-", "+"))
    lost = [i for i, f in acked.items() if present.get(i) != f]
    check(not lost, f"vanished[{label}]: after SIGKILL and restart every acknowledged entry is there",
          f"{len(lost)} of {len(acked)} lost")
    pend = r.xpending(b"jobs", b"g")
    check(pend["pending"] == 10, f"vanished[{label}]: the group and its pending entries survived",
          str(pend))
    r.close()
    casq.stop()
    shutil.rmtree(datadir, ignore_errors=True)


def rm_document(d):
    os.remove(os.path.join(d, "queue.json"))


def wipe_directory(d):
    for p in glob.glob(os.path.join(d, "queue.json*")):
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.remove(p)


def main():
    scenario("rm queue.json", rm_document)
    scenario("rm -r queue.json*", wipe_directory)
    finish()


if __name__ == "__main__":
    main()
