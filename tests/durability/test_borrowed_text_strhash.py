#!/usr/bin/python3
"""test_borrowed_text_strhash.py -- a commit lends big hashes' JSON chunks
and big strings' JSON to the document being written (docTextRef) instead
of copying them;
commands that change those hashes while the write is in flight must leave
the document being written untouched, and every document that reaches the
disk must be whole and consistent.

casq runs with commit-debug-delay 20, so every commit stays in flight at
least 20 ms, while several clients set, update, increment and delete fields
of big hashes (well over the 64 KB under which a key's JSON is copied into
the document), grow them past table resizes and COPY them, and SET,
APPEND, SETRANGE, INCRBYFLOAT over and GETDEL big strings. Every field's
value names the field (v:<field>:<n>) and every big string starts with
S:<key>:, so a checker reading queue.json over and over can check each
version: it parses, no field twice, every value belongs to its field or
key (the quiet chunks of the big hashes are read from their chunk
segments, docs/state-format.md). At the end the state is read through the
server, the server is SIGKILLed and restarted, and it must be identical.
Ports 24700-24799.
"""

import base64
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, merge_segments, pick_port  # noqa: E402

PORT = int(os.environ.get("BORROWED_STRHASH_PORT", "0")) or pick_port(24700, span=100)
SECONDS = float(os.environ.get("BORROWED_SECONDS", "8"))
HASHES = [b"big:1", b"big:2\x00\xff"]

stop = threading.Event()
problems = []
versions = {"n": 0}


def doc_bytes(v):
    return v.encode("utf-8") if isinstance(v, str) else base64.b64decode(v["base64"], validate=True)


def writer(i):
    r = Casq_client(i)
    rng = random.Random(i)
    n = 0
    while not stop.is_set():
        n += 1
        h = rng.choice(HASHES)
        f = b"f%d\x00" % rng.randrange(6000)
        c = rng.random()
        if c < 0.6:
            r.hset(h, f, b"v:" + f + b":%d" % n + b"x" * rng.randrange(40))
        elif c < 0.8:
            r.hdel(h, f)
        elif c < 0.9:
            g = b"f%d\x00" % rng.randrange(6000)
            r.hset(h, mapping={f: b"v:" + f + b":m%d" % n, g: b"v:" + g + b":m%d" % n})
        elif c < 0.95:
            r.hincrby(h, b"counter", 1)
        elif c < 0.96:
            r.copy(h, b"copy:%d" % i, replace=True)
        else:
            k = b"bigs:%d\xff" % rng.randrange(6)
            p = b"S:" + k + b":"
            c = rng.random()
            if c < 0.4:
                r.set(k, p + os.urandom(rng.randrange(50000, 90000)))
            elif c < 0.7:
                r.append(k, p + os.urandom(rng.randrange(100, 5000)))
            elif c < 0.85:
                if r.exists(k):
                    r.setrange(k, len(p) + rng.randrange(1000), os.urandom(rng.randrange(1, 300)))
            elif c < 0.95:
                r.getdel(k)
            else:
                r.set(k, b"1.5")
                r.incrbyfloat(k, 1)  # small now: no longer lent
                r.set(k, p + b"t" * 70000)


def Casq_client(i):
    import redis
    return redis.Redis(port=PORT, socket_timeout=30)


def check_doc(path):
    while not stop.is_set():
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
            if not raw.strip():
                continue
            doc = json.loads(raw)
        except FileNotFoundError:
            time.sleep(0.01)
            continue
        except ValueError as e:
            problems.append(f"unparsable version: {e}")
            return

        def segment(name):
            with open(os.path.join(path + ".segments", name), "rb") as fh:
                return fh.read()

        try:
            merge_segments(doc, segment)  # segments live for >= 10 s after a root stops naming them
        except FileNotFoundError as e:
            problems.append(f"a segment the root names is missing: {e}")
            return
        versions["n"] += 1
        for d in doc["databases"]:
            for k in d["keys"]:
                if k["type"] == "string":
                    key = doc_bytes(k["key"])
                    v = doc_bytes(k["string"])
                    if not v.startswith(b"S:" + key + b":") and v not in (b"1.5", b"2.5"):
                        problems.append(f"{key!r}: string {v[:30]!r}")
                    continue
                if k["type"] != "hash":
                    continue
                seen = set()
                for f, v in k["hash"]:
                    f, v = doc_bytes(f), doc_bytes(v)
                    if f in seen:
                        problems.append(f"{k['key']}: field {f!r} twice")
                    seen.add(f)
                    if f != b"counter" and not v.startswith(b"v:" + f + b":"):
                        problems.append(f"{k['key']}: field {f!r} has {v[:30]!r}")
        time.sleep(0.005)


def main():
    import redis
    datadir = tempfile.mkdtemp(prefix="casq-borrowed-strhash-")
    casq = Casq(PORT, datadir, "--enable-debug-command", "yes", "--commit-debug-delay", "20").start()
    r = casq.client()
    for h in HASHES:
        for base in range(0, 4000, 500):
            r.hset(h, mapping={b"f%d\x00" % j: b"v:f%d\x00:0" % j + b"y" * 30 for j in range(base, base + 500)})
    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    checker = threading.Thread(target=check_doc, args=(os.path.join(datadir, "queue.json"),))
    for t in threads + [checker]:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in threads + [checker]:
        t.join()
    check(not problems, f"borrowed-strhash: every document version read ({versions['n']}) is whole and consistent",
          "; ".join(problems[:3]))
    check(versions["n"] > 5, f"borrowed-strhash: the checker read enough versions ({versions['n']})")
    encs = {r.object("encoding", h) for h in HASHES}
    check(encs == {b"hashtable"}, f"borrowed-strhash: the hashes are hashtables ({encs})")

    def state(r):
        return {k: (r.hgetall(k) if r.type(k) == b"hash" else r.get(k)) for k in sorted(r.keys("*"))}

    before = state(r)
    sizes = [len(v) for v in before.values()]
    check(sum(1 for k in before if k.startswith(b"bigs:")) >= 1, "borrowed-strhash: big strings were written")
    r.close()
    casq.kill(signal.SIGKILL)
    casq.start()
    r = casq.client()
    after = state(r)
    check(before == after, f"borrowed-strhash: SIGKILL and restart keep every hash and string as it was ({sizes})")
    r.close()
    check(casq.stop() == 0, "borrowed-strhash: clean shutdown")
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
