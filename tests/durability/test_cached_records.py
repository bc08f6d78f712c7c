#!/usr/bin/python3
"""test_cached_records.py -- the encoder's per-key cache (persist.c).

Every commit writes every inline key's record; an unchanged value's whole
record ({"key":…,"type":…,"expires_at_ms":…,"<type>":…}) comes from a cache
keyed by the value object. What changes a record without changing the
value object must still reach the document at the next commit: RENAME
(the same object under another name), EXPIRE / PEXPIRE / PERSIST (the
expiry), MOVE and SWAPDB (another database). Each step is followed by an
unrelated write, so that the key's record is written again from the cache,
and the root on disk is read to see what it says; then casq is SIGKILLed
and the restarted server must hold the same.
Ports 24900-24999 (CACHED_RECORDS_PORT overrides).
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port  # noqa: E402

PORT = int(os.environ.get("CACHED_RECORDS_PORT", "0")) or pick_port(24900, span=100)


def records(d):
    """(db, key) -> record, from the root on disk."""
    with open(os.path.join(d, "queue.json"), "rb") as f:
        doc = json.loads(f.read())
    return {(db["id"], k["key"]): k for db in doc["databases"] for k in db["keys"]}


def main():
    work = tempfile.mkdtemp(prefix="casq-cached-records-")
    # key-seal-quiet: keep every key inline (in the root), where the cache works;
    # commit-log no: every commit writes the root, which is read after each.
    casq = Casq(PORT, work, "--key-seal-quiet", "1000000", "--commit-log", "no").start()
    r = casq.client()
    r.set("a", "1")
    r.hset("h", mapping={"f": "v"})
    r.set("b", "2")
    r.set("x", "1")

    def step(n):
        r.set("x", str(n))  # a commit that writes the other keys from the cache
        return records(work)

    r.rename("a", "a2")
    k = step(2)
    check((0, "a2") in k and (0, "a") not in k and k[(0, "a2")].get("string") == "1",
          "cached-records: RENAME writes the record under its new name", str(sorted(k)))
    r.expire("h", 1000)
    k = step(3)
    check("expires_at_ms" in k.get((0, "h"), {}), "cached-records: EXPIRE reaches the record", str(k.get((0, "h"))))
    r.pexpire("h", 5000000)
    e1 = step(4)[(0, "h")].get("expires_at_ms", 0)
    r.pexpire("h", 6000000)
    e2 = step(5)[(0, "h")].get("expires_at_ms", 0)
    check(e2 - e1 >= 999000, "cached-records: a changed expiry reaches the record", f"{e1} then {e2}")
    r.persist("h")
    k = step(6)
    check("expires_at_ms" not in k[(0, "h")], "cached-records: PERSIST drops the expiry", str(k[(0, "h")]))
    r.pexpire("h", 7000000)
    r.rename("h", "h2")
    k = step(7)
    check((0, "h2") in k and (0, "h") not in k and "expires_at_ms" in k[(0, "h2")],
          "cached-records: RENAME keeps the expiry in the record", str(k.get((0, "h2"))))
    r.move("b", 2)
    k = step(8)
    check((2, "b") in k and (0, "b") not in k, "cached-records: MOVE writes the record in the other database",
          str(sorted(k)))
    r.swapdb(0, 2)
    k = step(9)
    check((0, "b") in k and (2, "a2") in k and (2, "h2") in k and k[(2, "x")].get("string") == "8"
          and k[(0, "x")].get("string") == "9", "cached-records: SWAPDB swaps the records", str(sorted(k)))
    r.close()

    casq.kill()
    casq.start()
    r0, r2 = casq.client(), casq.client(db=2)
    check(r0.get("b") == b"2" and r0.get("x") == b"9" and r0.exists("a", "a2", "h", "h2") == 0,
          "cached-records: database 0 after SIGKILL", str(r0.keys()))
    check(r2.get("a2") == b"1" and r2.hget("h2", "f") == b"v" and 6000 < r2.ttl("h2") <= 7000
          and r2.get("x") == b"8" and r2.exists("b", "h") == 0,
          "cached-records: database 2 after SIGKILL", f"{r2.keys()} ttl {r2.ttl('h2')}")
    r0.close()
    r2.close()
    check(casq.stop() == 0, "cached-records: clean shutdown")
    shutil.rmtree(work, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
