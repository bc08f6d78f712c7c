#!/usr/bin/python3
"""e2e_crash.py -- the durability crash test, with the document on S3.

This runs tests/durability/test_crash.py itself (pushers and workers with
redis-py, >= 20 SIGKILLs at random moments, restarts on the same document,
then every acknowledged XADD / XACK / XGROUP CREATE checked), changing only
where the document lives: casq gets `--store s3://$S3_BUCKET/<key>
--s3-endpoint $FAULTPROXY`, and the checker reads the object from the S3
server instead of a file. The proxy adds a PUT latency drawn from 20-50 ms
at every restart, so SIGKILLs land while PUTs are in flight -- and such a
PUT can still reach the S3 server after its process died, racing the
restarted server's take-over (the CAS must sort it out).

On top of test_crash.py's checks, from the proxy's record of the PUTs the S3
server applied (e2e_proxy.py): commit_seq strictly increases over all of
them (no commit applied twice, across all the processes), epochs never go
back, and each restart raised the epoch.

Environment: that of tests/s3/run_e2e.sh; CRASH_KILLS (default 20),
CRASH_PORT (default E2E_PORT_BASE + 100, i.e. 30100). Ends with `N passed, N failed`.
"""
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
os.environ.setdefault("CRASH_PORT", str(int(os.environ.get("E2E_PORT_BASE", "30000")) + 100))
# test_crash.py needs > 1000 acknowledged XADDs; with 20-50 ms commits a few
# more kill cycles than its default 25 keep a safe margin on a busy machine.
os.environ.setdefault("CRASH_KILLS", "20")
os.environ.setdefault("CASQ_SERVER", os.environ.get("CASQ_BIN", os.path.join(ROOT, "src", "casq-server")))

sys.path.insert(0, HERE)
import e2e_lib as E  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests", "durability"))
import casqtest as durability  # noqa: E402  (tests/durability/casqtest.py)
import test_crash  # noqa: E402

KEY = E.unique_key("crash")
RNG = random.Random()
STARTS = []


class S3Casq(test_crash.Casq):
    """test_crash's server, with its document on S3 behind the proxy."""

    def __init__(self, port, datadir, *args, **kw):
        # Small segments, merged and out of the root into manifests
        # (docs/state-format.md "Manifests"), so that kills land while
        # they are written too.
        args = list(args) + ["--store", "s3://%s/%s" % (E.env("S3_BUCKET"), KEY),
                             "--s3-endpoint", E.proxy_endpoint(), "--segment-seal-bytes", "4kb",
                             "--segment-max-bytes", "64kb", "--segment-root-records", "2"]
        super().__init__(port, datadir, *args, **kw)

    def start(self, wait=True):
        delay = RNG.randint(20, 50)
        E.fault(put_delay_ms=delay)
        STARTS.append(delay)
        return super().start(wait)


def load_s3_document(path):
    """Replaces test_crash's file read: the object, as a person finds it.
    A PUT the killed process sent may still be in the proxy (its delay is
    at most 50 ms): let it land first, so the restarted server and this
    reader see the same version."""
    del path
    time.sleep(1.0)
    doc, _ = E.load_doc(KEY)
    if doc is None:
        raise RuntimeError("s3://%s/%s does not exist" % (E.env("S3_BUCKET"), KEY))
    return doc.json


def check_applied():
    recs = E.applied(KEY)
    seqs = [r["commit_seq"] for r in recs]
    bad = [(a, b) for a, b in zip(seqs, seqs[1:]) if a is None or b is None or b <= a]
    durability.check(not bad, "crash/s3: commit_seq strictly increasing over the %d applied PUTs" % len(recs),
                     "out of order: %r" % bad[:5])
    epochs = [r["epoch"] for r in recs]
    back = [(a, b) for a, b in zip(epochs, epochs[1:]) if b < a]
    durability.check(not back, "crash/s3: broker epoch never goes back", repr(back[:5]))
    # Every start took over with epoch + 1 (the checker's last start too).
    durability.check(len(set(epochs)) == len(STARTS),
                     "crash/s3: %d starts, %d epochs committed" % (len(STARTS), len(set(epochs))))
    print("# applied PUTs: %d; epochs %s..%s; PUT latency per start (ms): %s"
          % (len(recs), epochs[0] if epochs else "-", epochs[-1] if epochs else "-", STARTS), flush=True)


def check_manifests():
    """The kills landed among manifests too: the last root names some."""
    doc, _ = E.load_doc(KEY)
    raw = json.loads(doc.raw) if doc else {}
    mans = [m["name"] for d in raw.get("databases", []) for k in d.get("keys", [])
            for m in (k.get("stream") or {}).get("manifests", [])]
    durability.check(bool(mans), "crash/s3: the last root names manifests (%d)" % len(mans))


def main():
    E.fault(reset=True)
    E.applied_clear()
    test_crash.Casq = S3Casq
    test_crash.load_document = load_s3_document
    print("# document: s3://%s/%s via %s" % (E.env("S3_BUCKET"), KEY, E.proxy_endpoint()), flush=True)
    try:
        test_crash.main()
    except SystemExit:
        pass
    finally:
        counters = E.proxy_state()["counters"]
        E.fault(reset=True)
    print("# proxy: %d PUTs, %d applied, %d cut short by a SIGKILL (not forwarded)"
          % (counters.get("puts", 0), counters.get("puts_applied", 0), counters.get("puts_truncated", 0)))
    check_applied()
    check_manifests()
    r = durability._results
    print("%d passed, %d failed" % (r["passed"], r["failed"]))
    return 1 if r["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
