#!/usr/bin/python3
"""e2e_corrupt.py -- casq refuses to start on an object it cannot parse,
says why, and leaves the object exactly as it was (design.md §4).

For each kind of damage, the object is written directly to the S3 server,
casq is started on it (through the proxy) and must exit with an error
without listening; then the object's ETag and bytes are compared with what
was written, and the proxy must have seen no PUT at all.

Needs the environment of tests/s3/run_e2e.sh. Ends with `N passed, N failed`.
"""
import json
import sys

import e2e_lib as E

VALID_HEAD = {"format": 1, "casq_version": "0.1.0", "commit_seq": 7, "written_at_ms": 1764423000000,
              "broker": {"id": "e2e", "address": "127.0.0.1:1", "epoch": 3}}


def valid_doc():
    d = dict(VALID_HEAD)
    d["databases"] = [{"id": 0, "keys": [{"key": "jobs", "type": "stream", "stream": {
        "length": 1, "last_id": "1-0", "first_id": "1-0", "max_deleted_id": "0-0", "entries_added": 1,
        "entries": [["1-0", "f", "v"]], "groups": []}}]}]
    return json.dumps(d).encode()


CASES = [
    ("not JSON", b"this is not json\n"),
    ("truncated document", valid_doc()[:-7]),
    ("empty object (0 bytes)", b""),
    ("binary garbage", bytes(range(256)) * 4),
    ("unknown format version", json.dumps(dict(VALID_HEAD, format=999, databases=[])).encode()),
    ("JSON but not a state document", b"[1, 2, 3]"),
    ("stream length disagrees with its entries", valid_doc().replace(b'"length": 1', b'"length": 5')),
]


def case(res, name, data):
    key = E.unique_key("corrupt")
    etag = E.s3_put(key, data)
    E.fault(reset=True)
    casq = E.Casq(key, name="casq[%s]" % name)
    try:
        casq.spawn()
        rc = casq.wait_exit(60)
        res.check("%s: casq refuses to start (rc=%s)" % (name, rc), rc is not None and rc != 0,
                  E.tail(casq.log()))
        log = casq.log()
        why = [l for l in log.splitlines() if "Can't" in l or "rror" in l]
        print("#   %s" % (why[-1][why[-1].find(" # ") + 3:] if why else "(no reason logged)"))
        res.check("%s: the log says why" % name,
                  any(w in log.lower() for w in ("parse", "invalid", "cannot", "refus", "corrupt", "format",
                                                 "unexpected", "expected")),
                  E.tail(log))
        body, etag_after = E.s3_get(key)
        res.check("%s: object unchanged (ETag %s)" % (name, etag), etag_after == etag,
                  "after: %s" % etag_after)
        res.check("%s: object bytes unchanged" % name, body == data)
        puts = E.proxy_state()["counters"].get("puts", 0)
        res.check("%s: casq sent no PUT (%d)" % (name, puts), puts == 0)
        res.check("%s: log clean" % name, casq.log_is_clean(), E.tail(log))
    finally:
        casq.cleanup()


def control(res):
    """The same start on the valid document works (so the cases above fail
    for the damage, not for the setup)."""
    key = E.unique_key("corrupt-control")
    E.s3_put(key, valid_doc())
    casq = E.Casq(key, name="casq[control]")
    try:
        casq.start()
        got = casq.client().execute_command("XRANGE", "jobs", "-", "+")
        res.eq("control: valid document loads", [(b"1-0", {b"f": b"v"})], got)
        res.check("control: casq exits cleanly", casq.stop() == 0)
    finally:
        casq.cleanup()


def main():
    res = E.Results("s3 e2e corrupt")
    res.run("control", control, res)
    for name, data in CASES:
        res.run(name, case, res, name, data)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
