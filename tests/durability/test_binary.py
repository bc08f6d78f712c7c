#!/usr/bin/python3
"""test_binary.py -- byte strings survive a restart byte for byte.

Key names, field names, values, group and consumer names with NUL bytes and
invalid UTF-8 (and readable UTF-8, which must stay readable in the
document), in several databases, with consumer groups, pending entries,
XSETID metadata and key expiry. The complete state as a client sees it
(XINFO STREAM FULL, XINFO GROUPS/CONSUMERS, XPENDING, PEXPIRETIME) must be
identical after a graceful restart and after a SIGKILL.
"""

import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, doc_bytes, finish, load_document, pick_port  # noqa: E402

PORT = int(os.environ.get("BINARY_PORT", "0")) or pick_port(26150)

NASTY = [
    b"\x00",
    b"a\x00b",
    b"\xff\xfe\xfd",
    b"\xc3\x28",  # invalid 2-byte sequence
    b"\xed\xa0\x80",  # UTF-16 surrogate encoded in UTF-8
    b"\xf4\x90\x80\x80",  # beyond U+10FFFF
    b"\xc0\xaf",  # overlong '/'
    b"\xe2\x82",  # truncated sequence
    "héllo wörld ✓ 😀".encode(),  # readable UTF-8
    b'quote" backslash\\ newline\n tab\t ctrl\x01\x1f',
    b"",  # empty
    bytes(range(256)),
]


def snapshot(r, keys_by_db):
    """Everything a client can see about the keys (raw replies)."""
    r.response_callbacks = {}
    out = {}
    for db, keys in keys_by_db.items():
        r.execute_command("SELECT", db)
        for key in keys:
            full = r.execute_command("XINFO", "STREAM", key, "FULL")
            groups = r.execute_command("XINFO", "GROUPS", key)
            consumers = []
            # Idle times are relative to now: compared without them (XINFO
            # STREAM FULL has the absolute seen/active/delivery times).
            for g in r.execute_command("XINFO", "GROUPS", key):
                name = dict(zip(g[0::2], g[1::2]))[b"name"]
                for c in r.execute_command("XINFO", "CONSUMERS", key, name):
                    d = dict(zip(c[0::2], c[1::2]))
                    consumers.append((d[b"name"], d[b"pending"], d[b"inactive"] == -1))
                for p in r.execute_command("XPENDING", key, name, "-", "+", "1000"):
                    consumers.append((p[0], p[1], p[3]))
            out[(db, key)] = (full, groups, consumers, r.execute_command("PEXPIRETIME", key),
                              r.execute_command("XRANGE", key, "-", "+"))
    r.execute_command("SELECT", 0)
    return out


def populate(r):
    keys_by_db = {0: [], 3: []}
    for db in keys_by_db:
        r.execute_command("SELECT", db)
        for i, name in enumerate(NASTY):
            key = b"k" + name + f"-{db}-{i}".encode()
            keys_by_db[db].append(key)
            for j, v in enumerate(NASTY):
                f = NASTY[(j + i) % len(NASTY)] or b"f"
                r.execute_command("XADD", key, "*", f, v, b"n", str(j).encode())
            for g in (name + b"-grp", b"\xff\x00grp"):
                r.execute_command("XGROUP", "CREATE", key, g, "0")
                r.execute_command("XREADGROUP", "GROUP", g, name + b"\x00consumer", "COUNT", "3", "STREAMS", key, ">")
                r.execute_command("XREADGROUP", "GROUP", g, b"\xfe\xff", "COUNT", "2", "STREAMS", key, ">")
            r.execute_command("XGROUP", "CREATECONSUMER", key, name + b"-grp", b"idle\x00\xff")
            first = r.execute_command("XRANGE", key, "-", "+", "COUNT", "1")[0][0]
            r.execute_command("XDEL", key, first)
            if i % 2:
                r.execute_command("PEXPIREAT", key, int(time.time() * 1000) + 3600_000 + i)
        # Stream metadata: a last ID ahead of the entries, entries-added.
        meta = b"meta\x00\xff"
        keys_by_db[db].append(meta)
        r.execute_command("XADD", meta, "*", b"x", b"\x00")
        r.execute_command("XSETID", meta, "9999999999999-5", "ENTRIESADDED", "123", "MAXDELETEDID", "9999999999999-1")
        # An empty stream with a group.
        empty = b"empty\xff"
        keys_by_db[db].append(empty)
        r.execute_command("XGROUP", "CREATE", empty, b"g\x00", "$", "MKSTREAM")
    r.execute_command("SELECT", 0)
    return keys_by_db


def main():
    datadir = tempfile.mkdtemp(prefix="casq-binary-")
    casq = Casq(PORT, datadir).start()
    r = casq.client()
    keys_by_db = populate(r)
    before = snapshot(r, keys_by_db)
    r.close()

    check(casq.stop() == 0, "binary: clean shutdown")
    doc = load_document(os.path.join(datadir, "queue.json"))
    names = {doc_bytes(k["key"]): k["key"] for d in doc["databases"] for k in d["keys"]}
    allnames = [(d["id"], doc_bytes(k["key"])) for d in doc["databases"] for k in d["keys"]]
    readable = b"k" + "héllo wörld ✓ 😀".encode() + b"-0-8"
    check(isinstance(names.get(readable), str), "binary: readable UTF-8 stays a readable JSON string")
    check(isinstance(names.get(b"k\x00-0-0"), dict), "binary: a name with NUL is base64 in the document")
    check(sorted(allnames) == sorted((db, k) for db, ks in keys_by_db.items() for k in ks),
          "binary: the document holds every key, names decoded byte for byte")

    casq.start()
    r = casq.client()
    after = snapshot(r, keys_by_db)
    diff = [k for k in before if before[k] != after.get(k)]
    check(not diff, "binary: identical state after a graceful restart", f"differs: {diff[:3]}")

    # The same after a crash (the state was committed before the kill).
    r.execute_command("XADD", b"late\x00", "*", b"\xff", b"\x00")
    keys_by_db[0].append(b"late\x00")
    before = snapshot(r, keys_by_db)
    r.close()
    casq.kill(signal.SIGKILL)
    casq.start()
    r = casq.client()
    after = snapshot(r, keys_by_db)
    diff = [k for k in before if before[k] != after.get(k)]
    check(not diff, "binary: identical state after SIGKILL and restart", f"differs: {diff[:3]}")
    r.close()
    casq.stop()
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
